#pragma once
// Backward test cases shared by the fast-kernel families' device tests (sm90a, sm100a-blk64):
// a ProblemSpec plus how its q2k rows are laid out, and the Problem it builds.
#include <cstddef>
#include <cstdint>

#include "portable_runs.hpp"

namespace vsa::test {

enum class Rows {
  random,          // ragged counts, zero rows, shuffled ids, garbage past the count
  minimal_1_0,     // nb = 2: q block 0 selects kv block 1 only, q block 1 nothing (kv block 0 unselected)
  dense_reversed,  // every q block selects every kv block, descending (k2q rows longer than the ring)
};

struct Case {
  ProblemSpec spec;
  Rows rows = Rows::random;
};

inline Problem make_case(const Case& c) {
  Problem p = make_problem(c.spec);
  const Shape& s = p.shape;
  if (c.rows == Rows::minimal_1_0) {
    p.q2k_num = {1, 0};
    p.q2k_idx = {1, 0};
  } else if (c.rows == Rows::dense_reversed) {
    for (std::int64_t row = 0; row < s.count_elems(); ++row) {
      p.q2k_num[std::size_t(row)] = s.num_blocks;
      for (int e = 0; e < s.num_blocks; ++e) p.q2k_idx[std::size_t(row * s.max_kv + e)] = s.num_blocks - 1 - e;
    }
  }
  return p;
}

}  // namespace vsa::test
