// The union order of the forward's pair tiles (kernels/sm90a/fwd_pair_order.hpp). The
// producer streams the union by cycles and each consumer walks its own entries by
// arithmetic; if the two disagreed, a consumer would wait on a stage the producer never
// fills for it (a hang on the device), and if one slot's entries drifted more than the ring
// depth apart, all roles would wait forever. Both are checked here for every small count.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "kernels/sm90a/fwd_pair_order.hpp"
#include "kernels/sm90a/tile_config.hpp"

namespace vsa::sm90a::fwd {
namespace {

// The producer's side: owner of each union position, cycle by cycle (0, 1: one slot; 2: both).
std::vector<int> stream_owners(const PairCounts& c) {
  std::vector<int> owners;
  for (int r = 0; r < c.shared || r < c.only[0] || r < c.only[1]; ++r) {
    if (r < c.only[0]) owners.push_back(0);
    if (r < c.shared) owners.push_back(2);
    if (r < c.only[1]) owners.push_back(1);
  }
  return owners;
}

// Slot 0 reaches each shared block one entry later in its loop than slot 1 does.
TEST(Sm90aPairOrder, SlotsReachASharedBlockAtDifferentSteps) {
  const PairCounts c{4, {4, 4}};
  PairWalk a = PairWalk::start(c, 0), b = PairWalk::start(c, 1);
  for (int k = 0; k < 8; ++k, a.advance(), b.advance()) {
    EXPECT_NE(a.position(), b.position()) << "step " << k;
    EXPECT_EQ(a.on_shared(), k % 2 == 1);
    EXPECT_EQ(b.on_shared(), k % 2 == 0);
  }
}

std::vector<int> walk_positions(const PairCounts& c, int slot) {
  std::vector<int> at;
  PairWalk w = PairWalk::start(c, slot);
  for (int k = 0; k < pair_slot_count(c, slot); ++k, w.advance()) at.push_back(w.position());
  return at;
}

TEST(Sm90aPairOrder, WalksMatchTheStreamForEveryCount) {
  for (int s = 0; s <= 9; ++s)
    for (int a = 0; a <= 9; ++a)
      for (int b = 0; b <= 9; ++b) {
        const PairCounts c{s, {a, b}};
        const std::vector<int> owners = stream_owners(c);
        ASSERT_EQ(int(owners.size()), pair_union_size(c));
        for (int slot = 0; slot < 2; ++slot) {
          SCOPED_TRACE(testing::Message() << "shared " << s << " only " << a << "/" << b << " slot " << slot);
          const std::vector<int> at = walk_positions(c, slot);
          std::vector<int> expected;
          for (int u = 0; u < int(owners.size()); ++u)
            if (owners[u] == 2 || owners[u] == slot) expected.push_back(u);
          EXPECT_EQ(at, expected);
        }
      }
}

// The deadlock-freedom condition: a consumer holds one V stage while it waits for its next
// entry, so that entry must land in a different stage of the ring of both slots' stages.
TEST(Sm90aPairOrder, ConsecutiveEntriesOfASlotStayWithinTheRing) {
  constexpr int kRingStages = 2 * TileConfig::kStages;
  static_assert(kMaxPairGap < kRingStages, "a held stage must not be the next one to fill");
  for (int s = 0; s <= 12; ++s)
    for (int a = 0; a <= 12; ++a)
      for (int b = 0; b <= 12; ++b)
        for (int slot = 0; slot < 2; ++slot) {
          const std::vector<int> at = walk_positions({s, {a, b}}, slot);
          for (std::size_t k = 1; k < at.size(); ++k)
            ASSERT_LE(at[k] - at[k - 1], kMaxPairGap) << "shared " << s << " only " << a << "/" << b;
        }
}

TEST(Sm90aPairOrder, SharedBlocksAreLoadedOnce) {
  // 16 blocks each, 5 in common: 27 loads instead of 32.
  const PairCounts c{5, {11, 11}};
  EXPECT_EQ(pair_union_size(c), 27);
  EXPECT_EQ(pair_slot_count(c, 0), 16);
  EXPECT_EQ(pair_slot_count(c, 1), 16);
  const std::vector<int> a = walk_positions(c, 0), b = walk_positions(c, 1);
  std::set<int> both;
  for (int u : a)
    if (std::find(b.begin(), b.end(), u) != b.end()) both.insert(u);
  EXPECT_EQ(both, (std::set<int>{1, 4, 7, 10, 13}));
}

}  // namespace
}  // namespace vsa::sm90a::fwd
