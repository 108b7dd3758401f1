#pragma once
// Host side of located hangs (vsa/hang_watch.hpp): the mapped record a watched kernel
// fills before it traps, and the FAULT message made from it.
#include <optional>
#include <string>

#include "vsa/hang_watch.hpp"

namespace vsa {

// "hang: cta 12 warp 5 (mma) waited on k_full[1] parity 0 at step 3 for 2000 ms
// (sm90a.forward, item 17)"; a step or item of -1 is left out.
[[nodiscard]] std::string describe_hang(const HangRecord& record);

// The text of a label (at most 23 characters).
[[nodiscard]] std::string label_text(const HangLabel& label);

// One HangRecord in pinned, mapped host memory (cudaHostAlloc(..., cudaHostAllocMapped)):
// the device writes it through the mapping, and the host can still read it after the
// trap has ended the context. Needs the current device set; throws CudaError.
class MappedHangRecord {
 public:
  explicit MappedHangRecord(std::uint32_t timeout_ms);
  MappedHangRecord(const MappedHangRecord&) = delete;
  MappedHangRecord& operator=(const MappedHangRecord&) = delete;
  ~MappedHangRecord();

  // What a launch gets: the device address of the record and the time limit.
  [[nodiscard]] HangWatch watch() const { return {m_device, m_timeout_ms}; }
  // The record, once a kernel has completed it.
  [[nodiscard]] std::optional<HangRecord> read() const;

 private:
  HangRecord* m_host = nullptr;
  HangRecord* m_device = nullptr;
  std::uint32_t m_timeout_ms = 0;
};

// The reason a faulted backend gets: the hang message when a record was completed, else
// the CUDA error as it was.
[[nodiscard]] std::string hang_fault_reason(const MappedHangRecord* watch, const std::string& cuda_error);

}  // namespace vsa
