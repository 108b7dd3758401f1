// arrive-before-wait on instruction sequences copied from real cuobjdump output of
// the fixtures (tests/fixtures/*.cu, CUDA 13), plus variants that move a wait or
// insert a DEPBAR / branch / loop to pin down the scoreboard model and its control flow.
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

// lint_shared_arrive.cu, load_then_release on sm_90a: LDS, then the release arrive with no
// wait on the LDS scoreboard (SB0), then the store that consumes the value.
const std::string kLds = sass("01d0", "LDS R7, [R4+UR6]", "0x0000000604077984", "0x000e220008000800");  // sets SB0
const std::string kArrive =
    sass("01e0", "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR7], RZ", "0x000000ffffff79a7", "0x000fe60008100007");
const std::string kUseAfter =  // waits on SB0
    sass("01f0", "STG.E desc[UR10][R2.64], R7", "0x0000000702007986", "0x001fe2000c10190a");
// use_then_release: the store (waiting on SB0) comes before the arrive
const std::string kUseBefore = sass("01e0", "STG.E desc[UR8][R2.64], R7", "0x0000000702007986", "0x001fe2000c101908");
const std::string kArriveLate =
    sass("01f0", "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR7], RZ", "0x000000ffffff79a7", "0x000fe20008100007");

TEST(LintArriveBeforeWait, GenericLoadBeforeAReleaseArriveIsOrdered) {
  // PTX ISA memory model: the load precedes the release in program order, so it is ordered
  // before the producer's acquire. Also for a global load (LDG) and a bar.arrive.
  EXPECT_TRUE(check(kLds + kArrive + kUseAfter).empty());
  const auto ldg = sass("01d0", "LDG.E R7, desc[UR8][R2.64]", "0x0000000802077981", "0x000ea8000c1e1900");
  EXPECT_TRUE(check(ldg + kArrive + kUseAfter).empty());
  const auto bar_arv = sass("01e0", "BAR.ARV 0x1, 0x80", "0x0042000000008b1d", "0x000fe20000000000");
  EXPECT_TRUE(check(kLds + bar_arv).empty());
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
  const auto release_k =
      sass("36a0", "@!P3 SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR17+0x38040], RZ", "0x038040ffffffb9a7", "0x000fe40008100011");
  EXPECT_TRUE(check(scores + pv + wait_one + release_k).empty());
  EXPECT_TRUE(check(scores + pv + wait_all + release_k).empty());
  // without any wait both groups are reported
  const auto none = check(scores + pv + release_k);
  ASSERT_EQ(none.size(), 1U);
  EXPECT_NE(none[0].message.find("0x3510"), std::string::npos) << none[0].message;
  EXPECT_NE(none[0].message.find("0x3640"), std::string::npos) << none[0].message;
}

TEST(LintArriveBeforeWait, DepbarDrainsAllButTheNewest) {
  // Two LDTM on SB1 (words of the real LDTM of lint_tmem_arrive.cu); DEPBAR.LE SB1, N keeps the newest N.
  const auto ldtm_a = sass("0100", "LDTM.x4 R4, tmem[UR7]", "0x00000007000479ee", "0x000e620008140000");
  const auto ldtm_b = sass("0110", "LDTM.x4 R8, tmem[UR8]", "0x00000008000879ee", "0x000e620008140000");
  const auto depbar = [](const char* operands) {
    return sass("0120", (std::string("DEPBAR.LE ") + operands).c_str(), "0x00008d800000791a", "0x000fe80000000000");
  };
  const auto arrive =
      sass("0130", "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR7], RZ", "0x000000ffffff79a7", "0x000fe60008100007");

  const auto one_left = check(ldtm_a + ldtm_b + depbar("SB1, 0x1") + arrive);
  ASSERT_EQ(one_left.size(), 1U);
  EXPECT_NE(one_left[0].message.find("LDTM.x4 at 0x0110"), std::string::npos) << one_left[0].message;
  EXPECT_EQ(one_left[0].message.find("0x0100"), std::string::npos) << one_left[0].message;
  EXPECT_TRUE(check(ldtm_a + ldtm_b + depbar("SB1, 0x0") + arrive).empty());
  EXPECT_TRUE(check(ldtm_a + ldtm_b + depbar("SB0, 0x0, {1}") + arrive).empty());
  EXPECT_EQ(check(ldtm_a + ldtm_b + depbar("SB0, 0x0") + arrive).size(), 1U);
}

