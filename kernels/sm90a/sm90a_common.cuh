#pragma once
// Shared sm_90a building blocks for the Hopper forward (fwd_*) and backward (bwd_*)
// kernels. Every device function is one instruction or a fixed short sequence, with
// the PTX ISA section it wraps (titles, with numbers of PTX ISA 9.x where given); policy lives in the
// kernels. The host part builds TMA tensor maps through the runtime's driver entry
// point, so nothing links libcuda (the binary still starts where no driver exists).
//
// Contents: addresses and fences | mbarrier | PipelineState | copy engine (TMA) |
// warp-specialisation plumbing | arithmetic | ldmatrix | wgmma | host: tensor maps.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cuda/ptx>
#include <string>

#include "hang_watch.cuh"
#include "tensor_map.hpp"
#include "vsa/backend.hpp"

namespace vsa::sm90a {

// ---- addresses and fences (PTX ISA "membar / fence", fence.proxy.async) ---------------

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// Ordinary (generic-proxy) shared-memory accesses -> later accesses by wgmma or the copy
// engine (async proxy), e.g. before handing a buffer back to a TMA producer or after
// writing an operand with st.shared.
__device__ __forceinline__ void fence_proxy_async_smem() { cuda::ptx::fence_proxy_async(cuda::ptx::space_shared); }

// ---- mbarrier (PTX ISA "Parallel Synchronization and Communication: mbarrier") --------

__device__ __forceinline__ void mbar_init(std::uint64_t* bar, std::uint32_t arrivals) {
  cuda::ptx::mbarrier_init(bar, arrivals);
}

// Makes initialised barriers visible to the async proxy; follow with a CTA barrier.
__device__ __forceinline__ void mbar_init_fence() {
  cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
}

// One arrival (release at CTA scope: earlier shared-memory accesses of this thread are
// ordered before the phase completes).
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar); }

// `count` arrivals at once, e.g. one thread standing in for a whole warp group.
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar, std::uint32_t count) {
  (void)cuda::ptx::mbarrier_arrive(bar, count);
}

// One arrival plus the number of bytes the copy engine will still deliver to this phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, bar,
                                             bytes);
}

// Blocks until the phase with this parity has completed (acquire at CTA scope).
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, std::uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// The same wait in a kernel variant: kWatched (the probe variant) bounds it by the launch's
// hang watch (kernels/common/hang_watch.cuh), which names `site` and `at` when it expires;
// the normal variant is the plain wait above, with no trace of the watch in its code.
template <bool kWatched>
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, std::uint32_t parity, const HangWatch& watch,
                                          const HangSite& site, const hang::WaitPoint& at) {
  if constexpr (kWatched)
    hang::wait_parity([bar, parity] { return cuda::ptx::mbarrier_try_wait_parity(bar, parity); }, parity, watch, site,
                      at);
  else
    mbar_wait(bar, parity);
}

// ---- PipelineState: a ring of kStages buffers, each guarded by full/empty mbarriers ----
//
// `index` is the buffer, `phase` flips each time the ring wraps. A consumer waits on
// full[index] for parity `phase`; a producer waits on empty[index] for parity `phase ^ 1`
// (a fresh barrier counts its "previous" phase as complete, so the first lap of the
// producer does not block). Producer and consumer advance in the same order.
template <int kStages>
struct PipelineState {
  int index = 0;
  std::uint32_t phase = 0;

  __device__ __forceinline__ void advance() {
    if (++index == kStages) {
      index = 0;
      phase ^= 1u;
    }
  }
  [[nodiscard]] __device__ __forceinline__ std::uint32_t full_parity() const { return phase; }
  [[nodiscard]] __device__ __forceinline__ std::uint32_t empty_parity() const { return phase ^ 1u; }
};

// ---- copy engine (PTX ISA "Data Movement: cp.async.bulk, cp.async.bulk.tensor") --------

// 2-D tile (x = column in elements, y = row) of a tensor map into shared memory; completes
// the transaction bytes on `bar`.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int x, int y, std::uint64_t* bar) {
  const std::int32_t coords[2] = {x, y};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map, coords, bar);
}

// PTX ISA "createpolicy": L2 eviction priority for the loads that carry the policy.
// evict_last for data that other CTAs will read again soon (K, V), evict_first for data
// read once (Q), so streaming tiles do not push reused ones out of L2.
__device__ __forceinline__ std::uint64_t l2_policy_evict_last() {
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ std::uint64_t l2_policy_evict_first() {
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}

// tma_load_2d with an L2 cache policy (.L2::cache_hint; cuda::ptx has no wrapper for it).
__device__ __forceinline__ void tma_load_2d_hinted(void* dst, const CUtensorMap* map, int x, int y, std::uint64_t* bar,
                                                   std::uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(smem_addr(bar)), "l"(policy)
      : "memory");
}

