// Longest-first work order (order_by_count.hpp): one CTA, a counting sort over count bins.
#include <cuda_runtime.h>

#include "cuda_status.hpp"
#include "kernel_info.hpp"
#include "order_by_count.hpp"

namespace vsa::device {
namespace {

constexpr int kOrderThreads = 1024;
constexpr int kOrderBins = 4096;

__device__ __forceinline__ int bin_of(std::int32_t count, int num_bins) {
  return min(max(int(count), 0), num_bins - 1);
}

// Exclusive prefix sum of x over the CTA (kOrderThreads threads).
__device__ __forceinline__ int cta_exclusive_sum(int x, int* warp_totals) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int inclusive = x;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, inclusive, o);
    if (lane >= o) inclusive += y;
  }
  if (lane == 31) warp_totals[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    int total = warp_totals[lane];
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, total, o);
      if (lane >= o) total += y;
    }
    warp_totals[lane] = total;
  }
  __syncthreads();
  return inclusive - x + (warp > 0 ? warp_totals[warp - 1] : 0);
}

__global__ void __launch_bounds__(kOrderThreads)
    order_by_count_kernel(const std::int32_t* __restrict__ counts, std::int64_t n_items, int max_count,
                          std::int32_t* __restrict__ order) {
  __shared__ int bins[kOrderBins];
  __shared__ int warp_totals[32];
  const int tid = int(threadIdx.x);
  const int num_bins = min(max(max_count, 0), kOrderBins - 1) + 1;
  for (int b = tid; b < num_bins; b += kOrderThreads) bins[b] = 0;
  __syncthreads();
  for (std::int64_t i = tid; i < n_items; i += kOrderThreads) atomicAdd(&bins[bin_of(counts[i], num_bins)], 1);
  __syncthreads();

  // Thread t owns `per` consecutive bins in descending-count order and turns their sizes
  // into start offsets.
  const int per = (num_bins + kOrderThreads - 1) / kOrderThreads;
  int local = 0;
  for (int k = 0; k < per; ++k) {
    const int pos = tid * per + k;
    if (pos < num_bins) local += bins[num_bins - 1 - pos];
  }
  int start = cta_exclusive_sum(local, warp_totals);
  for (int k = 0; k < per; ++k) {
    const int pos = tid * per + k;
    if (pos < num_bins) {
      const int b = num_bins - 1 - pos;
      const int size = bins[b];
      bins[b] = start;
      start += size;
    }
  }
  __syncthreads();

  // Scatter one chunk of ids at a time, so equal counts keep their order between chunks.
  for (std::int64_t base = 0; base < n_items; base += kOrderThreads) {
    const std::int64_t i = base + tid;
    if (i < n_items) order[atomicAdd(&bins[bin_of(counts[i], num_bins)], 1)] = std::int32_t(i);
    __syncthreads();
  }
}

}  // namespace

Status order_by_count_desc(const std::int32_t* counts, std::int64_t n_items, int max_count, std::int32_t* order,
                           void* stream) {
  if (n_items <= 0) return Status::success();
  order_by_count_kernel<<<1, kOrderThreads, 0, cudaStream_t(stream)>>>(counts, n_items, max_count, order);
  return last_launch_status();
}

KernelInfo order_by_count_kernel_info() {
  return kernel_info(reinterpret_cast<const void*>(&order_by_count_kernel), "common.order_by_count", false);
}

}  // namespace vsa::device
