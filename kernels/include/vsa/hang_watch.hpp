#pragma once
// Located hangs (issue 18, finding 5): a bounded mbarrier wait. With a HangWatch in the
// launch arguments, a backend runs its watched (probe) variant; a thread whose wait
// outlasts timeout_ms fills the HangRecord, which lives in host-mapped memory
// (cudaHostAlloc(..., cudaHostAllocMapped): still readable by the host after the sticky
// error), and traps. The harness reads the record and turns the fault into a message
// that names the barrier. Plain C++: shared by kernels (hang_watch.cuh) and the host
// reader (app/engine/hang_report.*).
#include <cstdint>

namespace vsa {

// Labels travel as fixed-size text so the record needs no table on the host side: the
// kernel writes the names it has (the protocol table's, the kernel's barrier enum's).
inline constexpr int kHangLabelWords = 6;  // 24 bytes: 23 characters and a terminator

struct HangLabel {
  std::uint32_t words[kHangLabelWords] = {};
};

// A label from a string, at compile time (longer names are cut to 23 characters).
constexpr HangLabel hang_label(const char* text) {
  HangLabel l;
  for (int i = 0; i < kHangLabelWords * 4 - 1 && text[i] != '\0'; ++i)
    l.words[i / 4] |= std::uint32_t(static_cast<unsigned char>(text[i])) << (8 * (i % 4));
  return l;
}

// What a waiting thread says about itself, set once per wait site (names constant,
// numbers from the running kernel).
struct HangSite {
  HangLabel kernel;   // e.g. "sm90a.forward"
  HangLabel role;     // e.g. "producer", "mma" (the protocol table's role names)
  HangLabel barrier;  // e.g. "k_full" (the table's or the kernel's barrier name)
};

static_assert(sizeof(HangSite) == 3 * kHangLabelWords * sizeof(std::uint32_t), "labels back to back, no padding");

struct HangRecord {
  std::uint32_t claimed = 0;   // 0 -> 1 by the first expired thread (atomicCAS); later ones only trap
  std::uint32_t complete = 0;  // 1 once every field below is written (written last)
  std::int32_t block = -1;     // linear CTA index
  std::int32_t warp = -1;      // warp in the CTA
  std::int32_t slot = -1;      // instance of the barrier (ring slot)
  std::uint32_t parity = 0;    // the phase parity waited for
  std::int32_t step = -1;      // kv step (loop iteration) of the work item, -1 where none
  std::int32_t item = -1;      // work item (q block or kv block id), -1 where none
  std::uint32_t waited_ms = 0;
  std::uint32_t pad = 0;
  HangSite site;
};

struct HangWatch {
  HangRecord* record = nullptr;  // device-visible address of the mapped record; null: no watch
  std::uint32_t timeout_ms = 0;
  [[nodiscard]] constexpr bool on() const { return record != nullptr && timeout_ms > 0; }
};

}  // namespace vsa
