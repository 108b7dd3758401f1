#pragma once
// Work order for non-persistent kernels whose work items have very different lengths:
// item ids sorted by their count, longest first, on the device (no host sort, no sync).
// A grid launched over the order then starts its long items first and ends on the short
// ones. Plain C++ declarations; the kernel is in order_by_count.cu.
#include <cstdint>

#include "vsa/backend.hpp"

namespace vsa::device {

// order[0 .. n_items) = the item ids 0 .. n_items - 1 by descending counts[id] (counts
// clamped to [0, max_count]; counts above 4095 share one bin). Items of equal count keep
// their natural order between chunks of 1024 ids. One CTA, stream-ordered on `stream`.
Status order_by_count_desc(const std::int32_t* counts, std::int64_t n_items, int max_count, std::int32_t* order,
                           void* stream);

// Resources of the kernel above, for a backend's kernels() list.
[[nodiscard]] KernelInfo order_by_count_kernel_info();

}  // namespace vsa::device
