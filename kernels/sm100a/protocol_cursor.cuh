#pragma once
// Binds kernel code to its protocol table (protocol_model.hpp): a role walks its script
// with a Cursor, a type that names the next op of the table. Every helper below takes
// the cursor, static_asserts that the op there is the kind of thing the kernel is about
// to do, does it with the barrier slot, phase parity or TMEM column the table gives, and
// returns the cursor past it. Doing ops in another order, skipping one or adding one that
// is not in the table is a compile error, so the host checker's verdict on the table is
// a verdict on the kernel's synchronisation.
//
// Which ops run at a given iteration is decided by Op::active, the same function the
// checker uses. Memory accesses marked optional in the table may additionally be left
// out at run time (the helper then only advances the cursor); synchronising ops never.
#include <cstdint>
#include <utility>

#include "protocol_model.hpp"
#include "sm100a_ptx.cuh"
#ifndef VSA_SM100A_MODEL
#include <cuda_runtime.h>

#include <mutex>

#include "hang_watch.cuh"
#endif

namespace vsa::sm100a::protocol {

// Located hangs (vsa/hang_watch.hpp). The watch is a module global, not a kernel
// parameter, so no role signature changes: each translation unit that launches a kernel
// has its own copy (internal linkage) and sets it with arm_hang_watch before the launch.
// Kernels read it only on a wait's slow path (after the first try_wait failed), so a
// wait that succeeds at once runs the same instructions as without the watch.
// The execution model (VSA_SM100A_MODEL) reports deadlocks itself, naming every blocked
// thread, so it builds the plain wait.
#ifndef VSA_SM100A_MODEL
static __device__ HangWatch g_hang_watch;

// Host: makes the next launches on `stream` use `watch` (off: HangWatch{}). Copies only
// when the value changes, so cases without a watch pay nothing after the first.
static inline cudaError_t arm_hang_watch(const HangWatch& watch, cudaStream_t stream) {
  static std::mutex mutex;
  static HangWatch armed;
  std::lock_guard<std::mutex> lock(mutex);
  if (watch.record == armed.record && watch.timeout_ms == armed.timeout_ms) return cudaSuccess;
  const cudaError_t err = cudaMemcpyToSymbolAsync(g_hang_watch, &watch, sizeof watch, 0, cudaMemcpyHostToDevice, stream);
  if (err == cudaSuccess) armed = watch;
  return err;
}
#endif

template <const Protocol& kP, WarpRole kRole, Section kSection, int kIndex>
struct Cursor {
  static constexpr int index = kIndex;
  [[nodiscard]] static constexpr int size() { return kP.script(kRole).size(kSection); }
  [[nodiscard]] static constexpr Op op() { return kP.script(kRole).ops(kSection)[kIndex]; }
  [[nodiscard]] static constexpr const Protocol& protocol() { return kP; }
  using Next = Cursor<kP, kRole, kSection, kIndex + 1>;
};

template <const Protocol& kP, WarpRole kRole, Section kSection>
using Begin = Cursor<kP, kRole, kSection, 0>;

// End of a section: every op of the table was stepped over.
template <class C>
__device__ __forceinline__ void finish(C) {
  static_assert(C::index == C::size(), "the kernel stopped before the end of its protocol script section");
}

// Steps over an op whose execution is the caller's (an MMA issue, a tcgen05.ld, a fence):
// the static_assert pins the kind.
template <OpKind kKind, class C>
__device__ __forceinline__ typename C::Next expect(C) {
  static_assert(C::index < C::size(), "the kernel does more than its protocol script lists");
  static_assert(C::op().kind == kKind, "kernel and protocol table disagree about this op");
  return {};
}

// The op's kv step at loop iteration `iteration`.
template <class C>
__device__ __forceinline__ int op_step(int iteration) {
  return iteration + C::op().step_offset;
}

// Compile-time facts about the op's barrier. Device code reads the tables only in constant
// expressions; at run time it does arithmetic on these constants.
template <class C>
struct BarrierOf {
  static constexpr Op op = C::op();
  static constexpr Ring ring = C::protocol().barrier(op.barrier).ring;
  static constexpr int ring_size = C::protocol().ring_size(ring);
  static constexpr int first_slot = C::protocol().barrier_slot(op.barrier, 0);
};

// The mbarrier of the op at `iteration` (its slot in the table's layout).
template <class C>
__device__ __forceinline__ std::uint64_t* barrier_of(std::uint64_t* bars, int iteration) {
  using B = BarrierOf<C>;
  return &bars[B::first_slot + ring_instance(B::ring, B::ring_size, op_step<C>(iteration))];
}

template <const Protocol& kP, WarpRole kRole, Section kSection, int kIndex>
constexpr WarpRole role_of(Cursor<kP, kRole, kSection, kIndex>) {
  return kRole;
}

// mbarrier wait for the op's phase. A wait on a free slot's previous use returns at once.
// Bounded by g_hang_watch when one is armed (the record names barrier, slot, step, role).
template <class C>
__device__ __forceinline__ typename C::Next wait(C c, std::uint64_t* bars, int iteration, int steps) {
  using B = BarrierOf<C>;
  constexpr Op op = C::op();  // a local copy: device code must not ODR-use the host tables
  static_assert(op.kind == OpKind::wait, "kernel waits where the protocol table has another op");
  if (op.active(iteration, steps)) {
    const int use = ring_use(B::ring, B::ring_size, op_step<C>(iteration)) + op.use_delta;
#ifdef VSA_SM100A_MODEL
    if (use >= 0) mbar_wait(barrier_of<C>(bars, iteration), parity_of_use(use));
#else
    if (use >= 0) {
      std::uint64_t* bar = barrier_of<C>(bars, iteration);
      const std::uint32_t parity = parity_of_use(use);
      if (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
        // What the record names: the table's kernel, role and barrier (constants).
        constexpr HangSite site{hang_label(C::protocol().name), hang_label(role_name(role_of(C{}))),
                                hang_label(C::protocol().barrier(op.barrier).name)};
        const int slot = ring_instance(B::ring, B::ring_size, op_step<C>(iteration));
        hang::wait_parity([bar, parity] { return cuda::ptx::mbarrier_try_wait_parity(bar, parity); }, parity,
                          g_hang_watch, site, hang::WaitPoint{slot, op_step<C>(iteration), -1});
      }
    }
#endif
  }
  return expect<OpKind::wait>(c);
}

// One arrival for the calling warp: lanes meet, lane 0 arrives (the barrier counts warps).
template <class C>
__device__ __forceinline__ typename C::Next arrive_warp(C c, std::uint64_t* bars, int iteration, int steps,
                                                         int lane) {
  constexpr Op op = C::op();
  static_assert(op.kind == OpKind::arrive, "kernel arrives where the protocol table has another op");
  if (op.active(iteration, steps)) {
    __syncwarp();
    if (lane == 0) mbar_arrive(barrier_of<C>(bars, iteration));
    __syncwarp();
  }
  return expect<OpKind::arrive>(c);
}

// Producer: one arrival plus the bytes the following TMA loads deliver (single thread).
template <class C>
__device__ __forceinline__ typename C::Next arrive_expect_tx(C c, std::uint64_t* bars, int iteration, int steps,
                                                              std::uint32_t bytes) {
  constexpr Op op = C::op();
  static_assert(op.kind == OpKind::arrive_tx, "kernel expects TMA bytes where the table has another op");
  if (op.active(iteration, steps)) mbar_arrive_expect_tx(barrier_of<C>(bars, iteration), bytes);
  return expect<OpKind::arrive_tx>(c);
}

// tcgen05.commit to the op's barrier (single thread).
template <class C>
__device__ __forceinline__ typename C::Next commit(C c, std::uint64_t* bars, int iteration, int steps) {
  constexpr Op op = C::op();
  static_assert(op.kind == OpKind::commit, "kernel commits where the protocol table has another op");
  if (op.active(iteration, steps)) umma_commit(barrier_of<C>(bars, iteration));
  return expect<OpKind::commit>(c);
}

// The TMA load op: the barrier its bytes land on (the caller issues the copies).
template <class C>
__device__ __forceinline__ std::uint64_t* tma_barrier(C, std::uint64_t* bars, int iteration) {
  static_assert(C::op().kind == OpKind::tma_load, "kernel loads where the protocol table has another op");
  return barrier_of<C>(bars, iteration);
}

// Instance of buffer kBuffer at `iteration`; the table must list the buffer for this op.
template <class C, std::uint8_t kBuffer>
__device__ __forceinline__ int buffer_instance(int iteration) {
  constexpr Op op = C::op();
  static_assert(op.write == kBuffer || op.read[0] == kBuffer || op.read[1] == kBuffer || op.read[2] == kBuffer,
                "the kernel touches a buffer the protocol table does not list for this op");
  constexpr Ring ring = C::protocol().buffer(kBuffer).ring;
  constexpr int size = C::protocol().ring_size(ring);
  return ring_instance(ring, size, op_step<C>(iteration));
}

// Whether the op writes kBuffer (for accesses: the kernel writes exactly what the table says).
template <class C, std::uint8_t kBuffer>
inline constexpr bool writes = C::op().write == kBuffer;

// First TMEM column of TMEM buffer kBuffer's instance at `iteration`.
template <class C, std::uint8_t kBuffer>
__device__ __forceinline__ int tmem_column(int iteration) {
  constexpr BufferSpec spec = C::protocol().buffer(kBuffer);
  static_assert(spec.memory == Memory::tmem, "not a TMEM buffer");
  static_assert(spec.tmem_region >= 0, "TMEM buffer without a column range");
  constexpr int size = C::protocol().ring_size(spec.ring);
  static_assert(size <= 2, "extend the column lookup below for deeper TMEM rings");
  constexpr int col0 = C::protocol().tmem[spec.tmem_region].first_column;
  constexpr int col1 = C::protocol().tmem[spec.tmem_region + (size > 1 ? 1 : 0)].first_column;
  return buffer_instance<C, kBuffer>(iteration) == 0 ? col0 : col1;
}

// Whether the op runs at `iteration` (the kernel's guard around ops it executes itself).
template <class C>
__device__ __forceinline__ bool active(C, int iteration, int steps) {
  return C::op().active(iteration, steps);
}

// Every mbarrier slot of barrier kBarrier with the table's arrival count (compile-time
// indices: device code never reads the tables at run time).
template <const Protocol& kP, int kBarrier>
__device__ __forceinline__ void init_barrier(std::uint64_t* bars) {
  constexpr BarrierSpec spec = kP.barriers[kBarrier];
  constexpr int slots = kP.ring_size(spec.ring);
  constexpr int first = kP.barrier_slot(kBarrier, 0);
#pragma unroll
  for (int i = 0; i < slots; ++i) mbar_init(&bars[first + i], std::uint32_t(spec.arrivals));
}
// All barriers of the table: init_all_barriers<kP>(bars, std::make_integer_sequence<int, count>{}).
template <const Protocol& kP, int... kBarrier>
__device__ __forceinline__ void init_all_barriers(std::uint64_t* bars, std::integer_sequence<int, kBarrier...>) {
  (init_barrier<kP, kBarrier>(bars), ...);
}

// MMA warp, all lanes, at the end of every sm100a kernel: the teardown barrier, then the
// table's TMEM allocation freed (the MMA warp allocated it). kFirst: the epilogue op the
// teardown starts at, after any the script puts before it (the backward waits dkdv_done).
template <const Protocol& kP, int kFirst = 0>
__device__ __forceinline__ void mma_teardown(std::uint32_t tmem_base) {
  auto c0 = Cursor<kP, WarpRole::mma, Section::epilogue, kFirst>{};
  __syncthreads();
  auto c1 = expect<OpKind::cta_sync>(c0);
  tc_fence_after_sync();
  auto c2 = expect<OpKind::fence_after>(c1);
  tmem_dealloc(tmem_base, std::uint32_t(kP.tmem_alloc_columns));
  finish(expect<OpKind::tmem_dealloc>(c2));
}

}  // namespace vsa::sm100a::protocol
