// The sm100a-blk64 backward protocol tables (kernels/sm100a/bwd_protocol.hpp) checked on the
// host with the same checker as the forward's: the kernel's own tables must pass every rule
// for 0..8 steps, and planted variants (overlapping TMEM columns, a tcgen05.ld released
// before its wait, missing empty waits, a missing bulk-copy read wait, a wrong arrival
// count, a missing proxy fence, a missing tail wait) must each be reported. No GPU and no
// CUDA header.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/sm100a/bwd_protocol.hpp"
#include "kernels/sm100a/protocol_check.hpp"
#include "editable_protocol.hpp"
#include "protocol_table_checks.hpp"

namespace vsa::sm100a {
namespace {

using protocol::check_protocol_up_to;
using protocol::Op;
using protocol::OpKind;
using protocol::Protocol;
using protocol::Script;
using protocol::Section;
using protocol::WarpRole;

// Enough steps to wrap the Q/dO ring (3 stages) and the P^T/dS^T ring (2 buffers) twice.
constexpr int kMaxSteps = 8;

TEST(Sm100aBwdProtocol, BackwardTablesPassEveryRule) {
  const auto result = check_protocol_up_to(bwd::kProtocol, kMaxSteps);
  EXPECT_TRUE(result.ok()) << result.text();
  EXPECT_GT(result.events, 0);
}

TEST(Sm100aBwdProtocol, WarpRolesMatchTheRoleTable) {
  for (int warp = 0; warp < bwd::Config::kWarps; ++warp) {
    int owners = 0;
    for (const auto& r : bwd::kRoles)
      if (warp >= r.first_warp && warp < r.first_warp + r.warps) {
        ++owners;
        EXPECT_EQ(r.role, bwd::warp_role(warp)) << "warp " << warp;
      }
    EXPECT_EQ(owners, 1) << "warp " << warp << " must have exactly one role";
  }
  // tcgen05.ld of warp w reaches lanes 32 (w % 4)..: each TMEM-reading role must cover the
  // four lane quarters exactly once.
  for (WarpRole role : {WarpRole::dsoftmax, WarpRole::dq_reduce}) {
    const auto& spec = bwd::kProtocol.role(role);
    std::vector<int> quarters;
    for (int w = spec.first_warp; w < spec.first_warp + spec.warps; ++w) quarters.push_back(w % 4);
    EXPECT_EQ(quarters, (std::vector<int>{0, 1, 2, 3})) << protocol::role_name(role);
  }
}

TEST(Sm100aBwdProtocol, TmemRangesFitAndDoNotOverlap) {
  const auto& p = bwd::kProtocol;
  test::expect_tmem_ranges_fit_and_disjoint(p);
  int columns = 0;
  for (int i = 0; i < p.tmem_count; ++i) columns += p.tmem[i].columns;
  EXPECT_EQ(columns, 512) << "S^T, dP^T, dQ, dV, dK fill the whole TMEM";
  EXPECT_EQ(p.tmem_alloc_columns, 512);
}

// Each barrier is named after an edge: only its `from` role arrives, only its `to` role waits.
TEST(Sm100aBwdProtocol, BarriersAreUsedAlongTheirEdge) { test::expect_barriers_used_along_their_edge(bwd::kProtocol); }

// ---- planted faults: the same checker must reject each ---------------------------------

// Copies of the kernel's tables that a test may edit.
struct EditableProtocol : test::EditableProtocol {
  EditableProtocol() : test::EditableProtocol(bwd::kProtocol) {}
};

TEST(Sm100aBwdProtocol, UnchangedCopyStillPasses) {
  EditableProtocol e;
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.ok()) << result.text();
}

// Planted overlap: dQ shifted 32 columns right, onto dV. The dQ MMA of step n writes
// columns the dV MMA accumulates into, and the dq_reduce warps read them while the next
// dV MMA runs.
constexpr protocol::TmemRange kOverlappingTmemMap[] = {
    {"S^T", 0, 64, ""},   {"dP^T", 64, 64, ""}, {"dQ", 160, 128, "planted: columns 256..287 are also dV's"},
    {"dV", 256, 128, ""}, {"dK", 384, 128, ""},
};

TEST(Sm100aBwdProtocol, PlantedTmemOverlapIsARace) {
  Protocol p = bwd::kProtocol;
  p.tmem = kOverlappingTmemMap;
  const auto result = check_protocol_up_to(p, kMaxSteps);
  ASSERT_TRUE(result.has("race")) << result.text();
  EXPECT_NE(result.text().find("dQ accumulator"), std::string::npos) << result.text();
  EXPECT_NE(result.text().find("dV accumulator"), std::string::npos) << result.text();
}

// Planted overlap of S^T and dP^T: dP^T overwrites S^T before the dsoftmax reads it. The two
// MMAs of one step are ordered (in-order tensor pipe, one commit), so this is a wrong value
// rather than a race; the table rule reports it.
TEST(Sm100aBwdProtocol, PlantedSAndDpOverlapIsATableError) {
  static constexpr protocol::TmemRange overlap[] = {{"S^T", 0, 64, ""},
                                                    {"dP^T", 32, 64, "planted"},
                                                    {"dQ", 128, 128, ""},
                                                    {"dV", 256, 128, ""},
                                                    {"dK", 384, 128, ""}};
  Protocol p = bwd::kProtocol;
  p.tmem = overlap;
  const auto result = check_protocol_up_to(p, kMaxSteps);
  EXPECT_TRUE(result.has("table")) << result.text();
  EXPECT_NE(result.text().find("S^T and dP^T share columns"), std::string::npos) << result.text();
}

// Planted: the dsoftmax hands S^T/dP^T back before tcgen05.wait::ld. With one S^T buffer the
// next S MMA overwrites columns still being read: the rule and a race.
TEST(Sm100aBwdProtocol, PlantedSReleaseBeforeWaitLdIsARace) {
  EditableProtocol e;
  e.move_arrive_before(WarpRole::dsoftmax, bwd::Bar::s_empty, OpKind::wait_ld);
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("release-before-wait")) << result.text();
  EXPECT_TRUE(result.has("race")) << result.text();
  EXPECT_NE(result.text().find("S^T accumulator"), std::string::npos) << result.text();
}

