#include "inversion.hpp"

#include <algorithm>

namespace vsa::ref {
namespace {

// Same rules as the device inversion (vsa/device_ops.hpp), so the two agree bit for
// bit even on malformed input: counts are clipped to [0, max_kv] and ids outside
// [0, nb) are ignored instead of being written out of bounds.
template <typename F>
void for_each_valid_entry(const Shape& s, const std::int32_t* q2k_idx, const std::int32_t* q2k_num, F&& visit) {
  const int nb = s.num_blocks;
  for (std::int64_t bh = 0; bh < s.bh(); ++bh)
    for (int qb = 0; qb < nb; ++qb) {
      const std::int64_t row = bh * nb + qb;
      const int valid = std::clamp(q2k_num[row], 0, s.max_kv);
      for (int e = 0; e < valid; ++e) {
        const int kv = q2k_idx[row * s.max_kv + e];
        if (kv >= 0 && kv < nb) visit(bh * nb + kv, qb);
      }
    }
}

}  // namespace

InvertedMap invert_q2k(const Shape& s, const std::int32_t* q2k_idx, const std::int32_t* q2k_num) {
  InvertedMap map;
  map.k2q_num.assign(std::size_t(s.count_elems()), 0);
  // Counting pass: row lengths, so the output can be sized exactly.
  for_each_valid_entry(s, q2k_idx, q2k_num, [&](std::int64_t krow, int) { ++map.k2q_num[std::size_t(krow)]; });
  map.max_q = 1;
  for (const std::int32_t n : map.k2q_num) map.max_q = std::max(map.max_q, int(n));
  map.k2q_idx.assign(std::size_t(s.count_elems()) * map.max_q, -1);
  // Fill pass in ascending q: each k2q row comes out sorted without a sort.
  std::vector<std::int32_t> fill(std::size_t(s.count_elems()), 0);
  for_each_valid_entry(s, q2k_idx, q2k_num, [&](std::int64_t krow, int qb) {
    map.k2q_idx[std::size_t(krow * map.max_q + fill[std::size_t(krow)]++)] = qb;
  });
  return map;
}

}  // namespace vsa::ref