// Contiguous bytes (a multiple of 16, both ends 16-byte aligned) into shared memory.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar) {
  cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, src, bytes, bar);
}

// bulk_load / bulk_store with an L2 cache policy (PTX ISA 9.7.9.25.4.1, cp.async.bulk with
// .L2::cache_hint; cuda::ptx has no wrapper for it).
__device__ __forceinline__ void bulk_load_hinted(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar,
                                                 std::uint64_t policy) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;\n" ::
          "r"(smem_addr(dst)),
      "l"(reinterpret_cast<std::uint64_t>(src)), "r"(bytes), "r"(smem_addr(bar)), "l"(policy)
      : "memory");
}
__device__ __forceinline__ void bulk_store_hinted(void* dst, const void* src, std::uint32_t bytes,
                                                  std::uint64_t policy) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(dst)),
               "r"(smem_addr(src)), "r"(bytes), "l"(policy)
               : "memory");
}

// Contiguous bytes from shared memory to global memory (bulk async-group of this thread;
// commit with bulk_commit, wait with bulk_wait_read / bulk_wait).
__device__ __forceinline__ void bulk_store(void* dst, const void* src, std::uint32_t bytes) {
  cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, dst, src, bytes);
}
__device__ __forceinline__ void bulk_commit() { cuda::ptx::cp_async_bulk_commit_group(); }
// At most N of this thread's bulk groups still read their shared-memory source.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<N>{});
}
// At most N of this thread's bulk groups incomplete; the others' global writes are done
// (visible to this thread, which may then publish them with a release).
template <int N>
__device__ __forceinline__ void bulk_wait() {
  cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<N>{});
}

// PTX ISA "cp.async" (sm_80+, no cuda::ptx wrapper): 4 bytes global -> shared that hold no
// register on the way; several in flight cost one round trip. cp_async_wait_all: this
// thread's copies have landed and may be read with ld.shared.
__device__ __forceinline__ void cp_async_4(void* smem_dst, const void* gmem_src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem_addr(smem_dst)), "l"(gmem_src) : "memory");
}
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

// Generic-proxy ordering <-> copy-engine (async proxy) accesses of global memory: between
// a flag's acquire and a TMA load of what it guards, and between a bulk store's completion
// and the release of its flag.
__device__ __forceinline__ void fence_proxy_async_global() { cuda::ptx::fence_proxy_async(cuda::ptx::space_global); }

// PTX ISA "prefetch, prefetchu" (prefetch.tensormap): warm the descriptor cache.
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

// ---- warp-specialisation plumbing ----------------------------------------------------

// PTX ISA "Miscellaneous: setmaxnreg": move registers between warp groups. Needs a register cap at
// entry (__launch_bounds__(threads, 1)); every warp of the warp group executes it.
template <std::uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <std::uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

// PTX ISA "bar, barrier" (bar.sync): named barrier `id` (1..15; 0 is __syncthreads) over `threads`
// threads (a multiple of 32).
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// PTX ISA "griddepcontrol": programmatic dependent launch. wait blocks until the
// grids this one depends on have completed and their memory is visible; launch_dependents
// lets the next grid in the stream start its prologue early.
__device__ __forceinline__ void grid_dependency_wait() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }
__device__ __forceinline__ void grid_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

// Sleep at least `nanoseconds` (delay probes); __nanosleep takes at most about 1 ms.
__device__ __forceinline__ void sleep_ns(std::uint32_t nanoseconds) {
  while (nanoseconds > 0) {
    const std::uint32_t chunk = nanoseconds < 1000000u ? nanoseconds : 1000000u;
    __nanosleep(chunk);
    nanoseconds -= chunk;
  }
}

// ---- arithmetic ------------------------------------------------------------------------

// PTX ISA "Floating Point: ex2" (ex2.approx.ftz.f32: 2^x, -inf -> +0).
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// PTX ISA "Data Movement and Conversion: cvt" (cvt.rn.bf16x2.f32): two floats -> bf16x2 (RNE);
// `lo` lands in the low 16 bits (the lower column of an mma fragment pair).
__device__ __forceinline__ std::uint32_t pack_bf16x2(float lo, float hi) {
  std::uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// PTX ISA "red" (red.global.add.v2.f32): fire-and-forget fp32 reduction of two adjacent floats.
__device__ __forceinline__ void red_add_v2(float* dst, float a, float b) {
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(dst), "f"(a), "f"(b) : "memory");
}

// ---- ldmatrix (PTX ISA "Warp Level Matrix Load Instruction: ldmatrix") -----------------

// Four 8x8 b16 matrices; lanes 8i..8i+7 give the row addresses of matrix i, and register i
// receives matrix i in the mma fragment layout (lane holds row lane/4, columns 2*(lane%4)+{0,1}).
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

