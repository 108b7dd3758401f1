#pragma once
// Binds kernel code to its protocol table (protocol_model.hpp): a role walks its script
// with a Cursor, a type that names the next op of the table. Every step below takes the
// cursor, static_asserts that the op there is the kind of thing the kernel is about to do,
// *executes the instruction* with the barrier slot, phase parity, TMEM column and width the
// table gives, and returns the cursor past it. The instructions themselves live in
// sm100a_ptx.cuh's `detail` namespace, which role code does not call (CTest
// `sm100a_detail_callers`). So a role cannot issue a synchronising instruction without
// stepping the table, nor step the table without issuing it: deleting a step leaves the
// cursor one op behind, and the next step's static_assert (or finish()) fails to compile
// (CTest `sm100a_deletions` tries every such deletion).
//
// Which ops run at a given iteration is decided by Op::active, the same function the
// checker uses: every step executes its instruction exactly when the op is active.
// Memory accesses marked optional in the table may additionally be left out at run time
// (tmem_load_if / tmem_store_if, or skip()); synchronising ops never.
//
// Steps (each returns the next cursor):
//   wait, arrive_warp, arrive_expect_tx, commit        mbarrier / tcgen05.commit
//   fence_after, fence_before, fence_async             tcgen05.fence::*, fence.proxy.async
//   tmem_load(_if), wait_ld, tmem_store(_if), wait_st   tcgen05.ld / st / wait
//   role_sync, cta_sync                                 bar.sync (role), __syncthreads
//   store_commit, wait_store_read, wait_store_all       cp.async.bulk commit / wait_group
//   expect<Kind>                                        memory ops issued through the
//                                                       op-checked issuers below (mma,
//                                                       tma_load, smem stores/loads)
// Op-checked issuers (do not advance; one op may issue several instructions):
//   mma_issue (tcgen05.mma), tma_load_tile / bulk_load (TMA, barrier from the table),
//   tma_store_tile / bulk_reduce_add (stores of a tma_store op).
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

// Located hangs (vsa/hang_watch.hpp). Only the watched cursors (Begin<..., true>: the
// kernels' probe variants, which a launch with a hang watch selects) build the bounded
// wait; the normal variants build the plain wait, so their code is what it was before the
// watch (NOTES.md, "Hang watch only in the probe variants": with it on every wait's slow
// path the blk128 forward went from 163 to 196 registers). The watch is a module global,
// not a kernel parameter, so no role signature changes: each translation unit that
// launches a kernel has its own copy (internal linkage) and sets it with arm_hang_watch
// before the launch. The execution model (VSA_SM100A_MODEL) reports deadlocks itself,
// naming every blocked thread, so it builds the plain wait in both variants.
#ifndef VSA_SM100A_MODEL
static __device__ HangWatch g_hang_watch;

// Host: makes the next launches on `stream` use `watch` (off: HangWatch{}). Copies only
// when the value changes, so cases without a watch pay nothing after the first.
static inline cudaError_t arm_hang_watch(const HangWatch& watch, cudaStream_t stream) {
  static std::mutex mutex;
  static HangWatch armed;
  std::lock_guard<std::mutex> lock(mutex);
  if (watch.record == armed.record && watch.timeout_ms == armed.timeout_ms) return cudaSuccess;
  const cudaError_t err =
      cudaMemcpyToSymbolAsync(g_hang_watch, &watch, sizeof watch, 0, cudaMemcpyHostToDevice, stream);
  if (err == cudaSuccess) armed = watch;
  return err;
}
#endif

// kWatched: the cursor of a watched (probe) variant; its waits are bounded by the hang
// watch. A role passes its kProbe, so the normal variant never builds the watch.
template <const Protocol& kP, WarpRole kRole, Section kSection, int kIndex, bool kWatched>
struct Cursor {
  static constexpr int index = kIndex;
  [[nodiscard]] static constexpr int size() { return kP.script(kRole).size(kSection); }
  [[nodiscard]] static constexpr Op op() { return kP.script(kRole).ops(kSection)[kIndex]; }
#ifdef VSA_SM100A_MODEL
  // Host builds on the execution model only (the device build has no constructor here, so
  // its code is unchanged): a cursor made (Begin, or a step's advance) is the thread's place
  // in its script, and the model's race and deadlock reports name the op by the table's text.
  Cursor() {
    if constexpr (kIndex < size())
      ::vsa::sm100a::model_detail::at_protocol_op(op().what);
    else
      ::vsa::sm100a::model_detail::at_protocol_op(nullptr);
  }
#endif
  [[nodiscard]] static constexpr const Protocol& protocol() { return kP; }
  static constexpr WarpRole role = kRole;
  static constexpr bool watched = kWatched;
  using Next = Cursor<kP, kRole, kSection, kIndex + 1, kWatched>;
};