// Planted: the dq_reduce hands the dQ columns back before tcgen05.wait::ld.
TEST(Sm100aBwdProtocol, PlantedDqReleaseBeforeWaitLdIsARace) {
  EditableProtocol e;
  e.move_arrive_before(WarpRole::dq_reduce, bwd::Bar::dq_empty, OpKind::wait_ld);
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("release-before-wait")) << result.text();
  EXPECT_TRUE(result.has("race")) << result.text();
  EXPECT_NE(result.text().find("dQ accumulator"), std::string::npos) << result.text();
}

// Planted: the MMA warp issues dQ_i without waiting for the reduce to read dQ_{i-1}.
TEST(Sm100aBwdProtocol, PlantedMissingDqEmptyWaitIsARace) {
  EditableProtocol e;
  e.erase(WarpRole::mma, OpKind::wait, bwd::Bar::dq_empty);
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("race")) << result.text();
  EXPECT_NE(result.text().find("dQ accumulator"), std::string::npos) << result.text();
}

// A finding of the checker: with two P^T/dS^T buffers, ds_empty is implied by s_full. The
// dsoftmax writes buffer n % 2 after waiting s_full(n), whose commit (MMA iteration n-1)
// tracks every earlier MMA of the thread, the gradient MMAs of step n-2 included. The
// barrier stays so the protocol remains safe if the MMA issue order changes...
TEST(Sm100aBwdProtocol, DsEmptyIsImpliedWithTwoDsBuffers) {
  EditableProtocol e;
  e.erase(WarpRole::dsoftmax, OpKind::wait, bwd::Bar::ds_empty);
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  // (An unwaited barrier still draws phase-order findings: nothing observes its phases.)
  EXPECT_FALSE(result.has("race")) << result.text();
}

// ...and with one buffer it is the only guard: step n's writes against step n-1's MMAs.
TEST(Sm100aBwdProtocol, SingleDsBufferIsSafeWithDsEmpty) {
  EditableProtocol e;
  e.p.s_buffers = 1;
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.ok()) << result.text();
}

TEST(Sm100aBwdProtocol, PlantedSingleDsBufferWithoutDsEmptyIsARace) {
  EditableProtocol e;
  e.p.s_buffers = 1;
  e.erase(WarpRole::dsoftmax, OpKind::wait, bwd::Bar::ds_empty);
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("race")) << result.text();
  EXPECT_NE(result.text().find("P^T/dS^T tiles"), std::string::npos) << result.text();
}

