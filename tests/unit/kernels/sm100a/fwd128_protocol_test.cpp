// The sm100a-blk128 forward protocol (kernels/sm100a/fwd_protocol.hpp over Blk128): the
// blk64 forward's scripts and barriers with a 128-key TMEM map. The same checker must pass it
// for 0..6 kv steps and must reject it with S[1] planted over O's columns.
#include <gtest/gtest.h>

#include "kernels/sm100a/fwd_protocol.hpp"
#include "kernels/sm100a/protocol_check.hpp"
#include "protocol_table_checks.hpp"

namespace vsa::sm100a {
namespace {

constexpr int kMaxSteps = 6;
constexpr const protocol::Protocol& kBlk128 = fwd::kProtocol<fwd::Blk128>;

TEST(Sm100aFwd128Protocol, TablesPassEveryRule) {
  const auto result = protocol::check_protocol_up_to(kBlk128, kMaxSteps);
  EXPECT_TRUE(result.ok()) << result.text();
  EXPECT_GT(result.events, 0);
}

TEST(Sm100aFwd128Protocol, TmemRangesFitAndDoNotOverlap) {
  const auto& p = kBlk128;
  test::expect_tmem_ranges_fit_and_disjoint(p);
  for (int i = 0; i < p.tmem_count; ++i) EXPECT_EQ(p.tmem[i].columns, 128) << p.tmem[i].name;
}

TEST(Sm100aFwd128Protocol, PlantedTmemOverlapIsARace) {
  static constexpr protocol::TmemRange overlap[] = {
      {"S[0]", 0, 128, ""}, {"S[1]", 192, 128, "planted: columns 256..319 are also O's"}, {"O", 256, 128, ""}};
  protocol::Protocol p = kBlk128;
  p.tmem = overlap;
  const auto result = protocol::check_protocol_up_to(p, kMaxSteps);
  EXPECT_TRUE(result.has("race")) << result.text();
  EXPECT_TRUE(result.has("table")) << result.text();
}

}  // namespace
}  // namespace vsa::sm100a