// ---- wgmma (PTX §9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate") ----
//
// Fragment layouts (§9.7.15.5.1.1), warp w of the warp group, lane l, t = l % 4:
//   accumulator m64nN: d[4j + {0,1}] = (row 16w + l/4,     column 8j + 2t + {0,1}),
//                      d[4j + {2,3}] = (row 16w + l/4 + 8, same columns);
//   A from registers (one k16 slice): a[0] = (row r, k 2t..2t+1), a[1] = (row r+8, same k),
//                      a[2] = (row r, k 2t+8..2t+9), a[3] = (row r+8, same k), r = 16w + l/4.
// So an accumulator pair of n8 chunks (2j, 2j+1) repacked as bf16x2 is directly the A
// operand of the next product's k16 slice j (softmax P feeding P.V).

// Shared-memory matrix descriptor (§9.7.15.5.1.2, "Matrix Descriptor Format") for a
// 128-byte-swizzled operand whose swizzle atoms (8 rows x 128 B) start on 1024-byte
// boundaries (base offset 0). Byte offsets as PTX defines them: K-major: lbo unused (16),
// sbo = stride between 8-row groups; MN-major: lbo = stride between 64-element MN chunks,
// sbo = stride between 8-row (K) groups. Stepping k16 inside a swizzle atom of a K-major
// operand adds 32 bytes to `addr` (the swizzle is applied to the final address bits).
__device__ __forceinline__ std::uint64_t smem_desc_sw128(std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo) {
  return std::uint64_t((addr & 0x3FFFFu) >> 4) | (std::uint64_t((lbo & 0x3FFFFu) >> 4) << 16) |
         (std::uint64_t((sbo & 0x3FFFFu) >> 4) << 32) | (std::uint64_t(1) << 62);
}

// The lane index from %laneid, opaque to the compiler (asm volatile): address arithmetic built
// on it is redone where it is used instead of hoisted into registers held across a loop. The
// three-group forward (160 registers) spills without it: ptxas keeps per-lane epilogue and Q
// addresses alive for the whole kernel (run 42).
__device__ __forceinline__ int lane_id_unhoisted() {
  int lane;
  asm volatile("mov.u32 %0, %%laneid;\n" : "=r"(lane));
  return lane;
}

// §9.7.15.7.1 wgmma.fence: order earlier register writes (accumulators, A fragments)
// before the next wgmma.mma_async reads them.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
// §9.7.15.7.2 wgmma.commit_group.
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// §9.7.15.7.3 wgmma.wait_group: at most kPending groups of this warp still in flight.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

// The compiler does not know wgmma is asynchronous: pass every accumulator / A-fragment
// register through this after wgmma_wait (and before the next issue) so no access is
// moved across the wait and no register is reused while the tensor cores may use it.
template <int N>
__device__ __forceinline__ void keep_live(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void keep_live(std::uint32_t (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");
}
// A-fragment sets: [k16 slice][4 registers].
template <int N>
__device__ __forceinline__ void keep_live(std::uint32_t (&r)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; ++i) keep_live(r[i]);
}

// §9.7.15.5.2 wgmma.mma_async, bf16 inputs, fp32 accumulators. `accumulate` = 0 gives
// D = A.B (scale-d false), else D += A.B. kTransB = 1: B is N-major (MN-major) in memory.

// D[64x64] (+)= A[64x16] B[16x64]; A in registers, B in shared memory.
template <int kTransB>
__device__ __forceinline__ void wgmma_m64n64k16_rs(float (&d)[32], const std::uint32_t (&a)[4], std::uint64_t desc_b,
                                                   int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate), "n"(kTransB));
}

// D[64x128] (+)= A[64x16] B[16x128]; A in registers, B in shared memory.
template <int kTransB>
__device__ __forceinline__ void wgmma_m64n128k16_rs(float (&d)[64], const std::uint32_t (&a)[4], std::uint64_t desc_b,
                                                    int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
        "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate), "n"(kTransB));
}

// D[64x64] (+)= A[64x16] B[16x64]; A and B in shared memory. kTransA = 1: A is M-major.
template <int kTransA, int kTransB>
__device__ __forceinline__ void wgmma_m64n64k16_ss(float (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b,
                                                   int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, p, 1, 1, %35, %36;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(accumulate), "n"(kTransA), "n"(kTransB));
}

// D[64x128] (+)= A[64x16] B[16x128]; A and B in shared memory.
template <int kTransA, int kTransB>
__device__ __forceinline__ void wgmma_m64n128k16_ss(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                    int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, p, 1, 1, %67, %68;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
        "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(accumulate), "n"(kTransA), "n"(kTransB));
}

// ---- host: TMA tensor maps ----------------------------------------------------------------

// Shared with sm100a (kernels/common/tensor_map.hpp): built per launch, encoder found
// through the runtime, never by linking libcuda.
using vsa::device::make_tensor_map_bf16_sw128;

}  // namespace vsa::sm90a
