// Planted cross-warp overlap race (docs/spec.md bug classes 1 and 2): a consumer warp
// hands a shared-memory stage back to the producer warp before it has read it.
//
//   producer (warp 1)                    consumer (warp 0)
//   wait stage_empty >= k                wait stage_full >= k + 1
//   tile = atomicAdd(counter)            tile = stage_tile
//   load tile from global                stage_empty = k + 1      <- planted: too early
//   write stage, stage_full = k + 1      [probe "selftest.overlap": sleep]
//                                        read stage, store to dst[tile]
//
// Without the probe the consumer's shared loads issue a few cycles after the release,
// while the producer still needs a global atomic and a global load (around a
// microsecond) before it can overwrite the stage: the scheduling margin hides the bug.
// With the probe the producer wins: dst[tile] receives the producer's next tile, and
// which tile that is depends on the order the CTAs reach the atomic counter, so the
// output changes from run to run.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_status.hpp"
#include "kernel_info.hpp"
#include "planted_launch.hpp"

namespace vsa::selftest {
namespace {

constexpr int kWarpSize = 32;
constexpr int kCopyThreads = 2 * kWarpSize;  // warp 0 consumes, warp 1 produces
constexpr int kVectorElems = 8;              // one uint4 of bf16
constexpr int kTileElems = 2048;             // 4 KiB stage
constexpr int kVectorsPerLane = kTileElems / kVectorElems / kWarpSize;
static_assert(kTileElems % (kVectorElems * kWarpSize) == 0, "a tile is whole vectors for every lane");
// Tiles per CTA on average: several, so that a CTA's producer does overwrite the stage.
constexpr std::int64_t kTilesPerCta = 4;

__device__ __forceinline__ void compiler_fence() { asm volatile("" ::: "memory"); }

// Lane's vector i of a tile, with a scalar tail where the tensor ends inside it.
__device__ __forceinline__ uint4 load_vector(const bf16_bits* src, std::int64_t at, std::int64_t count) {
  if (at + kVectorElems <= count) return *reinterpret_cast<const uint4*>(src + at);
  bf16_bits part[kVectorElems] = {};
  for (int e = 0; e < kVectorElems; ++e)
    if (at + e < count) part[e] = src[at + e];
  return *reinterpret_cast<const uint4*>(part);
}

__device__ __forceinline__ void store_vector(bf16_bits* dst, std::int64_t at, std::int64_t count, uint4 value) {
  if (at + kVectorElems <= count) {
    *reinterpret_cast<uint4*>(dst + at) = value;
    return;
  }
  const bf16_bits* part = reinterpret_cast<const bf16_bits*>(&value);
  for (int e = 0; e < kVectorElems; ++e)
    if (at + e < count) dst[at + e] = part[e];
}

__global__ void __launch_bounds__(kCopyThreads)
    early_release_copy_kernel(const bf16_bits* __restrict__ src, bf16_bits* __restrict__ dst, std::int64_t count,
                              int* counter, std::uint32_t delay_ns) {
  __shared__ alignas(16) uint4 stage[kTileElems / kVectorElems];
  __shared__ volatile int stage_tile;   // the tile the stage holds; -1: no work left
  __shared__ volatile int stage_full;   // producer -> consumer: stages published so far
  __shared__ volatile int stage_empty;  // consumer -> producer: stages handed back so far
  const int lane = threadIdx.x % kWarpSize;
  const bool producer = threadIdx.x / kWarpSize == 1;
  if (threadIdx.x == 0) {
    stage_full = 0;
    stage_empty = 0;
  }
  __syncthreads();
  const std::int64_t tiles = (count + kTileElems - 1) / kTileElems;

  if (producer) {
    for (int k = 0;; ++k) {
      while (stage_empty < k) {
      }
      int tile = 0;
      if (lane == 0) tile = atomicAdd(counter, 1);
      tile = __shfl_sync(0xffffffffu, tile, 0);
      const bool done = tile >= tiles;
      if (!done) {
        uint4 values[kVectorsPerLane];
        for (int i = 0; i < kVectorsPerLane; ++i)
          values[i] = load_vector(src, std::int64_t(tile) * kTileElems + (lane + i * kWarpSize) * kVectorElems, count);
        for (int i = 0; i < kVectorsPerLane; ++i) stage[lane + i * kWarpSize] = values[i];
      }
      __syncwarp();
      __threadfence_block();
      if (lane == 0) {
        stage_tile = done ? -1 : tile;
        __threadfence_block();
        stage_full = k + 1;
      }
      __syncwarp();
      if (done) break;
    }
    return;
  }

  for (int k = 0;; ++k) {
    while (stage_full < k + 1) {
    }
    __threadfence_block();
    const int tile = stage_tile;
    if (tile < 0) break;
    __syncwarp();
    if (lane == 0) stage_empty = k + 1;  // planted: released before the stage is read
    compiler_fence();
    if (delay_ns != 0) __nanosleep(delay_ns);  // delay probe "selftest.overlap"
    compiler_fence();
    for (int i = 0; i < kVectorsPerLane; ++i)
      store_vector(dst, std::int64_t(tile) * kTileElems + (lane + i * kWarpSize) * kVectorElems, count,
                   stage[lane + i * kWarpSize]);
  }
}

}  // namespace

Status launch_early_release_copy(const bf16_bits* src, bf16_bits* dst, std::int64_t count, int* counter,
                                 std::uint32_t delay_ns, void* stream) {
  if (count <= 0) return Status::success();
  const std::int64_t tiles = (count + kTileElems - 1) / kTileElems;
  if (tiles > 0x7fffffff) return Status::failure("selftest-overlap-race: tensor too large for an int tile counter");
  int device = 0, sms = 0;
  if (const Status st = device::status_from(cudaGetDevice(&device)); !st.ok()) return st;
  if (const Status st = device::status_from(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      !st.ok())
    return st;
  const auto ctas = unsigned(std::clamp<std::int64_t>(tiles / kTilesPerCta, 1, 2 * std::int64_t(sms)));
  cudaStream_t s = cudaStream_t(stream);
  if (const Status st = device::status_from(cudaMemsetAsync(counter, 0, sizeof(int), s)); !st.ok()) return st;
  early_release_copy_kernel<<<ctas, kCopyThreads, 0, s>>>(src, dst, count, counter, delay_ns);
  return device::last_launch_status();
}

KernelInfo early_release_copy_kernel_info() {
  return device::kernel_info(reinterpret_cast<const void*>(&early_release_copy_kernel), "selftest.early_release_copy",
                             false);
}

}  // namespace vsa::selftest
