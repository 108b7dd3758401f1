// The floor driver's pairing by list overlap (tools/kv_pair_lists.hpp): which rows pair, the
// union each pair streams, and the inputs it refuses.
#include "tools/kv_pair_lists.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vsa::tools {
namespace {

// Rows as lists, padded to max_kv with -1 (never read: counts bound them).
struct Rows {
  std::vector<std::int32_t> idx, num;
};
Rows rows_of(const std::vector<std::vector<std::int32_t>>& lists, int max_kv) {
  Rows r;
  for (const auto& l : lists) {
    r.num.push_back(std::int32_t(l.size()));
    for (int e = 0; e < max_kv; ++e) r.idx.push_back(e < int(l.size()) ? l[std::size_t(e)] : -1);
  }
  return r;
}
std::vector<std::int32_t> union_of(const PairedLists& p, int item) {
  const auto first = p.idx.begin() + std::ptrdiff_t(item) * p.max_kv;
  return {first, first + p.num[std::size_t(item)]};
}

// Row 0 overlaps row 2 most (two shared), not its neighbour row 1 (none): with a window of 16 it
// pairs with row 2, and rows 1 and 3 pair next; the union is row 0's list, then row 2's extras.
TEST(PairByOverlap, PairsTheMostOverlappingRowInTheWindow) {
  const Rows r = rows_of({{0, 1, 2}, {5, 6, 7}, {1, 2, 3}, {6, 7, 4}}, 3);
  const PairedLists p = pair_by_overlap(r.idx, r.num, 1, 4, 3, 16, 16);
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.items, 2);
  EXPECT_EQ(p.items_per_head, 2);
  EXPECT_EQ(p.max_kv, 6);
  EXPECT_EQ(union_of(p, 0), (std::vector<std::int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(union_of(p, 1), (std::vector<std::int32_t>{5, 6, 7, 4}));
}

// A window of 1 pairs neighbours whatever they share; no blocks shared gives the two lists whole.
TEST(PairByOverlap, WindowOnePairsNeighbours) {
  const Rows r = rows_of({{0, 1, 2}, {5, 6, 7}, {1, 2, 3}, {6, 7, 4}}, 3);
  const PairedLists p = pair_by_overlap(r.idx, r.num, 1, 4, 3, 16, 1);
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(union_of(p, 0), (std::vector<std::int32_t>{0, 1, 2, 5, 6, 7}));
  EXPECT_EQ(union_of(p, 1), (std::vector<std::int32_t>{1, 2, 3, 6, 7, 4}));
}

// Ties go to the earliest row; pairs never cross heads (head 1's rows pair among themselves even
// where head 0's would share more); counts past max_kv are clamped and empty rows pair too.
TEST(PairByOverlap, TiesHeadsClampsAndEmptyRows) {
  Rows r = rows_of({{0, 1}, {0, 9}, {1, 8}, {}, {0, 1}, {2, 3}, {4, 5}, {0, 1}}, 2);
  r.num[0] = 5;  // clamped to 2
  const PairedLists p = pair_by_overlap(r.idx, r.num, 2, 4, 2, 16, 16);
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.items, 4);
  EXPECT_EQ(union_of(p, 0), (std::vector<std::int32_t>{0, 1, 9}));  // rows 0, 1: a tie with row 2, earliest
  EXPECT_EQ(union_of(p, 1), (std::vector<std::int32_t>{1, 8}));     // rows 2, 3 (empty)
  EXPECT_EQ(union_of(p, 2), (std::vector<std::int32_t>{0, 1}));     // head 1: rows 4 and 7 share both
  EXPECT_EQ(union_of(p, 3), (std::vector<std::int32_t>{2, 3, 4, 5}));
}

// Pairs load no more blocks than the rows did, and no fewer than the longer row of each pair.
TEST(PairByOverlap, UnionBoundsOnLongerRows) {
  std::vector<std::vector<std::int32_t>> lists;
  for (int i = 0; i < 32; ++i) lists.push_back({(i * 7) % 13, (i * 7 + 1) % 13, (i * 7 + 2) % 13});
  const Rows r = rows_of(lists, 3);
  const PairedLists p = pair_by_overlap(r.idx, r.num, 2, 16, 3, 16, 16);
  ASSERT_TRUE(p.error.empty()) << p.error;
  int loads = 0;
  for (int i = 0; i < p.items; ++i) {
    loads += p.num[std::size_t(i)];
    EXPECT_GE(p.num[std::size_t(i)], 3);
    EXPECT_LE(p.num[std::size_t(i)], 6);
  }
  EXPECT_LT(loads, 32 * 3);  // 13 distinct blocks over 32 rows: some pair must share
}

// The first row's marks are cleared after each pair: row 3 (block 0) must not count as shared
// with row 2 because row 0 selected block 0.
TEST(PairByOverlap, EachPairStartsFromCleanMarks) {
  const Rows r = rows_of({{0}, {1}, {2}, {0}}, 1);
  const PairedLists p = pair_by_overlap(r.idx, r.num, 1, 4, 1, 16, 1);
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(union_of(p, 1), (std::vector<std::int32_t>{2, 0}));
}

TEST(PairByOverlap, RefusesOddRowsAndMismatchedArrays) {
  const Rows r = rows_of({{0}, {1}, {2}}, 1);
  EXPECT_NE(pair_by_overlap(r.idx, r.num, 1, 3, 1, 16, 16).error, "");
  EXPECT_NE(pair_by_overlap(r.idx, r.num, 1, 4, 1, 16, 16).error, "");
  EXPECT_NE(pair_by_overlap(r.idx, r.num, 1, 2, 1, 16, 0).error, "");
  const Rows negative = rows_of({{0}, {-3}}, 1);
  EXPECT_NE(pair_by_overlap(negative.idx, negative.num, 1, 2, 1, 16, 16).error.find("row 1 selects block -3"),
            std::string::npos);
  const Rows past = rows_of({{0}, {16}}, 1);
  EXPECT_NE(pair_by_overlap(past.idx, past.num, 1, 2, 1, 16, 16).error.find("row 1 selects block 16, outside"),
            std::string::npos);
  const Rows twice = rows_of({{3, 3}, {1, 2}}, 2);
  EXPECT_NE(pair_by_overlap(twice.idx, twice.num, 1, 2, 2, 16, 16).error.find("row 0 selects block 3 twice"),
            std::string::npos);
  const Rows short_idx = rows_of({{0}, {1}}, 1);
  std::vector<std::int32_t> idx = short_idx.idx;
  idx.pop_back();
  EXPECT_NE(pair_by_overlap(idx, short_idx.num, 1, 2, 1, 16, 16).error, "");
}

}  // namespace
}  // namespace vsa::tools
