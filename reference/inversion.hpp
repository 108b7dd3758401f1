#pragma once
// Deterministic q2k -> k2q inversion on the host (docs/spec.md, "Index inversion").
// Each k2q row lists the q blocks that selected that kv block, in ascending q
// order, so backward runs are comparable bit for bit. The GPU version in
// kernels/common produces the same arrays.
#include <cstdint>
#include <vector>

#include "vsa/shape.hpp"

namespace vsa::ref {

struct InvertedMap {
  int max_q = 0;                      // longest k2q row (>= 1 so arrays are never empty)
  std::vector<std::int32_t> k2q_idx;  // [B, H, nb, max_q], -1 past k2q_num
  std::vector<std::int32_t> k2q_num;  // [B, H, nb]
};

// Reads shape.batch/heads/num_blocks/max_kv; ignores shape.max_q. Like the device
// version, clips counts to [0, max_kv] and skips ids outside [0, nb).
[[nodiscard]] InvertedMap invert_q2k(const Shape& shape, const std::int32_t* q2k_idx, const std::int32_t* q2k_num);

}  // namespace vsa::ref
