// Host q2k -> k2q inversion (reference/inversion.hpp): rows ascending, exactly the
// transpose of q2k, -1 past the counts, and malformed entries skipped the way the
// device inversion skips them.
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "inversion.hpp"
#include "test_problems.hpp"

namespace vsa {
namespace {

using Pairs = std::set<std::pair<std::int64_t, int>>;  // (b*H*nb + kv block, q block)

Pairs pairs_of_q2k(const test::HostProblem& p) {
  Pairs pairs;
  const Shape& s = p.shape;
  for (std::int64_t bh = 0; bh < s.bh(); ++bh)
    for (int qb = 0; qb < s.num_blocks; ++qb) {
      const std::int64_t row = bh * s.num_blocks + qb;
      for (int e = 0; e < p.q2k_num[std::size_t(row)]; ++e)
        pairs.insert({bh * s.num_blocks + p.q2k_idx[std::size_t(row * s.max_kv + e)], qb});
    }
  return pairs;
}

TEST(ReferenceInversion, RowsAscendingAndRoundTrip) {
  test::ProblemSpec spec;
  spec.shape = {2, 3, 11, 8, 4, 7, 1};
  spec.seed = 61;
  spec.zero_rows = 0.3;
  spec.shuffled = true;
  const test::HostProblem p = test::make_problem(spec);
  const auto map = ref::invert_q2k(p.shape, p.q2k_idx.data(), p.q2k_num.data());

  Pairs from_k2q;
  int longest = 0;
  for (std::int64_t krow = 0; krow < p.shape.count_elems(); ++krow) {
    const int n = map.k2q_num[std::size_t(krow)];
    longest = std::max(longest, n);
    ASSERT_LE(n, map.max_q);
    for (int e = 0; e < map.max_q; ++e) {
      const int q = map.k2q_idx[std::size_t(krow * map.max_q + e)];
      if (e >= n) {
        EXPECT_EQ(q, -1) << "past the count of k2q row " << krow;
        continue;
      }
      if (e > 0) {
        EXPECT_LT(map.k2q_idx[std::size_t(krow * map.max_q + e - 1)], q) << "k2q row " << krow;
      }
      from_k2q.insert({krow, q});
    }
  }
  EXPECT_EQ(map.max_q, std::max(longest, 1));
  const Pairs from_q2k = pairs_of_q2k(p);
  EXPECT_EQ(from_k2q, from_q2k);
  EXPECT_EQ(std::int64_t(from_k2q.size()), p.pairs());  // no duplicates were merged
}

TEST(ReferenceInversion, SkipsOutOfRangeIdsAndClipsCounts) {
  const Shape s{1, 1, 3, 8, 4, 2, 1};
  // q0: {1, 7 (out of range)}; q1: count 5 > max_kv, clipped to {2, 0}; q2: count -1.
  const std::vector<std::int32_t> q2k_idx = {1, 7, 2, 0, 1, 1};
  const std::vector<std::int32_t> q2k_num = {2, 5, -1};
  const auto map = ref::invert_q2k(s, q2k_idx.data(), q2k_num.data());
  EXPECT_EQ(map.max_q, 1);
  EXPECT_EQ(map.k2q_num, (std::vector<std::int32_t>{1, 1, 1}));
  EXPECT_EQ(map.k2q_idx, (std::vector<std::int32_t>{1, 0, 1}));
}

}  // namespace
}  // namespace vsa