// Control flow. LDTM sets SB1 (lint_tmem_arrive.cu); `wait_ld_at` is the NOP that
// tcgen05.wait::ld compiles to (waits on SB1); `plain` instructions set and wait on nothing.
std::string plain(const char* offset, const char* text) {
  return sass(offset, text, "0x0000000000007918", "0x000fe20000000000");
}
std::string ldtm_at(const char* offset) {
  return sass(offset, "LDTM.x4 R4, tmem[UR7]", "0x00000007000479ee", "0x000e620008140000");
}
std::string wait_ld_at(const char* offset) { return sass(offset, "NOP", "0x0000000000007918", "0x002fe20000000000"); }
std::string arrive_at(const char* offset) {
  return sass(offset, "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR4], RZ", "0x000000ffffff79a7", "0x000fe20008100004");
}

TEST(LintArriveBeforeWait, TensorMemoryLoadsCompleteInIssueOrder) {
  // ptxas's own convention (sm100a dQ reduce, CUDA 13): of four LDTM.x32 only the last sets
  // a scoreboard and tcgen05.wait::ld waits on that one; fixed code also waits on the newest
  // of two scoreboarded LDTMs only. A wait that retires an LDTM retires the older ones.
  const auto older = sass("0100", "LDTM.x4 R8, tmem[UR10]", "0x0000000a000879ee", "0x000e640008140000");      // SB1
  const auto newer = sass("0110", "LDTM.x4 R4, tmem[UR11+0x4]", "0x0000040b000479ee", "0x000ee20008140000");  // SB3
  const auto no_sb = sass("0100", "LDTM.x32 R100, tmem[UR6+0x80]", "0x00008006006479ee", "0x000fe200082c0000");
  const auto wait_newer = sass("0120", "NOP", "0x0000000000007918", "0x008fe20000000000");  // waits on SB3
  const auto wait_older = sass("0120", "NOP", "0x0000000000007918", "0x002fe20000000000");  // waits on SB1
  const auto arrive = arrive_at("0130");
  EXPECT_TRUE(check(older + newer + wait_newer + arrive).empty());
  const auto left = check(older + newer + wait_older + arrive);
  ASSERT_EQ(left.size(), 1U);
  EXPECT_NE(left[0].message.find("at 0x0110"), std::string::npos) << left[0].message;
  EXPECT_EQ(left[0].message.find("at 0x0100"), std::string::npos) << left[0].message;
  // an LDTM without a scoreboard is outstanding until a later one completes
  const auto unscored = check(no_sb + arrive);
  ASSERT_EQ(unscored.size(), 1U);
  EXPECT_NE(unscored[0].message.find("LDTM.x32 at 0x0100"), std::string::npos) << unscored[0].message;
  EXPECT_TRUE(check(no_sb + newer + wait_newer + arrive).empty());
  // "issued before" must hold on every path: here the newer load is skipped on one path
  EXPECT_EQ(check(older + plain("0108", "@P0 BRA 0x120") + newer + wait_newer + arrive).size(), 1U);
}

