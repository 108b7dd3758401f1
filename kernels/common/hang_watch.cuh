#pragma once
// The bounded mbarrier wait of the watched (probe) kernel variants (vsa/hang_watch.hpp).
// Only the slow path changes: the first try_wait that fails starts a clock, and a wait
// that outlasts the watch fills the mapped HangRecord and traps, so a deadlock ends as a
// sticky launch failure with its location instead of a kernel that never returns.
//
// ISA facts relied on (PTX ISA 8.x/9.x): "mbarrier.test_wait / mbarrier.try_wait"
// (try_wait returns false when the phase is not complete within a time limit, so the
// loop below polls the clock between potentially blocking tries); "Special Registers:
// %globaltimer" (a 64-bit nanosecond timer common to the GPU); "membar / fence"
// (membar.sys, i.e. __threadfence_system: the record's stores are performed for the host
// before the flag that says it is complete); "trap" (aborts the kernel: the host sees a
// launch failure, a sticky error).
#include <cstdint>

#include "vsa/hang_watch.hpp"

namespace vsa::hang {

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The timer in units of 1024 ns, 32 bits: one register for the start of a wait (the sm90a
// backward's producer runs on 24 registers; 64-bit start and limit made it spill), and
// differences stay exact for 73 minutes, past any watch (the CLI allows 1 hour).
__device__ __forceinline__ std::uint32_t timer_units() { return std::uint32_t(global_timer_ns() >> 10); }
inline constexpr std::uint32_t kTimerUnitsPerMs = 1000000u / 1024u;  // 976 (not 976.6): up to 0.06% early

// The site's labels into the record: compile-time values, so immediate stores.
__device__ __forceinline__ void copy_site(HangSite& dst, const HangSite& src) {
#pragma unroll
  for (int i = 0; i < kHangLabelWords; ++i) {
    dst.kernel.words[i] = src.kernel.words[i];
    dst.role.words[i] = src.role.words[i];
    dst.barrier.words[i] = src.barrier.words[i];
  }
}

// The numbers that change per wait (the labels are compile-time constants of the site).
struct WaitPoint {
  int slot = -1;
  int step = -1;
  int item = -1;
};

// Cold path: the first expired thread writes the record; every expired thread traps once
// the record is complete.
// Inlined like the rest: the labels stay immediates (no stack frame in the kernels).
__device__ __forceinline__ void expire(HangRecord* record, const HangSite& site, std::uint32_t parity,
                                       const WaitPoint& at, std::uint32_t waited_units) {
  if (atomicCAS(&record->claimed, 0u, 1u) == 0u) {
    record->block = int(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
    record->warp = int(threadIdx.x / 32);
    record->slot = at.slot;
    record->parity = parity;
    record->step = at.step;
    record->item = at.item;
    record->waited_ms = waited_units / kTimerUnitsPerMs;
    copy_site(record->site, site);
    __threadfence_system();
    atomicExch(&record->complete, 1u);
    __threadfence_system();
  } else {
    // Another thread is writing the record. Trapping now would end the kernel before it
    // completes, and the host would see a launch failure with no location (seen on the
    // H200: the sm90a consumers all expire together). Wait for it, then trap.
    while (atomicAdd(&record->complete, 0u) == 0u) __nanosleep(1000);
  }
  __trap();
}

// Waits until `done()` (one mbarrier try_wait / test_wait for `parity`: the family's own
// instruction, sm_80 test_wait or sm_90 try_wait) holds, bounded by the watch when one is
// set (watch.on()).
//
// Register cost: one 32-bit start across the loop, plus the cold expiry path. A role that
// runs on very few registers cannot afford it (the sm90a backward's 24-register producer
// spilled 16 to 40 bytes, which the lint forbids): such roles keep the plain wait.
template <class Done>
__device__ __forceinline__ void wait_parity(Done done, std::uint32_t parity, const HangWatch& watch,
                                            const HangSite& site, const WaitPoint& at) {
  if (done()) return;
  if (!watch.on()) {
    while (!done()) {
    }
    return;
  }
  // Only `start` lives across the loop; the limit is recomputed from the watch (kernel
  // parameter space) at each check.
  const std::uint32_t start = timer_units();
  while (!done()) {
    const std::uint32_t waited = timer_units() - start;
    if (waited > watch.timeout_ms * kTimerUnitsPerMs) expire(watch.record, site, parity, at, waited);
  }
}

}  // namespace vsa::hang
