// Sparsity patterns: counts, ranges, determinism, video geometry.
#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <stdexcept>

#include "model/sparsity.hpp"

namespace vsa {
namespace {

Shape shape(int nb, int bh = 2) { return Shape{1, bh, nb, 64, 64, 1, 1}; }

// Fuzz review of 2026-12-07: each row's subset kept the capacity of nb after resize(k), and a case
// keeps one per row until it packs them: nb^2 ints (6.4 GB at S = 2,560,000, 16 ids a row).
TEST(Sparsity, ARowSubsetHoldsOnlyItsIds) {
  const std::vector<int> ids = random_subset(40000, 16, 7, 3);
  EXPECT_EQ(ids.size(), 16u);
  EXPECT_LE(ids.capacity(), 16u);
  EXPECT_EQ(std::set<int>(ids.begin(), ids.end()).size(), 16u);
  for (const int id : ids) EXPECT_TRUE(id >= 0 && id < 40000) << id;
  EXPECT_EQ(ids, random_subset(40000, 16, 7, 3));
}

TEST(Sparsity, TopkSelectsKDistinctIdsPerRow) {
  PatternSpec p;
  p.density = 0.25;
  const BlockMap m = make_block_map(shape(16), p, VbsSpec{}, 3);
  EXPECT_EQ(m.shape.max_kv, 4);
  EXPECT_EQ(m.pairs, 2 * 16 * 4);
  for (std::size_t r = 0; r < m.q2k_num.size(); ++r) {
    std::set<int> ids(m.q2k_idx.begin() + std::ptrdiff_t(r * 4), m.q2k_idx.begin() + std::ptrdiff_t(r * 4 + 4));
    EXPECT_EQ(ids.size(), 4u);
    for (int id : ids) EXPECT_TRUE(id >= 0 && id < 16);
  }
}

TEST(Sparsity, SameSeedSameMapOtherSeedOtherMap) {
  PatternSpec p;
  p.kind = "ragged";
  const BlockMap a = make_block_map(shape(32), p, VbsSpec{}, 9), b = make_block_map(shape(32), p, VbsSpec{}, 9),
                 c = make_block_map(shape(32), p, VbsSpec{}, 10);
  EXPECT_EQ(a.q2k_idx, b.q2k_idx);
  EXPECT_NE(a.q2k_idx, c.q2k_idx);
}

TEST(Sparsity, RaggedAndZeroRowsGiveDifferingCountsIncludingZero) {
  PatternSpec p;
  p.kind = "ragged";
  p.zero_rows = 0.3;
  const BlockMap m = make_block_map(shape(64, 4), p, VbsSpec{}, 1);
  std::set<int> counts(m.q2k_num.begin(), m.q2k_num.end());
  EXPECT_TRUE(counts.count(0));
  EXPECT_GT(counts.size(), 4u);
}

// The padding after a row's count holds real block ids the row did not select (docs/spec.md),
// so a kernel reading one entry past the count attends to a block it should not (review of
// 2026-12-06: with -1 there, an off-by-one loop bound in the sm100a forward passed).
TEST(Sparsity, PaddingHoldsValidBlocksTheRowDidNotSelect) {
  PatternSpec p;
  p.kind = "ragged";
  p.zero_rows = 0.3;
  const BlockMap m = make_block_map(shape(24, 3), p, VbsSpec{}, 4);
  const std::size_t width = std::size_t(m.shape.max_kv);
  int padded = 0;
  for (std::size_t r = 0; r < m.q2k_num.size(); ++r) {
    const auto row = m.q2k_idx.begin() + std::ptrdiff_t(r * width);
    const std::set<int> chosen(row, row + m.q2k_num[r]);
    for (std::size_t j = std::size_t(m.q2k_num[r]); j < width; ++j, ++padded) {
      const int id = *(row + std::ptrdiff_t(j));
      EXPECT_TRUE(id >= 0 && id < 24) << "row " << r << " entry " << j << ": " << id;
      EXPECT_FALSE(chosen.count(id)) << "row " << r << " pads with its own block " << id;
    }
  }
  EXPECT_GT(padded, 0);
}

TEST(Sparsity, K2qIsTheAscendingTranspose) {
  PatternSpec p;
  p.sorted = false;
  const BlockMap m = make_block_map(shape(20), p, VbsSpec{}, 5);
  std::int64_t total = 0;
  for (std::size_t r = 0; r < m.k2q_num.size(); ++r) {
    total += m.k2q_num[r];
    for (int e = 1; e < m.k2q_num[r]; ++e)
      EXPECT_LT(m.k2q_idx[r * std::size_t(m.shape.max_q) + std::size_t(e) - 1],
                m.k2q_idx[r * std::size_t(m.shape.max_q) + std::size_t(e)]);
  }
  EXPECT_EQ(total, m.pairs);
}

TEST(Sparsity, VideoTailPaddingMatchesTheLatent) {
  PatternSpec p;
  p.kind = "video";
  p.latent = {5, 8, 6};  // cubes: 2 x 2 x 2
  VbsSpec v;
  v.kind = "video-tail";
  ASSERT_EQ(video_num_blocks(p.latent), 8);
  const BlockMap m = make_block_map(Shape{1, 1, 8, 64, 64, 1, 1}, p, v, 1);
  // Cube (t=1, h=0, w=1): 1 x 4 x 2 valid tokens.
  EXPECT_EQ(m.vbs[5], 1 * 4 * 2);
  EXPECT_EQ(m.vbs[0], 64);
  // Window 1 in a 2x2x2 grid: every cube sees all 8.
  EXPECT_EQ(m.q2k_num[0], 8);
}

// Fuzz review of 2026-12-07: a latent whose cube count passes int64 wrapped to a small count and
// was accepted (block ids in the millions for 2 blocks); a window near INT_MAX overflowed and its
// rows selected nothing (a case that checked nothing, and passed).
TEST(Sparsity, VideoSizesNearTheirLimitsNeitherWrapNorEmptyRows) {
  EXPECT_EQ(video_num_blocks({30495404, 9837384, 15741484}), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(video_num_blocks({2147483647, 4, 4}), 536870912);
  PatternSpec p;
  p.kind = "video";
  p.latent = {30495404, 9837384, 15741484};
  EXPECT_THROW((void)make_block_map(Shape{1, 1, 2, 64, 64, 1, 1}, p, VbsSpec{}, 1), std::invalid_argument);
  p.latent = {8, 8, 8};  // 2 x 2 x 2 cubes
  p.window = {2147483647, 2147483647, 2147483647};
  const BlockMap m = make_block_map(Shape{1, 1, 8, 64, 64, 1, 1}, p, VbsSpec{}, 1);
  for (int qb = 0; qb < 8; ++qb) EXPECT_EQ(m.q2k_num[std::size_t(qb)], 8) << qb;
}

TEST(Sparsity, RandomVbsStaysInRange) {
  VbsSpec v;
  v.kind = "random";
  const BlockMap m = make_block_map(shape(50), PatternSpec{}, v, 2);
  for (int x : m.vbs) EXPECT_TRUE(x >= 1 && x <= 64);
}

}  // namespace
}  // namespace vsa