TEST(LintArriveBeforeWait, ALoadReachesAnArriveBehindADelayLoop) {
  // backward_kernel<true>: the probe's sleep loop sits between tcgen05.ld and the dq_empty
  // arrive, so the arrive is behind a loop head and a join point (issue 18, finding 2).
  const auto loop = plain("0110", "NANOSLEEP 0x40") + plain("0120", "@P0 BRA 0x110");
  const auto planted = check(ldtm_at("0100") + loop + arrive_at("0130"));
  ASSERT_EQ(planted.size(), 1U);
  EXPECT_EQ(planted[0].offset, 0x130U);
  EXPECT_NE(planted[0].message.find("LDTM.x4 at 0x0100"), std::string::npos) << planted[0].message;
  // the wait before the loop (as bwd_dq_reduce.cuh has it): clean
  EXPECT_TRUE(check(ldtm_at("0100") + wait_ld_at("0108") + loop + arrive_at("0130")).empty());
  // a wait after a branch that can skip it does not cover the skipping path
  const auto skip = plain("0104", "@P1 BRA 0x130");
  EXPECT_EQ(check(ldtm_at("0100") + skip + wait_ld_at("0108") + loop + arrive_at("0130")).size(), 1U);
}

TEST(LintArriveBeforeWait, MergePointsTakeTheWorstPath) {
  // if (p) wait::ld; arrive: the path without the wait reaches the arrive.
  const auto diamond = ldtm_at("0100") + plain("0110", "@P0 BRA 0x130") + wait_ld_at("0120") + arrive_at("0130");
  EXPECT_EQ(check(diamond).size(), 1U);
  // both arms wait: clean
  const auto both = ldtm_at("0100") + plain("0110", "@P0 BRA 0x140") + wait_ld_at("0120") + plain("0130", "BRA 0x150") +
                    wait_ld_at("0140") + arrive_at("0150");
  EXPECT_TRUE(check(both).empty());
  // the branch over the wait is uniform (BRA.U UP0, ...): still conditional
  const auto uniform = ldtm_at("0100") + plain("0110", "BRA.U UP0, 0x130") + wait_ld_at("0120") + arrive_at("0130");
  EXPECT_EQ(check(uniform).size(), 1U);
  // an unconditional branch over the wait: the wait is dead code, the finding stays
  const auto jump = ldtm_at("0100") + plain("0110", "BRA 0x130") + wait_ld_at("0120") + arrive_at("0130");
  EXPECT_EQ(check(jump).size(), 1U);
}

TEST(LintArriveBeforeWait, ALoopCarriesALoadToTheNextIterationsArrive) {
  // for (;;) { arrive; tcgen05.ld; } with no wait: iteration n+1 releases what n still reads.
  const auto findings =
      check(arrive_at("0100") + ldtm_at("0110") + plain("0120", "@P0 BRA 0x100") + plain("0130", "EXIT"));
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].offset, 0x100U);
  // waited before the back edge: clean
  EXPECT_TRUE(check(arrive_at("0100") + ldtm_at("0110") + wait_ld_at("0118") + plain("0120", "@P0 BRA 0x100") +
                    plain("0130", "EXIT"))
                  .empty());
}

TEST(LintArriveBeforeWait, ExitEndsAPathAConditionalExitDoesNot) {
  EXPECT_TRUE(check(ldtm_at("0100") + plain("0110", "EXIT") + arrive_at("0120")).empty());  // unreachable arrive
  EXPECT_EQ(check(ldtm_at("0100") + plain("0110", "@P0 EXIT") + arrive_at("0120")).size(), 1U);
  // reached only through an unconditional branch over an EXIT
  EXPECT_EQ(check(ldtm_at("0100") + plain("0110", "BRA 0x130") + plain("0120", "EXIT") + arrive_at("0130")).size(), 1U);
}

TEST(LintArriveBeforeWait, IndirectBranchesReachEveryOrphanBlock) {
  // A warp-role switch (BRX through a jump table; FastVideo's forward has one): the table is
  // not in the listing, and the role blocks are reached by nothing else.
  const auto role_a = plain("0120", "EXIT");
  const auto role_b = arrive_at("0130") + plain("0140", "EXIT");
  EXPECT_EQ(check(ldtm_at("0100") + plain("0110", "BRX R6 -0x120") + role_a + role_b).size(), 1U);
  EXPECT_TRUE(check(ldtm_at("0100") + wait_ld_at("0108") + plain("0110", "BRX R6 -0x120") + role_a + role_b).empty());
}

