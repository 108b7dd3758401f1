// arrive-before-wait on instruction sequences copied from real cuobjdump output of
// the fixtures (tests/fixtures/*.cu, CUDA 13), plus variants that move a wait or
// insert a DEPBAR / branch to pin down the scoreboard model.
#include <gtest/gtest.h>

#include <string>

#include "lint/checks.hpp"
#include "sass/listing.hpp"

namespace vsa::lint {
namespace {

// One instruction in cuobjdump's two-line format.
std::string sass(const char* offset, const char* text, const char* low, const char* high) {
  return std::string("        /*") + offset + "*/                   " + text + " ;    /* " + low +
         " */\n                                                      /* " + high + " */\n";
}

std::vector<Finding> check(const std::string& body, const ArriveRule& rule = default_rule_table().arrive,
                           const std::string& kernel = "_Z6kernelv") {
  const auto listing = sass::parse_listing("\tcode for sm_90a\n\t\tFunction : " + kernel + "\n" + body);
  std::vector<Finding> findings;
  check_arrive_before_wait(listing.kernels.at(0), rule, findings);
  return findings;
}

// lint_shared_arrive.cu, planted_shared_arrive on sm_90a
const std::string kLds = sass("01d0", "LDS R7, [R4+UR6]", "0x0000000604077984", "0x000e220008000800");  // sets SB0
const std::string kArrive =
    sass("01e0", "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR7], RZ", "0x000000ffffff79a7", "0x000fe60008100007");
const std::string kUseAfter =  // waits on SB0
    sass("01f0", "STG.E desc[UR10][R2.64], R7", "0x0000000702007986", "0x001fe2000c10190a");
// fixed_shared_arrive: the store (waiting on SB0) comes before the arrive
const std::string kUseBefore = sass("01e0", "STG.E desc[UR8][R2.64], R7", "0x0000000702007986", "0x001fe2000c101908");
const std::string kArriveLate =
    sass("01f0", "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR7], RZ", "0x000000ffffff79a7", "0x000fe20008100007");

TEST(LintArriveBeforeWait, SharedLoadReleasedBeforeItsWait) {
  const auto findings = check(kLds + kArrive + kUseAfter);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].rule, kRuleArriveBeforeWait);
  EXPECT_EQ(findings[0].arch, "sm_90a");
  EXPECT_EQ(findings[0].offset, 0x1e0U);
  EXPECT_NE(findings[0].message.find("LDS at 0x01d0"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("SB0"), std::string::npos) << findings[0].message;
}

TEST(LintArriveBeforeWait, SharedLoadConsumedFirstIsClean) {
  EXPECT_TRUE(check(kLds + kUseBefore + kArriveLate).empty());
}

// A ping-pong turn (the sm90a backward's until run 27): BAR.ARV on an immediate id right
// after issuing HGMMAs that still read shared memory. Only the listed ids of the listed
// family are scheduling barriers; any other BAR.ARV in that position is a release.
std::string turn_sequence(const char* bar_operands) {
  return sass("0100", "HGMMA.64x64x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT, gsb0", "0x00e00000041879f0",
              "0x000fe2000bf00c18") +
         sass("0110", (std::string("BAR.ARV ") + bar_operands).c_str(), "0x0000000000007b1d", "0x000fec0000002000");
}

TEST(LintArriveBeforeWait, ATurnBarrierIsNotARelease) {
  const std::string bwd = "_ZN3vsa5sm90a3bwd15backward_kernelILb0ELb0EEEvNS1_9BwdParamsE";
  ArriveRule rule = default_rule_table().arrive;
  rule.scheduling_barriers = {{"_ZN3vsa5sm90a3bwd", 5}};
  EXPECT_TRUE(check(turn_sequence("0x5, 0x100"), rule, bwd).empty());
  EXPECT_EQ(check(turn_sequence("0x3, 0x100"), rule, bwd).size(), 1U);  // not a turn id
  EXPECT_EQ(check(turn_sequence("R2, 0x100"), rule, bwd).size(), 1U);   // id unknown
  EXPECT_EQ(check(turn_sequence("0x5, 0x100"), rule).size(), 1U);       // another kernel's barrier 5
}

TEST(LintArriveBeforeWait, NoKernelOfOursHasTurnBarriers) {
  // The backward's consumers stopped taking turns (run 27): an arrive on any id of any of
  // our kernels after an unwaited HGMMA is a release and a finding.
  EXPECT_TRUE(default_rule_table().arrive.scheduling_barriers.empty());
  const std::string bwd = "_ZN3vsa5sm90a3bwd15backward_kernelILb0ELb0EEEvNS1_9BwdParamsE";
  EXPECT_EQ(check(turn_sequence("0x5, 0x100"), default_rule_table().arrive, bwd).size(), 1U);
}

TEST(LintArriveBeforeWait, SharedLoadsCanBeSwitchedOff) {
  auto rule = default_rule_table().arrive;
  rule.shared_loads = false;
  EXPECT_TRUE(check(kLds + kArrive + kUseAfter, rule).empty());
}

TEST(LintArriveBeforeWait, TensorMemoryLoadBeforeTcgen05WaitLd) {
  // lint_tmem_arrive.cu on sm_100a: LDTM sets SB1; planted: the arrive comes first,
  // fixed: the NOP that carries tcgen05.wait::ld waits on SB1 before the arrive.
  const auto ldtm = sass("04b0", "LDTM.x4 R4, tmem[UR7]", "0x00000007000479ee", "0x000e620008140000");
  const auto fence = sass("04c0", "NOP", "0x0000000000007918", "0x000fe20000000000");
  const auto wait_ld = sass("04c0", "NOP", "0x0000000000007918", "0x002fe20000000000");
  const auto arrive =
      sass("04d0", "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR4], RZ", "0x000000ffffff79a7", "0x000fe20008100004");

  const auto planted = check(ldtm + fence + arrive);
  ASSERT_EQ(planted.size(), 1U);
  EXPECT_EQ(planted[0].offset, 0x4d0U);
  EXPECT_NE(planted[0].message.find("LDTM.x4 at 0x04b0"), std::string::npos) << planted[0].message;
  EXPECT_NE(planted[0].message.find("tcgen05.wait::ld"), std::string::npos) << planted[0].message;
  EXPECT_TRUE(check(ldtm + wait_ld + arrive).empty());
}

TEST(LintArriveBeforeWait, WgmmaReleasedBeforeWaitGroup) {
  // lint_wgmma_arrive.cu on sm_90a
  const auto fence = sass("0140", "WARPGROUP.ARRIVE", "0x00000000000079c5", "0x000fcc0000000000");
  const auto hgmma = sass("0150", "HGMMA.64x16x16.F32.BF16 R24, gdesc[UR8], RZ, !UPT, gsb0", "0x00200000081879f0",
                          "0x000fe2000c0018ff");
  const auto arrive =
      sass("0170", "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR4], RZ", "0x000000ffffff79a7", "0x000fe20008100004");
  const auto wait_group = sass("0190", "WARPGROUP.DEPBAR.LE gsb0, 0x0", "0x00008000000079c5", "0x000fe40000010000");
  const auto wait_one = sass("0190", "WARPGROUP.DEPBAR.LE gsb0, 0x1", "0x00008000000079c5", "0x000fe40000010000");

  const auto planted = check(fence + hgmma + arrive + wait_group);
  ASSERT_EQ(planted.size(), 1U);
  EXPECT_EQ(planted[0].offset, 0x170U);
  EXPECT_NE(planted[0].message.find("HGMMA"), std::string::npos) << planted[0].message;
  EXPECT_TRUE(check(fence + hgmma + wait_group + arrive).empty());
  // wait_group 1 with a single group in flight waits for nothing
  EXPECT_EQ(check(fence + hgmma + wait_one + arrive).size(), 1U);
}

TEST(LintArriveBeforeWait, WaitGroupOverlapIsDeliberate) {
  // vsa::sm90a forward kernel (sm_90a): S = Q K^T (group A) and P V (group B) are
  // committed back to back; wait_group 1 retires A, the kernel hands K back while B
  // still reads V. Which barrier guards which buffer is unknown, so the groups a
  // retiring wait_group leaves running count as deliberate overlap.
  const auto scores = sass("3510", "HGMMA.64x64x16.F32.BF16 R88, R164, gdesc[UR16], R88, gsb0", "0x00e00010a4587df0",
                           "0x000fea0008001858");
  const auto pv = sass("3640", "HGMMA.64x128x16.F32.BF16 R24, R120, gdesc[UR8].tnspB, R24, gsb0", "0x41e0000878187df0",
                       "0x000fe20008001818");
  const auto wait_one = sass("3670", "WARPGROUP.DEPBAR.LE gsb0, 0x1", "0x00008000000079c5", "0x000fd00000010100");
  const auto wait_all = sass("3670", "WARPGROUP.DEPBAR.LE gsb0, 0x0", "0x00008000000079c5", "0x000fd00000010100");
  const auto release_k = sass("36a0", "@!P3 SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR17+0x38040], RZ", "0x038040ffffffb9a7",
                              "0x000fe40008100011");
  EXPECT_TRUE(check(scores + pv + wait_one + release_k).empty());
  EXPECT_TRUE(check(scores + pv + wait_all + release_k).empty());
  // without any wait both groups are reported
  const auto none = check(scores + pv + release_k);
  ASSERT_EQ(none.size(), 1U);
  EXPECT_NE(none[0].message.find("0x3510"), std::string::npos) << none[0].message;
  EXPECT_NE(none[0].message.find("0x3640"), std::string::npos) << none[0].message;
}

TEST(LintArriveBeforeWait, DepbarDrainsAllButTheNewest) {
  // Two LDS on SB0 (words of the real LDS at 0x01d0); DEPBAR.LE SB0, N keeps the newest N.
  const auto lds_a = sass("0100", "LDS R7, [R4+UR6]", "0x0000000604077984", "0x000e220008000800");
  const auto lds_b = sass("0110", "LDS R8, [R4+UR6+0x4]", "0x0000040604087984", "0x000e220008000800");
  const auto depbar = [](const char* operands) {
    return sass("0120", (std::string("DEPBAR.LE ") + operands).c_str(), "0x00008d800000791a", "0x000fe80000000000");
  };
  const auto arrive =
      sass("0130", "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR7], RZ", "0x000000ffffff79a7", "0x000fe60008100007");

  const auto one_left = check(lds_a + lds_b + depbar("SB0, 0x1") + arrive);
  ASSERT_EQ(one_left.size(), 1U);
  EXPECT_NE(one_left[0].message.find("LDS at 0x0110"), std::string::npos) << one_left[0].message;
  EXPECT_EQ(one_left[0].message.find("0x0100"), std::string::npos) << one_left[0].message;
  EXPECT_TRUE(check(lds_a + lds_b + depbar("SB0, 0x0") + arrive).empty());
  EXPECT_TRUE(check(lds_a + lds_b + depbar("SB1, 0x0, {0}") + arrive).empty());
  EXPECT_EQ(check(lds_a + lds_b + depbar("SB1, 0x0") + arrive).size(), 1U);
}

TEST(LintArriveBeforeWait, StateStopsAtBranchTargetsButFallsThroughGuardedBranches) {
  const auto guarded_branch = sass("01d8", "@P0 BRA 0x300", "0x0000000000480947", "0x000fea0003800000");
  const auto jump_to_arrive = sass("0300", "BRA 0x1e0", "0xfffffffc00fc7947", "0x000fc0000383ffff");
  // a guarded branch away: the fall-through path still reaches the arrive
  EXPECT_EQ(check(kLds + guarded_branch + kArrive + kUseAfter).size(), 1U);
  // the arrive is also reached from elsewhere: a join point, state is dropped
  EXPECT_TRUE(check(kLds + kArrive + kUseAfter + jump_to_arrive).empty());
  // an unconditional EXIT ends the block
  const auto exit = sass("01d8", "EXIT", "0x000000000000794d", "0x000fea0003800000");
  EXPECT_TRUE(check(kLds + exit + kArrive).empty());
}

TEST(LintArriveBeforeWait, CompletedMembarRetiresEarlierSharedLoads) {
  // vsa::sm90a forward kernel (sm_90a): ldmatrix of Q, fence.proxy.async, arrive on
  // q_empty. ptxas emits MEMBAR.ALL.CTA (read scoreboard SB5) and waits on SB5
  // before the arrive; the LDSM scoreboards themselves are never waited on.
  const auto ldsm_a = sass("1290", "LDSM.16.M88.4 R136, [R183+-0x1c000]", "0xfe400000b788783b", "0x0000620000000200");
  const auto ldsm_b = sass("12d0", "LDSM.16.M88.4 R140, [R181+-0x1c000]", "0xfe400000b58c783b", "0x0000a80000000200");
  const auto membar = sass("1340", "MEMBAR.ALL.CTA", "0x0000000000007992", "0x000bec0000008000");
  const auto fence = sass("1350", "FENCE.VIEW.ASYNC.S", "0x00000000000073c6", "0x020f640000000000");
  const auto nop = sass("1360", "NOP", "0x0000000000007918", "0x020fe20000000000");
  const auto arrive = sass("1370", "@!P3 SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR7+0x37fb0], RZ", "0x037fb0ffffffb9a7",
                           "0x000fe20008100007");
  EXPECT_TRUE(check(ldsm_a + ldsm_b + membar + fence + nop + arrive).empty());
  // the MEMBAR not yet waited on: both loads may still be in flight
  const auto unwaited = check(ldsm_a + ldsm_b + membar + arrive);
  ASSERT_EQ(unwaited.size(), 1U);
  EXPECT_NE(unwaited[0].message.find("0x1290"), std::string::npos) << unwaited[0].message;
  EXPECT_NE(unwaited[0].message.find("0x12d0"), std::string::npos) << unwaited[0].message;
  // a load issued after the MEMBAR is not covered by it
  const auto late = sass("1345", "LDSM.16.M88.4 R144, [R182+-0x1c000]", "0xfe400000b690783b", "0x0000e80000000200");
  EXPECT_EQ(check(ldsm_a + membar + late + fence + nop + arrive).size(), 1U);
  // nor does a MEMBAR retire a tensor-memory load (only tcgen05.wait::ld does)
  const auto ldtm = sass("1280", "LDTM.x4 R4, tmem[UR7]", "0x00000007000479ee", "0x000e620008140000");
  EXPECT_EQ(check(ldtm + membar + fence + nop + arrive).size(), 1U);
}

TEST(LintArriveBeforeWait, NamedBarrierArriveCounts) {
  const auto bar_arv = sass("01e0", "BAR.ARV 0x1, 0x80", "0x0042000000008b1d", "0x000fe20000000000");
  EXPECT_EQ(check(kLds + bar_arv).size(), 1U);
}

}  // namespace
}  // namespace vsa::lint
