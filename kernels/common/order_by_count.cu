// Longest-first work order (order_by_count.hpp): one CTA, a counting sort over count bins.
#include <cuda_runtime.h>

#include <climits>

#include "cuda_status.hpp"
#include "kernel_info.hpp"
#include "longest_first_sort.cuh"
#include "order_by_count.hpp"

namespace vsa::device {
namespace {

constexpr int kOrderThreads = 1024;

__global__ void __launch_bounds__(kOrderThreads)
    order_by_count_kernel(const std::int32_t* __restrict__ counts, int n_items, int max_count,
                          std::int32_t* __restrict__ order) {
  __shared__ OrderScratch scratch;
  sort_longest_first<kOrderThreads>(ItemCounts{counts, n_items, nullptr}, n_items, max_count, order, scratch);
}

}  // namespace

Status order_by_count_desc(const std::int32_t* counts, std::int64_t n_items, int max_count, std::int32_t* order,
                           void* stream) {
  if (n_items <= 0) return Status::success();
  if (n_items > INT_MAX) return Status::failure("order_by_count: more than 2^31 - 1 items");
  order_by_count_kernel<<<1, kOrderThreads, 0, cudaStream_t(stream)>>>(counts, int(n_items), max_count, order);
  return last_launch_status();
}

KernelInfo order_by_count_kernel_info() {
  return kernel_info(reinterpret_cast<const void*>(&order_by_count_kernel), "common.order_by_count", false);
}

}  // namespace vsa::device
