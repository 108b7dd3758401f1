#pragma once
// Longest-first order of work items on the device: one CTA, a counting sort over count
// bins, no host sort and no sync. Used by the sm90a forward's order kernel, the sm90a
// backward's preprocess kernel and the common order_by_count kernel (sm100a backward).
// Items of equal count keep their natural order between chunks of kThreads ids, so
// neighbouring blocks of one head still run together; within a chunk their order is
// whatever the shared-memory atomics make it, so two sorts of the same counts may order
// ties differently (kernels/sm90a/notes/runs.md run 18: a per-CTA copy of this sort needs a stable variant).
#include <cstdint>

namespace vsa::device {

// Counts above kOrderBins - 1 share the top bin: they are long either way.
inline constexpr int kOrderBins = 4096;

__device__ __forceinline__ int order_bin(int count, int num_bins) { return min(max(count, 0), num_bins - 1); }

// Exclusive prefix sum over the CTA (kThreads threads, a multiple of 32, at most 1024).
template <int kThreads>
__device__ __forceinline__ int block_exclusive_sum(int x, int* warp_totals) {
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
    int w = lane < kThreads / 32 ? warp_totals[lane] : 0;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, w, o);
      if (lane >= o) w += y;
    }
    warp_totals[lane] = w;
  }
  __syncthreads();
  return inclusive - x + (warp > 0 ? warp_totals[warp - 1] : 0);
}

// Per-item list lengths, read from one array or from two laid end to end, so no copy joins
// them first. (The sm90a backward sorted kv and q items together this way until run 16;
// every caller now passes one array.)
struct ItemCounts {
  const std::int32_t* first;
  int n_first;
  const std::int32_t* second;  // items [n_first, n) read second[i - n_first]; may be null
  // Optional segments of `per_segment` items (e.g. one head's kv blocks): the key of item i
  // is its count plus (segments - 1 - i / per_segment) * key_stride, so with key_stride
  // above every count the sort keeps segments in natural order, longest first inside each.
  int per_segment = 0;
  int segments = 1;
  int key_stride = 0;
  __device__ int operator()(int i) const {
    const int count = i < n_first ? first[i] : second[i - n_first];
    return per_segment > 0 ? count + (segments - 1 - i / per_segment) * key_stride : count;
  }
};

// Shared memory of one sort: a bin per count value and the prefix sum's warp totals.
struct OrderScratch {
  int bins[kOrderBins];
  int warp_totals[32];
};

// One CTA of kThreads: counting sort of the items by descending count into `order`.
// Equal counts keep their natural order between chunks of kThreads items. With
// `order_counts`, position k also gets the count of item order[k], so a consumer of the
// order reads an item and its count in one round trip instead of two dependent ones.
template <int kThreads>
__device__ __forceinline__ void sort_longest_first(ItemCounts counts, int n_items, int max_count, std::int32_t* order,
                                                   OrderScratch& scratch, std::int32_t* order_counts = nullptr) {
  int* bins = scratch.bins;
  const int tid = threadIdx.x;
  const int num_bins = min(max(max_count, 0), kOrderBins - 1) + 1;
  for (int b = tid; b < num_bins; b += kThreads) bins[b] = 0;

  // The first kCachedChunks chunks keep their counts in registers between the histogram
  // and the scatter: one round trip to memory instead of two for up to 8 * kThreads items.
  constexpr int kCachedChunks = 8;
  int cached[kCachedChunks];
#pragma unroll
  for (int c = 0; c < kCachedChunks; ++c) {
    const int i = c * kThreads + tid;
    cached[c] = i < n_items ? counts(i) : 0;
  }
  __syncthreads();
#pragma unroll
  for (int c = 0; c < kCachedChunks; ++c)
    if (c * kThreads + tid < n_items) atomicAdd(&bins[order_bin(cached[c], num_bins)], 1);
  for (int i = kCachedChunks * kThreads + tid; i < n_items; i += kThreads)
    atomicAdd(&bins[order_bin(counts(i), num_bins)], 1);
  __syncthreads();

  // Each thread owns `per` consecutive bins in descending-count order and turns their
  // sizes into start offsets in place.
  const int per = (num_bins + kThreads - 1) / kThreads;
  int local = 0;
  for (int k = 0; k < per; ++k) {
    const int pos = tid * per + k;
    if (pos < num_bins) local += bins[num_bins - 1 - pos];
  }
  int start = block_exclusive_sum<kThreads>(local, scratch.warp_totals);
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

  // Scatter chunk by chunk so equal counts keep their natural order between chunks.
  // Chunks past the last item skip their barrier (the condition is uniform).
#pragma unroll
  for (int c = 0; c < kCachedChunks; ++c) {
    if (c * kThreads >= n_items) break;
    const int i = c * kThreads + tid;
    if (i < n_items) {
      const int pos = atomicAdd(&bins[order_bin(cached[c], num_bins)], 1);
      order[pos] = i;
      if (order_counts != nullptr) order_counts[pos] = cached[c];
    }
    __syncthreads();
  }
  for (int base = kCachedChunks * kThreads; base < n_items; base += kThreads) {
    const int i = base + tid;
    if (i < n_items) {
      const int count = counts(i);
      const int pos = atomicAdd(&bins[order_bin(count, num_bins)], 1);
      order[pos] = i;
      if (order_counts != nullptr) order_counts[pos] = count;
    }
    __syncthreads();
  }
}

}  // namespace vsa::device