// No default for kWatched: every role says which variant it is building.
template <const Protocol& kP, WarpRole kRole, Section kSection, bool kWatched>
using Begin = Cursor<kP, kRole, kSection, 0, kWatched>;

// End of a section: every op of the table was stepped over.
template <class C>
__device__ __forceinline__ void finish(C) {
  static_assert(C::index == C::size(), "the kernel stopped before the end of its protocol script section");
}

// Steps over a memory op whose instructions the caller issued through the op-checked
// issuers below (MMA, TMA load, generic smem stores and loads): the static_assert pins the
// kind. Synchronising ops have their own executing steps, and expect<> refuses them.
template <OpKind kKind>
inline constexpr bool is_memory_op =
    kKind == OpKind::mma || kKind == OpKind::tma_load || kKind == OpKind::smem_store || kKind == OpKind::smem_load;
namespace detail {
// The one place a cursor moves without executing anything: every step below ends here.
template <OpKind kKind, class C>
__device__ __forceinline__ typename C::Next advance(C) {
  static_assert(C::index < C::size(), "the kernel does more than its protocol script lists");
  static_assert(C::op().kind == kKind, "kernel and protocol table disagree about this op");
  return {};
}
}  // namespace detail

template <OpKind kKind, class C>
__device__ __forceinline__ typename C::Next expect(C c) {
  static_assert(is_memory_op<kKind>, "a synchronising op has an executing step (wait_ld, fence_after, ...)");
  return detail::advance<kKind>(c);
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

template <class C>
constexpr WarpRole role_of(C) {
  return C::role;
}

#ifndef VSA_SM100A_MODEL
// The watched cursors' wait: bounded by g_hang_watch when one is armed (the record names
// the table's kernel, role, barrier, slot and step).
template <class C>
__device__ __forceinline__ void watched_wait(std::uint64_t* bar, std::uint32_t parity, int iteration) {
  using B = BarrierOf<C>;
  constexpr Op op = C::op();
  if (::vsa::sm100a::detail::mbar_try_wait(bar, parity)) return;
  constexpr HangSite site{hang_label(C::protocol().name), hang_label(role_name(C::role)),
                          hang_label(C::protocol().barrier(op.barrier).name)};
  const int slot = ring_instance(B::ring, B::ring_size, op_step<C>(iteration));
  hang::wait_parity([bar, parity] { return ::vsa::sm100a::detail::mbar_try_wait(bar, parity); }, parity, g_hang_watch,
                    site, hang::WaitPoint{slot, op_step<C>(iteration), -1});
}
#endif

// mbarrier wait for the op's phase. A wait on a free slot's previous use returns at once.
// Watched cursors (probe variants, device build) bound it by the hang watch.
template <class C>
__device__ __forceinline__ typename C::Next wait(C c, std::uint64_t* bars, int iteration, int steps) {
  using B = BarrierOf<C>;
  constexpr Op op = C::op();  // a local copy: device code must not ODR-use the host tables
  static_assert(op.kind == OpKind::wait, "kernel waits where the protocol table has another op");
  if (op.active(iteration, steps)) {
    const int use = ring_use(B::ring, B::ring_size, op_step<C>(iteration)) + op.use_delta;
    if (use >= 0) {
#ifndef VSA_SM100A_MODEL
      if constexpr (C::watched)
        watched_wait<C>(barrier_of<C>(bars, iteration), parity_of_use(use), iteration);
      else
#endif
        ::vsa::sm100a::detail::mbar_wait(barrier_of<C>(bars, iteration), parity_of_use(use));
    }
  }
  return detail::advance<OpKind::wait>(c);
}

// One arrival for the calling warp: lanes meet, lane 0 arrives (the barrier counts warps).
template <class C>
__device__ __forceinline__ typename C::Next arrive_warp(C c, std::uint64_t* bars, int iteration, int steps, int lane) {
  constexpr Op op = C::op();
  static_assert(op.kind == OpKind::arrive, "kernel arrives where the protocol table has another op");
  if (op.active(iteration, steps)) {
    __syncwarp();
    if (lane == 0) ::vsa::sm100a::detail::mbar_arrive(barrier_of<C>(bars, iteration));
    __syncwarp();
  }
  return detail::advance<OpKind::arrive>(c);
}

// Producer: one arrival plus the bytes the following TMA loads deliver (single thread).
template <class C>
__device__ __forceinline__ typename C::Next arrive_expect_tx(C c, std::uint64_t* bars, int iteration, int steps,
                                                             std::uint32_t bytes) {
  constexpr Op op = C::op();
  static_assert(op.kind == OpKind::arrive_tx, "kernel expects TMA bytes where the table has another op");
  if (op.active(iteration, steps)) ::vsa::sm100a::detail::mbar_arrive_expect_tx(barrier_of<C>(bars, iteration), bytes);
  return detail::advance<OpKind::arrive_tx>(c);
}

// tcgen05.commit to the op's barrier (single thread).
template <class C>
__device__ __forceinline__ typename C::Next commit(C c, std::uint64_t* bars, int iteration, int steps) {
  constexpr Op op = C::op();
  static_assert(op.kind == OpKind::commit, "kernel commits where the protocol table has another op");
  if (op.active(iteration, steps)) ::vsa::sm100a::detail::umma_commit(barrier_of<C>(bars, iteration));
  return detail::advance<OpKind::commit>(c);
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

// ---- fences ------------------------------------------------------------------------------

// Two model-only plants (model/plants.hpp) for the race detector's fence edges: the forward's
// softmax warps without their tcgen05.fence::after_thread_sync (their S / O tcgen05.ld issued
// under no fence after the wait), and the backward's dsoftmax warps without their
// tcgen05.fence::before_thread_sync (S^T / dP^T released while their loads are unfenced).
// Normal builds fold both to false.
__device__ __forceinline__ bool planted_missing_fence_after(WarpRole role) {
  (void)role;
  return VSA_PLANT(skip_fence_after, false, role == WarpRole::softmax);
}
__device__ __forceinline__ bool planted_missing_fence_before(WarpRole role) {
  (void)role;
  return VSA_PLANT(skip_fence_before, false, role == WarpRole::dsoftmax);
}

// tcgen05.fence::after_thread_sync: the role's later tcgen05 ops after the preceding wait.
template <class C>
__device__ __forceinline__ typename C::Next fence_after(C c, int iteration, int steps) {
  static_assert(C::op().kind == OpKind::fence_after, "kernel fences (after) where the table has another op");
  if (C::op().active(iteration, steps) && !planted_missing_fence_after(role_of(C{})))
    ::vsa::sm100a::detail::tc_fence_after_sync();
  return detail::advance<OpKind::fence_after>(c);
}

// tcgen05.fence::before_thread_sync: the role's earlier tcgen05 ops before the next arrive/sync.
template <class C>
__device__ __forceinline__ typename C::Next fence_before(C c, int iteration, int steps) {
  static_assert(C::op().kind == OpKind::fence_before, "kernel fences (before) where the table has another op");
  if (C::op().active(iteration, steps) && !planted_missing_fence_before(role_of(C{})))
    ::vsa::sm100a::detail::tc_fence_before_sync();
  return detail::advance<OpKind::fence_before>(c);
}

// fence.proxy.async.shared::cta: this thread's generic-proxy smem stores visible to the
// async proxy (tcgen05.mma operands, TMA and bulk stores).
template <class C>
__device__ __forceinline__ typename C::Next fence_async(C c, int iteration, int steps) {
  static_assert(C::op().kind == OpKind::fence_async, "kernel fences (proxy) where the table has another op");
  if (C::op().active(iteration, steps)) ::vsa::sm100a::detail::fence_proxy_async_smem();
  return detail::advance<OpKind::fence_async>(c);
}

// ---- TMEM loads and stores (tcgen05.ld / st .32x32b, tcgen05.wait) --------------------------

// Columns of the TMEM buffer instance an op reads (tmem_load) or writes (tmem_store), and
// the op's width: the range of the table's TMEM map.
template <class C, std::uint8_t kBuffer>
struct TmemRangeOf {
  static constexpr BufferSpec spec = C::protocol().buffer(kBuffer);
  static_assert(spec.memory == Memory::tmem, "not a TMEM buffer");
  static constexpr int columns = C::protocol().tmem[spec.tmem_region].columns;
};

// The registers of a `columns`-wide 32x32b access at TMEM address `taddr` (lanes of the
// calling warp's quarter, first column): one 64-column load where the width is 64, else
// 32-column pieces.
template <int N>
__device__ __forceinline__ void tmem_load_row(std::uint32_t (&r)[N], std::uint32_t taddr) {
  static_assert(N % 32 == 0, "32x32b accesses come in 32-column pieces");
  if constexpr (N == 64) {
    ::vsa::sm100a::detail::tmem_load_64cols(r, taddr);
  } else {
#pragma unroll
    for (int c = 0; c < N / 32; ++c)
      ::vsa::sm100a::detail::tmem_load_32cols(*reinterpret_cast<std::uint32_t(*)[32]>(&r[32 * c]), taddr + 32 * c);
  }
}
template <int N>
__device__ __forceinline__ void tmem_store_row(std::uint32_t taddr, const std::uint32_t (&r)[N]) {
  static_assert(N % 32 == 0, "32x32b accesses come in 32-column pieces");
#pragma unroll
  for (int c = 0; c < N / 32; ++c)
    ::vsa::sm100a::detail::tmem_store_32cols(taddr + 32 * c, *reinterpret_cast<const std::uint32_t(*)[32]>(&r[32 * c]));
}

// tcgen05.ld of the op's TMEM buffer (read[0]) at `iteration`: all its columns, into r,
// for the warp's lanes (`lanes`: tmem_at(base, 32 * quarter, 0)). Warp-wide: the caller
// makes sure the warp is converged (.sync.aligned).
template <class C, int N>
__device__ __forceinline__ typename C::Next tmem_load(C c, std::uint32_t (&r)[N], std::uint32_t lanes, int iteration,
                                                      int steps) {
  constexpr Op op = C::op();
  static_assert(op.kind == OpKind::tmem_load, "kernel loads TMEM where the protocol table has another op");
  static_assert(N == TmemRangeOf<C, op.read[0]>::columns, "the load's width is the buffer's column range");
  if (op.active(iteration, steps)) tmem_load_row(r, lanes + std::uint32_t(tmem_column<C, op.read[0]>(iteration)));
  return detail::advance<OpKind::tmem_load>(c);
}
// The same, left out at run time when !run (ops the table marks optional only).
template <class C, int N>
__device__ __forceinline__ typename C::Next tmem_load_if(C c, bool run, std::uint32_t (&r)[N], std::uint32_t lanes,
                                                         int iteration, int steps) {
  static_assert(C::op().optional, "only optional accesses may be left out at run time");
  if (run) return tmem_load(c, r, lanes, iteration, steps);
  return detail::advance<OpKind::tmem_load>(c);
}

// tcgen05.st of r into the op's TMEM buffer (write) at `iteration`, all its columns.
template <class C, int N>
__device__ __forceinline__ typename C::Next tmem_store(C c, const std::uint32_t (&r)[N], std::uint32_t lanes,
                                                       int iteration, int steps) {
  constexpr Op op = C::op();
  static_assert(op.kind == OpKind::tmem_store, "kernel stores TMEM where the protocol table has another op");
  static_assert(N == TmemRangeOf<C, op.write>::columns, "the store's width is the buffer's column range");
  if (op.active(iteration, steps)) tmem_store_row(lanes + std::uint32_t(tmem_column<C, op.write>(iteration)), r);
  return detail::advance<OpKind::tmem_store>(c);
}
template <class C, int N>
__device__ __forceinline__ typename C::Next tmem_store_if(C c, bool run, const std::uint32_t (&r)[N],
                                                          std::uint32_t lanes, int iteration, int steps) {
  static_assert(C::op().optional, "only optional accesses may be left out at run time");
  if (run) return tmem_store(c, r, lanes, iteration, steps);
  return detail::advance<OpKind::tmem_store>(c);
}

// An optional access the kernel leaves out on this path (the other path executes it).
template <class C>
__device__ __forceinline__ typename C::Next skip(C c) {
  static_assert(C::op().optional, "only optional accesses may be left out");
  return detail::advance<C::op().kind>(c);
}

// The seed review's bug, planted for the checks that must catch it: the dQ reduce releases
// dq_empty with its tcgen05.ld unwaited. Two plants, both in this one step so the role file
// stays the real one: the lint regression's build (VSA_PLANT_MISSING_WAIT_LD,
// tests/fixtures/CMakeLists.txt) and the execution model's selftest row (skip_wait_ld,
// model/plants.hpp). Every other role keeps its waits; normal builds fold this to false.
__device__ __forceinline__ bool planted_missing_wait_ld(WarpRole role) {
#if defined(VSA_PLANT_MISSING_WAIT_LD)
  if (role == WarpRole::dq_reduce) return true;
#endif
  return VSA_PLANT(skip_wait_ld, false, role == WarpRole::dq_reduce);
}

// tcgen05.wait::ld, then the loaded registers pinned after it (keep_after_wait).
template <class C, int... N>
__device__ __forceinline__ typename C::Next wait_ld(C c, int iteration, int steps, std::uint32_t (&... regs)[N]) {
  static_assert(C::op().kind == OpKind::wait_ld, "kernel waits for TMEM loads where the table has another op");
  if (C::op().active(iteration, steps)) {
    if (!planted_missing_wait_ld(role_of(C{}))) ::vsa::sm100a::detail::tmem_wait_ld();
    (keep_after_wait(regs), ...);
  }
  return detail::advance<OpKind::wait_ld>(c);
}

// tcgen05.wait::st.
template <class C>
__device__ __forceinline__ typename C::Next wait_st(C c, int iteration, int steps) {
  static_assert(C::op().kind == OpKind::wait_st, "kernel waits for TMEM stores where the table has another op");
  if (C::op().active(iteration, steps)) ::vsa::sm100a::detail::tmem_wait_st();
  return detail::advance<OpKind::wait_st>(c);
}

// ---- thread barriers -------------------------------------------------------------------------

// bar.sync `barrier_id` over every thread of the op's role (the count from the role table).
template <class C>
__device__ __forceinline__ typename C::Next role_sync(C c, int iteration, int steps, int barrier_id) {
  static_assert(C::op().kind == OpKind::role_sync, "kernel syncs its role where the table has another op");
  constexpr int threads = C::protocol().role(C::role).warps * 32;
  if (C::op().active(iteration, steps)) ::vsa::sm100a::detail::named_barrier_sync(barrier_id, threads);
  return detail::advance<OpKind::role_sync>(c);
}

// __syncthreads (the teardown barrier: the table marks it every_time).
template <class C>
__device__ __forceinline__ typename C::Next cta_sync(C c) {
  static_assert(C::op().kind == OpKind::cta_sync, "kernel syncs the CTA where the table has another op");
  static_assert(C::op().always, "a CTA barrier every thread reaches runs whatever the step count");
  __syncthreads();
  return detail::advance<OpKind::cta_sync>(c);
}

// ---- asynchronous loads (TMA, bulk copies): the op's barrier from the table ----------------

// Issuer of a tma_load op: a 2-D box into dst, its bytes on the op's barrier at `iteration`.
template <class C>
__device__ __forceinline__ void tma_load_tile(C, std::uint64_t* bars, int iteration, void* dst, const CUtensorMap* map,
                                              int x, int y) {
  static_assert(C::op().kind == OpKind::tma_load, "kernel loads where the protocol table has another op");
  ::vsa::sm100a::detail::tma_load_2d(dst, map, x, y, barrier_of<C>(bars, iteration));
}
// Issuer of a tma_load op: `bytes` contiguous bytes (1-D bulk copy) on the op's barrier.
template <class C>
__device__ __forceinline__ void bulk_load(C, std::uint64_t* bars, int iteration, void* dst, const void* src,
                                          std::uint32_t bytes) {
  static_assert(C::op().kind == OpKind::tma_load, "kernel loads where the protocol table has another op");
  ::vsa::sm100a::detail::bulk_load_1d(dst, src, bytes, barrier_of<C>(bars, iteration));
}

// ---- asynchronous stores (TMA, bulk reduce): issuers, the commit, the waits -----------------

// Issuers of a tma_store op (the calling thread's copies of the op's buffer).
template <class C>
__device__ __forceinline__ void tma_store_tile(C, const CUtensorMap* map, int x, int y, const void* src) {
  static_assert(C::op().kind == OpKind::tma_store, "kernel stores where the protocol table has another op");
  ::vsa::sm100a::detail::tma_store_2d(map, x, y, src);
}
template <class C>
__device__ __forceinline__ void bulk_reduce_add(C, float* dst, const float* src, std::uint32_t bytes) {
  static_assert(C::op().kind == OpKind::tma_store, "kernel stores where the protocol table has another op");
  ::vsa::sm100a::detail::bulk_reduce_add_f32(dst, src, bytes);
}
// The end of a tma_store op: cp.async.bulk.commit_group of the copies issued above, by
// the threads that issued them (`issuer`; for lead_only ops the lead thread).
template <class C>
__device__ __forceinline__ typename C::Next store_commit(C c, int iteration, int steps, bool issuer) {
  static_assert(C::op().kind == OpKind::tma_store, "kernel commits stores where the table has another op");
  if (C::op().active(iteration, steps) && issuer) ::vsa::sm100a::detail::tma_store_commit();
  return detail::advance<OpKind::tma_store>(c);
}
// cp.async.bulk.wait_group.read 0: the thread's committed stores have read their smem.
// `issuer`: the threads that committed (lead_only ops: the lead; others: every thread).
template <class C>
__device__ __forceinline__ typename C::Next wait_store_read(C c, int iteration, int steps, bool issuer) {
  static_assert(C::op().kind == OpKind::wait_store, "kernel waits for stores where the table has another op");
  if (C::op().active(iteration, steps) && issuer) ::vsa::sm100a::detail::tma_store_wait_read();
  return detail::advance<OpKind::wait_store>(c);
}
// cp.async.bulk.wait_group 0: the thread's committed bulk operations complete, writes included.
template <class C>
__device__ __forceinline__ typename C::Next wait_store_all(C c, int iteration, int steps) {
  static_assert(C::op().kind == OpKind::wait_store, "kernel waits for stores where the table has another op");
  if (C::op().active(iteration, steps)) ::vsa::sm100a::detail::bulk_wait_all();
  return detail::advance<OpKind::wait_store>(c);
}

// ---- tcgen05.mma ------------------------------------------------------------------------------

// Issuer of an mma op: one tcgen05.mma (bf16 in, fp32 accumulate, both operands in smem).
template <class C>
__device__ __forceinline__ void mma_issue(C, std::uint32_t d_tmem, std::uint64_t a_desc, std::uint64_t b_desc,
                                          std::uint32_t idesc, bool accumulate) {
  static_assert(C::op().kind == OpKind::mma, "kernel issues an MMA where the protocol table has another op");
  ::vsa::sm100a::detail::umma_bf16_ss(d_tmem, a_desc, b_desc, idesc, accumulate);
}

// Every mbarrier slot of barrier kBarrier with the table's arrival count (compile-time
// indices: device code never reads the tables at run time).
template <const Protocol& kP, int kBarrier>
__device__ __forceinline__ void init_barrier(std::uint64_t* bars) {
  constexpr BarrierSpec spec = kP.barriers[kBarrier];
  constexpr int slots = kP.ring_size(spec.ring);
  constexpr int first = kP.barrier_slot(kBarrier, 0);
#pragma unroll
  for (int i = 0; i < slots; ++i) ::vsa::sm100a::detail::mbar_init(&bars[first + i], std::uint32_t(spec.arrivals));
}
// All barriers of the table: init_all_barriers<kP>(bars, std::make_integer_sequence<int, count>{}).
template <const Protocol& kP, int... kBarrier>
__device__ __forceinline__ void init_all_barriers(std::uint64_t* bars, std::integer_sequence<int, kBarrier...>) {
  (init_barrier<kP, kBarrier>(bars), ...);
}

// tcgen05.dealloc of the table's whole allocation (the MMA warp, all lanes).
template <class C>
__device__ __forceinline__ typename C::Next tmem_dealloc(C c, std::uint32_t tmem_base) {
  static_assert(C::op().kind == OpKind::tmem_dealloc, "kernel frees TMEM where the table has another op");
  static_assert(C::op().always, "TMEM is freed whatever the step count");
  ::vsa::sm100a::detail::tmem_dealloc(tmem_base, std::uint32_t(C::protocol().tmem_alloc_columns));
  return detail::advance<OpKind::tmem_dealloc>(c);
}

// MMA warp, all lanes, at the end of every sm100a kernel: the teardown barrier, then the
// table's TMEM allocation freed (the MMA warp allocated it). `c`: the epilogue op the
// teardown starts at, after any the script puts before it (the backward's run_mma returns
// its cursor past the dkdv_done commit).
template <class C>
__device__ __forceinline__ void mma_teardown(C c, std::uint32_t tmem_base) {
  static_assert(C::role == WarpRole::mma, "the MMA warp frees TMEM");
  auto c1 = cta_sync(c);
  auto c2 = fence_after(c1, 0, 0);
  finish(tmem_dealloc(c2, tmem_base));
}
template <const Protocol& kP>
__device__ __forceinline__ void mma_teardown(std::uint32_t tmem_base) {
  mma_teardown(Begin<kP, WarpRole::mma, Section::epilogue, false>{}, tmem_base);  // no wait to watch
}

}  // namespace vsa::sm100a::protocol