// Planted: the producer refills a Q/dO stage without waiting for qdo_empty.
TEST(Sm100aBwdProtocol, PlantedMissingQdoEmptyWaitIsARace) {
  EditableProtocol e;
  e.erase(WarpRole::producer, OpKind::wait, bwd::Bar::qdo_empty);
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("race")) << result.text();
  EXPECT_NE(result.text().find("Q/dO stage"), std::string::npos) << result.text();
}

// Planted: the dq_reduce rewrites its staging row while its previous bulk reduce may still
// be reading it (no cp.async.bulk.wait_group.read).
TEST(Sm100aBwdProtocol, PlantedMissingBulkReadWaitIsARace) {
  EditableProtocol e;
  e.erase(WarpRole::dq_reduce, OpKind::wait_store, protocol::kNone);
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("race")) << result.text();
  EXPECT_NE(result.text().find("dQ staging"), std::string::npos) << result.text();
}

// The staging rows are per thread: marking the bulk reduce as a whole-tile copy makes the
// other warps' next-step staging stores race with it, so the own-rows flag is what the
// verdict above rests on (and the checker does look at it).
TEST(Sm100aBwdProtocol, WholeTileBulkReduceWouldRace) {
  EditableProtocol e;
  auto& loop = e.loop(WarpRole::dq_reduce);
  loop[std::size_t(e.find(loop, OpKind::tma_store, protocol::kNone))].own_rows = false;
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("race")) << result.text();
}

// Planted: stat_empty initialised for 1 arrival while four dsoftmax warps arrive.
TEST(Sm100aBwdProtocol, PlantedArrivalCountIsReported) {
  EditableProtocol e;
  e.barriers[bwd::Bar::stat_empty].arrivals = 1;
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("arrival-count")) << result.text();
}

// Planted: dq_empty waits for a fifth arrival that never comes: the MMA warp hangs.
TEST(Sm100aBwdProtocol, PlantedMissingArrivalHangs) {
  EditableProtocol e;
  e.barriers[bwd::Bar::dq_empty].arrivals = bwd::Config::kDqReduceWarps + 1;
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("never-completes")) << result.text();
}

// Planted: P^T/dS^T written with st.shared and handed over without fence.proxy.async.
TEST(Sm100aBwdProtocol, PlantedMissingProxyFenceIsReported) {
  EditableProtocol e;
  e.erase(WarpRole::dsoftmax, OpKind::fence_async, protocol::kNone);
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("fence")) << result.text();
}

// Planted: ds_full with one slot instead of a ring of two: a fast warp's arrival for step
// n+1 can count toward step n (parity aliasing).
TEST(Sm100aBwdProtocol, PlantedSingleSlotDsFullIsAPhaseError) {
  EditableProtocol e;
  e.barriers[bwd::Bar::ds_full].ring = protocol::Ring::per_step;
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("phase-order")) << result.text();
}

// Planted: no producer tail. The last kStages qdo_empty commits are waited by nobody; the
// later dkdv_done commit does not order them (commits are not ordered among themselves).
TEST(Sm100aBwdProtocol, PlantedMissingQdoTailWaitIsReported) {
  EditableProtocol e;
  EXPECT_EQ(e.drop_epilogue_waits(WarpRole::producer, bwd::Bar::qdo_empty), std::size_t(bwd::Config::kStages));
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("teardown")) << result.text();
  EXPECT_NE(result.text().find("Q/dO stage of step n read"), std::string::npos) << result.text();
}

// Planted: no dsoftmax tail: the last kDsBuffers ds_empty commits are waited by nobody.
TEST(Sm100aBwdProtocol, PlantedMissingDsTailWaitIsReported) {
  EditableProtocol e;
  EXPECT_EQ(e.drop_epilogue_waits(WarpRole::dsoftmax, bwd::Bar::ds_empty), std::size_t(bwd::Config::kDsBuffers));
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("teardown")) << result.text();
  EXPECT_NE(result.text().find("P^T/dS^T buffer of step n read"), std::string::npos) << result.text();
}

}  // namespace
}  // namespace vsa::sm100a
