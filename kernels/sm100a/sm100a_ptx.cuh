#pragma once
// Every PTX instruction the sm100a kernels use, each wrapped once. CCCL's cuda::ptx
// wrappers where they exist; inline PTX only where none does (marked "inline PTX").
// Sections are those of the PTX ISA (9.x numbering as CCCL cites it; tcgen05 by title,
// "Tensor Core 5th Generation Family Instructions"). Policy lives in the kernels.
//
// Two parts:
// - vsa::sm100a (public): what is no synchronisation and no asynchronous operation:
//   addresses, the generic-proxy shared store, sleeps, arithmetic, the compiler barrier
//   after a wait, and the descriptors (umma_desc.hpp, host-callable).
// - vsa::sm100a::detail: every synchronising or asynchronous instruction (mbarrier, TMA and
//   bulk copies, tcgen05 alloc / mma / commit / ld / st / waits / fences, fence.proxy.async,
//   named barriers). Role code reaches these only through the protocol cursor
//   (protocol_cursor.cuh), whose steps take the barrier, parity, TMEM column and width
//   from the protocol table and execute the instruction. The callers allowed outside the
//   cursor are listed, with reasons, in tests/cli/sm100a_detail_callers.sh; CTest
//   `sm100a_detail_callers` fails on any other.
// What each function compiles to (opcode, direction, scope) is pinned by the table of
// scripts/sm100a/wrapper_opcodes.py (CTest `sm100a_wrapper_opcodes`): a new function goes
// into that table, or into its list of those that issue no instruction.
//
// Contents: public (addresses, smem store, TMEM address, sleeps, arithmetic) | detail
// (mbarrier | TMA and bulk copies | fences | tcgen05 alloc, mma, commit, ld/st, waits,
// fences | CTA plumbing).
//
// Host builds against the execution model (VSA_SM100A_MODEL, kernels/sm100a/model/) take
// both parts from model/ptx_model.hpp instead, except the plain arithmetic that is the same
// in both builds (tmem_at, sleep_ns, the descriptors of umma_desc.hpp).
#include <cstdint>

#ifdef VSA_SM100A_MODEL
#include "model/ptx_model.hpp"
#else
#include <cuda.h>
#include <cuda_runtime.h>

#include <cuda/ptx>
#endif

// A planted-fault point (vsa-bench selftest, model only): the kernel's value `good`, or, in
// the execution model's planted build, `bad` while the named fault is selected. Every other
// build compiles `good` alone, so the sm_100a image does not change.
#ifndef VSA_PLANT
#define VSA_PLANT(name, good, bad) (good)
#endif

#include "umma_desc.hpp"

namespace vsa::sm100a {

// ---- addresses ----------------------------------------------------------------------------

#ifndef VSA_SM100A_MODEL
__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
#endif

// TMEM address: lane in bits 31..16, column in bits 15..0.
__device__ __forceinline__ std::uint32_t tmem_at(std::uint32_t base, int lane, int column) {
  return base + (std::uint32_t(lane) << 16) + std::uint32_t(column);
}

#ifndef VSA_SM100A_MODEL
// inline PTX: "Data Movement and Conversion Instructions: st" (st.shared.v4.b32; CCCL's
// cuda::ptx::st covers .global only): one 16-byte store at a shared-memory address
// (swizzled tiles are addressed by hand). A generic-proxy store like any C++ store: the
// protocol's smem_store ops stand for these, and its fence_async step makes them visible
// to the async proxy.
__device__ __forceinline__ void st_shared_v4(std::uint32_t addr, std::uint32_t x, std::uint32_t y, std::uint32_t z,
                                             std::uint32_t w) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(x), "r"(y), "r"(z), "r"(w) : "memory");
}

// A plain C++ load of shared memory (generic proxy), the role files' only kind besides the
// PTX surface: on the device exactly `*p`; on the execution model a load the race detector
// tracks (ptx_model.hpp), so every shared-memory byte the kernels touch is checked.
template <class V>
__device__ __forceinline__ V ld_shared(const V* p) {
  return *p;
}

