#include "model/case_footprint.hpp"

#include <algorithm>
#include <cmath>

#include <unistd.h>

namespace vsa {

namespace {

// Upper bound of kv blocks per q block, from the pattern alone.
double kv_per_row(const CaseSpec& spec) {
  const double nb = spec.shape.num_blocks;
  const PatternSpec& p = spec.pattern;
  if (p.kind == "topk") return std::min(nb, std::max(1.0, std::round(p.density * nb)));
  if (p.kind == "ragged") return std::min(nb, 2 * std::max(1.0, std::round(p.density * nb)));
  if (p.kind == "explicit") {
    std::size_t longest = 0;
    for (const auto& row : p.rows) longest = std::max(longest, row.size());
    return double(longest);
  }
  return nb;  // dense, video: up to every block
}

}  // namespace

CaseFootprint estimate_footprint(const CaseSpec& spec) {
  const Shape& s = spec.shape;
  const double heads = double(s.batch) * s.heads;
  const double elems = heads * double(s.num_blocks) * s.block * s.head_dim;  // one [B, H, S, D] tensor
  const double rows = heads * double(s.num_blocks) * s.block;                // lse entries
  // q2k and k2q index lists (int32) of every head, and their counts.
  const double index_bytes = heads * s.num_blocks * (2 * kv_per_row(spec) + 2) * 4;
  const double bf16 = 2, fp32 = 4;
  CaseFootprint f;
  // q, k, v, dO in bf16; reference o, dq, dk, dv in fp32; one backend's o, dq, dk, dv in bf16; lse twice.
  f.host_bytes = elems * (4 * bf16 + 4 * fp32 + 4 * bf16) + 2 * rows * fp32 + index_bytes;
  f.device_bytes = elems * (4 * bf16 + 4 * bf16) + rows * fp32 + index_bytes;
  f.validation_bytes = double(s.num_blocks) * (2 * kv_per_row(spec) + 2) * 4;
  return f;
}

double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 0;
}

}  // namespace vsa
