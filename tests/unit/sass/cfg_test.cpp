// The SASS control-flow graph (app/sass/cfg.hpp): blocks and edges for the branch
// forms cuobjdump prints (sm_90a / sm_100a, CUDA 13).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sass/cfg.hpp"
#include "sass_lines.hpp"

namespace vsa::sass {
namespace {

ControlFlowGraph cfg_of(const std::string& body) {
  const auto listing = parse_listing("\tcode for sm_100a\n\t\tFunction : _Z1kv\n" + body);
  return build_cfg(listing.kernels.at(0));
}

std::vector<std::size_t> succ(const ControlFlowGraph& cfg, std::size_t block) {
  auto s = cfg.blocks.at(block).successors;
  std::sort(s.begin(), s.end());
  return s;
}

using test::sass_line;

TEST(SassCfg, ConditionalAndUnconditionalBranches) {
  // 0: @P0 BRA 0x40 | 1: NOP; BRA 0x50 | 2: 0x40 NOP | 3: 0x50 EXIT
  const auto cfg = cfg_of(sass_line(0x10, "@P0 BRA 0x40") + sass_line(0x20, "NOP") + sass_line(0x30, "BRA 0x50") +
                          sass_line(0x40, "NOP") + sass_line(0x50, "EXIT"));
  ASSERT_EQ(cfg.blocks.size(), 4U);
  EXPECT_EQ(succ(cfg, 0), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(succ(cfg, 1), (std::vector<std::size_t>{3}));
  EXPECT_EQ(succ(cfg, 2), (std::vector<std::size_t>{3}));
  EXPECT_TRUE(succ(cfg, 3).empty());
  EXPECT_FALSE(cfg.has_indirect_branch);
}

TEST(SassCfg, PredicateOperandsMakeABranchConditional) {
  for (const char* branch : {"BRA.U UP0, 0x40", "BRA.U !UP0, 0x40", "BRA.DIV UR4, 0x40", "@!P1 BRA 0x40"}) {
    const auto cfg = cfg_of(sass_line(0x10, branch) + sass_line(0x20, "NOP") + sass_line(0x40, "EXIT"));
    ASSERT_EQ(cfg.blocks.size(), 3U) << branch;
    EXPECT_EQ(succ(cfg, 0), (std::vector<std::size_t>{1, 2})) << branch;
  }
  const auto always = cfg_of(sass_line(0x10, "BRA 0x40") + sass_line(0x20, "NOP") + sass_line(0x40, "EXIT"));
  EXPECT_EQ(succ(always, 0), (std::vector<std::size_t>{2}));
}

TEST(SassCfg, LoopsHaveBackEdges) {
  const auto cfg = cfg_of(sass_line(0x10, "NOP") + sass_line(0x20, "NANOSLEEP 0x40") + sass_line(0x30, "@P0 BRA 0x20") +
                          sass_line(0x40, "EXIT"));
  ASSERT_EQ(cfg.blocks.size(), 3U);
  EXPECT_EQ(succ(cfg, 1), (std::vector<std::size_t>{1, 2}));  // itself and the exit
}

TEST(SassCfg, ExitAndTrap) {
  const auto cfg = cfg_of(sass_line(0x10, "@P0 EXIT") + sass_line(0x20, "BPT.TRAP 0x1") + sass_line(0x30, "NOP"));
  ASSERT_EQ(cfg.blocks.size(), 3U);
  EXPECT_EQ(succ(cfg, 0), (std::vector<std::size_t>{1}));
  EXPECT_TRUE(succ(cfg, 1).empty());
}

TEST(SassCfg, CallsReturnToTheirReturnPoints) {
  // 0: CALL 0x60 | 1: NOP; CALL 0x60 | 2: EXIT | 3: 0x60 NOP; RET
  const auto cfg =
      cfg_of(sass_line(0x10, "CALL.REL.NOINC 0x60") + sass_line(0x20, "NOP") + sass_line(0x30, "CALL.REL.NOINC 0x60") +
             sass_line(0x40, "EXIT") + sass_line(0x60, "NOP") + sass_line(0x70, "RET.REL.NODEC R20 0x0"));
  ASSERT_EQ(cfg.blocks.size(), 4U);
  EXPECT_EQ(succ(cfg, 0), (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(succ(cfg, 1), (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(succ(cfg, 3), (std::vector<std::size_t>{1, 2}));
}

TEST(SassCfg, IndirectBranchesGoToOrphanBlocks) {
  // BRX through a jump table: the blocks nothing else reaches (after the EXITs) are its targets.
  const auto cfg = cfg_of(sass_line(0x10, "BRX R6 -0x20") + sass_line(0x20, "EXIT") + sass_line(0x30, "NOP") +
                          sass_line(0x40, "BRA 0x60") + sass_line(0x50, "EXIT") + sass_line(0x60, "EXIT"));
  EXPECT_TRUE(cfg.has_indirect_branch);
  ASSERT_EQ(cfg.blocks.size(), 5U);                              // [10] [20] [30,40] [50] [60]
  EXPECT_EQ(succ(cfg, 0), (std::vector<std::size_t>{1, 2, 3}));  // 0x60 is reached by the BRA
}

}  // namespace
}  // namespace vsa::sass