// Registers written by tcgen05.ld are undefined until tcgen05.wait::ld, but the compiler
// does not know that the wait guards them: pass them through this after the wait so no
// use is hoisted above it (the cursor's wait_ld step does, for the registers it is given).
template <int N>
__device__ __forceinline__ void keep_after_wait(std::uint32_t (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

#endif  // VSA_SM100A_MODEL

// Sleep at least `nanoseconds` (delay probes); __nanosleep takes at most about 1 ms.
__device__ __forceinline__ void sleep_ns(std::uint32_t nanoseconds) {
  while (nanoseconds > 0) {
    const std::uint32_t chunk = nanoseconds < 1000000u ? nanoseconds : 1000000u;
    __nanosleep(chunk);
    nanoseconds -= chunk;
  }
}

#ifndef VSA_SM100A_MODEL
// ---- arithmetic ---------------------------------------------------------------------------

// inline PTX: "Floating Point Instructions: ex2" (ex2.approx.ftz.f32): 2^x, -inf -> +0.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// inline PTX: "Data Movement and Conversion Instructions: cvt" (cvt.rn.bf16x2.f32): two floats
// -> bf16x2, round to nearest even; `lo` lands in the low 16 bits (the lower address in memory).
__device__ __forceinline__ std::uint32_t pack_bf16x2(float lo, float hi) {
  std::uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

namespace detail {

// ---- mbarrier (9.7.12.15.9 init, 9.7.12.15.13 arrive, 9.7.12.15.16 try_wait) ------------

__device__ __forceinline__ void mbar_init(std::uint64_t* bar, std::uint32_t arrivals) {
  cuda::ptx::mbarrier_init(bar, arrivals);
}

// 9.7.12.4 fence.mbarrier_init: initialised barriers visible to the async proxy (TMA,
// tcgen05.commit); follow with a CTA barrier.
__device__ __forceinline__ void mbar_init_fence() {
  cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
}

// One arrival, release at CTA scope.
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar); }

// One arrival plus `bytes` the copy engine will still deliver to this phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, bar,
                                             bytes);
}

// Blocks until the phase with this parity has completed (acquire at CTA scope).
// One try_wait (the hang watch's bounded loop, protocol_cursor.cuh): whether the phase with
// this parity has completed within the instruction's own time limit.
__device__ __forceinline__ bool mbar_try_wait(std::uint64_t* bar, std::uint32_t parity) {
  return cuda::ptx::mbarrier_try_wait_parity(bar, parity);
}

__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, std::uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// ---- TMA (9.7.8.24.9 cp.async.bulk.tensor, .12 commit_group, .13 wait_group) --------------

// 2-D box (x = column in elements, y = row) of a tensor map into shared memory; its bytes
// complete the transaction count of `bar`'s current phase.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int x, int y, std::uint64_t* bar) {
  const std::int32_t coords[2] = {x, y};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map, coords, bar);
}

// 2-D box from shared memory to global memory (bulk-group completion).
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, int x, int y, const void* src) {
  const std::int32_t coords[2] = {x, y};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, map, coords, src);
}
__device__ __forceinline__ void tma_store_commit() { cuda::ptx::cp_async_bulk_commit_group(); }
// Every committed store has finished reading its shared memory (the tile may be reused or
// the CTA may exit).
__device__ __forceinline__ void tma_store_wait_read() {
  cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
}

// 9.7.8.24.6 cp.async.bulk (global -> shared, mbarrier completion): `bytes` (a multiple of
// 16, both addresses 16-byte aligned) contiguous bytes; they complete the transaction count
// of `bar`'s current phase.
__device__ __forceinline__ void bulk_load_1d(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar) {
  cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, src, bytes, bar);
}

// 9.7.8.24.7 cp.reduce.async.bulk .add.f32 (shared -> global, bulk-group completion):
// dst[i] += src[i] for `bytes` / 4 floats, performed by the bulk-copy engine; the smem
// source may be reused after tma_store_wait_read(), the global result is complete after
// bulk_wait_all().
__device__ __forceinline__ void bulk_reduce_add_f32(float* dst, const float* src, std::uint32_t bytes) {
  cuda::ptx::cp_reduce_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, cuda::ptx::op_add, dst, src, bytes);
}
// 9.7.8.24.13 cp.async.bulk.wait_group 0: every committed bulk operation of this thread has
// completed, its writes included.
__device__ __forceinline__ void bulk_wait_all() { cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{}); }