TEST(LintArriveBeforeWait, CallsAndReturns) {
  // The load is issued in a subroutine; the arrive follows the call.
  const auto caller = plain("0100", "CALL.REL.NOINC 0x200") + arrive_at("0110") + plain("0120", "EXIT");
  EXPECT_EQ(check(caller + ldtm_at("0200") + plain("0210", "RET.REL.NODEC R20 0x0")).size(), 1U);
  EXPECT_TRUE(check(caller + ldtm_at("0200") + wait_ld_at("0208") + plain("0210", "RET.REL.NODEC R20 0x0")).empty());
}

TEST(LintArriveBeforeWait, UncommittedTcgen05MmaBeforeAThreadArrive) {
  // tcgen05.mma (UTCHMMA) reads shared memory asynchronously; only tcgen05.commit (UTCBAR)
  // hands its completion to a barrier.
  const auto mma = plain("0200", "UTCHMMA gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR10], idesc[UR11], !UPT");
  const auto commit = plain("0210", "UTCBAR [UR12], URZ");
  const auto planted = check(mma + arrive_at("0220"));
  ASSERT_EQ(planted.size(), 1U);
  EXPECT_NE(planted[0].message.find("tcgen05.mma"), std::string::npos) << planted[0].message;
  EXPECT_NE(planted[0].message.find("tcgen05.commit"), std::string::npos) << planted[0].message;
  EXPECT_TRUE(check(mma + commit + arrive_at("0220")).empty());
  // committed on one path only
  EXPECT_EQ(check(mma + plain("0208", "@P0 BRA 0x220") + commit + arrive_at("0220")).size(), 1U);
  auto rule = default_rule_table().arrive;
  rule.tcgen05_mma = false;
  EXPECT_TRUE(check(mma + arrive_at("0220"), rule).empty());
}

TEST(LintArriveBeforeWait, AMembarDoesNotRetireATensorMemoryLoad) {
  // fence.proxy.async (MEMBAR.ALL.CTA + FENCE.VIEW.ASYNC.S and the NOP waiting on the MEMBAR's
  // SB5), as in the vsa::sm90a forward's Q release: it orders memory accesses, not an
  // outstanding tcgen05.ld (only tcgen05.wait::ld does).
  const auto ldtm = sass("1280", "LDTM.x4 R4, tmem[UR7]", "0x00000007000479ee", "0x000e620008140000");
  const auto membar = sass("1340", "MEMBAR.ALL.CTA", "0x0000000000007992", "0x000bec0000008000");
  const auto fence = sass("1350", "FENCE.VIEW.ASYNC.S", "0x00000000000073c6", "0x020f640000000000");
  const auto nop = sass("1360", "NOP", "0x0000000000007918", "0x020fe20000000000");
  const auto arrive =
      sass("1370", "@!P3 SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR7+0x37fb0], RZ", "0x037fb0ffffffb9a7", "0x000fe20008100007");
  EXPECT_EQ(check(ldtm + membar + fence + nop + arrive).size(), 1U);
  // ldmatrix (LDSM) is a generic load: ordered by the release, with or without the fence
  const auto ldsm = sass("1290", "LDSM.16.M88.4 R136, [R183+-0x1c000]", "0xfe400000b788783b", "0x0000620000000200");
  EXPECT_TRUE(check(ldsm + membar + fence + nop + arrive).empty());
  EXPECT_TRUE(check(ldsm + arrive).empty());
}

TEST(LintArriveBeforeWait, NamedBarrierArriveCounts) {
  const auto bar_arv = sass("01e0", "BAR.ARV 0x1, 0x80", "0x0042000000008b1d", "0x000fe20000000000");
  EXPECT_EQ(check(ldtm_at("01d0") + bar_arv).size(), 1U);
}

}  // namespace
}  // namespace vsa::lint