// inline PTX: "Data Movement and Conversion Instructions: prefetch" (prefetch.tensormap):
// warm the descriptor cache.
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

// 9.7.12.4 fence.proxy.async.shared::cta: this thread's earlier generic-proxy (st.shared)
// writes become visible to the async proxy (tcgen05.mma operands, TMA stores).
__device__ __forceinline__ void fence_proxy_async_smem() { cuda::ptx::fence_proxy_async(cuda::ptx::space_shared); }

// ---- tcgen05: TMEM allocation ("tcgen05.alloc / dealloc / relinquish_alloc_permit") ------
// Warp-wide (.sync.aligned): the whole warp executes these.

__device__ __forceinline__ void tmem_alloc(std::uint32_t* base_out, std::uint32_t columns) {
  cuda::ptx::tcgen05_alloc(cuda::ptx::cta_group_1, base_out, columns);
}
__device__ __forceinline__ void tmem_relinquish_alloc_permit() {
  cuda::ptx::tcgen05_relinquish_alloc_permit(cuda::ptx::cta_group_1);
}
__device__ __forceinline__ void tmem_dealloc(std::uint32_t base, std::uint32_t columns) {
  cuda::ptx::tcgen05_dealloc(cuda::ptx::cta_group_1, base, columns);
}

// ---- tcgen05.mma, tcgen05.commit ------------------------------------------------------------

// D (TMEM, fp32) = A B (+ D when `accumulate`); A and B from shared-memory descriptors,
// bf16, shape from the instruction descriptor. Issued by one thread.
__device__ __forceinline__ void umma_bf16_ss(std::uint32_t d_tmem, std::uint64_t a_desc, std::uint64_t b_desc,
                                             std::uint32_t idesc, bool accumulate) {
  cuda::ptx::tcgen05_mma(cuda::ptx::kind_f16, cuda::ptx::cta_group_1, d_tmem, a_desc, b_desc, idesc, accumulate);
}

// One arrival on `bar` once every tcgen05 operation this thread issued before is complete.
__device__ __forceinline__ void umma_commit(std::uint64_t* bar) {
  cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, bar);
}

// ---- tcgen05.ld / tcgen05.st / tcgen05.wait ---------------------------------------------
// Warp-wide. Shape 32x32b: lane i of the warp reads TMEM lane (lane base + i), register j
// holds column (column base + j). A warp may only reach the 32 lanes 32 (warp % 4)...

__device__ __forceinline__ void tmem_load_32cols(std::uint32_t (&r)[32], std::uint32_t taddr) {
  cuda::ptx::tcgen05_ld_32x32b(r, taddr);
}
__device__ __forceinline__ void tmem_load_64cols(std::uint32_t (&r)[64], std::uint32_t taddr) {
  cuda::ptx::tcgen05_ld_32x32b(r, taddr);
}
__device__ __forceinline__ void tmem_store_32cols(std::uint32_t taddr, const std::uint32_t (&r)[32]) {
  cuda::ptx::tcgen05_st_32x32b(taddr, r);
}
// Every earlier tcgen05.ld of this thread is complete: its registers hold the data.
__device__ __forceinline__ void tmem_wait_ld() { cuda::ptx::tcgen05_wait_ld(); }
// Every earlier tcgen05.st of this thread is complete.
__device__ __forceinline__ void tmem_wait_st() { cuda::ptx::tcgen05_wait_st(); }

// ---- tcgen05 fences ("tcgen05.fence") -------------------------------------------------------

// Orders this thread's earlier tcgen05 operations before a following barrier arrive / sync.
__device__ __forceinline__ void tc_fence_before_sync() { cuda::ptx::tcgen05_fence_before_thread_sync(); }
// Orders this thread's later tcgen05 operations after a preceding barrier wait / sync.
__device__ __forceinline__ void tc_fence_after_sync() { cuda::ptx::tcgen05_fence_after_thread_sync(); }

// ---- CTA plumbing -------------------------------------------------------------------------

// inline PTX: "Parallel Synchronization and Communication Instructions: bar" (bar.sync):
// named barrier `id` (1..15) over `threads`.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace detail
#endif  // VSA_SM100A_MODEL

}  // namespace vsa::sm100a
