// The sm100a-blk64 forward protocol tables (kernels/sm100a/fwd_protocol.hpp) checked on the
// host: the kernel's own tables must pass every rule of the checker for 0..6 kv steps, and
// planted variants (overlapping TMEM columns, a tcgen05.ld released before its wait, a wrong
// arrival count, a missing empty-barrier wait, a missing proxy fence, a missing tail wait)
// must each be reported.
// No GPU and no CUDA header: the tables are plain C++.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/sm100a/fwd_protocol.hpp"
#include "kernels/sm100a/protocol_check.hpp"
#include "editable_protocol.hpp"
#include "protocol_table_checks.hpp"

namespace vsa::sm100a {
namespace {

// The blk64 instance of the forward protocol (the blk128 one: fwd128_protocol_test.cpp).
constexpr const protocol::Protocol& kBlk64 = fwd::kProtocol<fwd::Blk64>;
using protocol::check_protocol;
using protocol::check_protocol_up_to;
using protocol::Op;
using protocol::OpKind;
using protocol::Protocol;
using protocol::Script;

// Enough steps to wrap the K/V ring (2 stages) and the S ring (2 buffers) more than twice.
constexpr int kMaxSteps = 6;

TEST(Sm100aProtocol, ForwardTablesPassEveryRule) {
  const auto result = check_protocol_up_to(kBlk64, kMaxSteps);
  EXPECT_TRUE(result.ok()) << result.text();
  EXPECT_GT(result.events, 0);
}

TEST(Sm100aProtocol, WarpRolesMatchTheRoleTable) {
  for (int warp = 0; warp < fwd::Blk64::kWarps; ++warp) {
    int owners = 0;
    for (const auto& r : fwd::kRoles)
      if (warp >= r.first_warp && warp < r.first_warp + r.warps) {
        ++owners;
        EXPECT_EQ(r.role, fwd::warp_role(warp)) << "warp " << warp;
      }
    EXPECT_EQ(owners, 1) << "warp " << warp << " must have exactly one role";
  }
  // tcgen05.ld/st of warp w reach lanes 32 (w % 4)..: the four softmax warps must cover
  // the four lane quarters exactly once.
  const auto& softmax = kBlk64.role(fwd::WarpRole::softmax);
  std::vector<int> quarters;
  for (int w = softmax.first_warp; w < softmax.first_warp + softmax.warps; ++w) quarters.push_back(w % 4);
  EXPECT_EQ(quarters, (std::vector<int>{0, 1, 2, 3}));
}

TEST(Sm100aProtocol, TmemRangesFitAndDoNotOverlap) { test::expect_tmem_ranges_fit_and_disjoint(kBlk64); }

// Each barrier is named after an edge: only its `from` role arrives, only its `to` role waits.
TEST(Sm100aProtocol, BarriersAreUsedAlongTheirEdge) { test::expect_barriers_used_along_their_edge(kBlk64); }

// ---- planted faults: the same checker must reject each ---------------------------------

// A protocol whose scripts the test may edit: copies of the kernel's tables.
struct EditableProtocol : test::EditableProtocol {
  EditableProtocol() : test::EditableProtocol(kBlk64) {}
};

TEST(Sm100aProtocol, UnchangedCopyStillPasses) {
  EditableProtocol e;
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.ok()) << result.text();
}

// Planted overlap: S[1] shifted onto the first columns of O. The MMA warp writes S_{n+1}
// there while the softmax warps correct O (and PV_n writes O while the softmax reads S_{n+1}).
constexpr protocol::TmemRange kOverlappingTmemMap[] = {
    {"S[0]", 0, 64, ""},
    {"S[1]", 96, 64, "planted: columns 128..159 are also O's"},
    {"O", 128, 128, ""},
};

TEST(Sm100aProtocol, PlantedTmemOverlapIsARace) {
  Protocol p = kBlk64;
  p.tmem = kOverlappingTmemMap;
  const auto result = check_protocol_up_to(p, kMaxSteps);
  ASSERT_TRUE(result.has("race")) << result.text();
  EXPECT_NE(result.text().find("O accumulator"), std::string::npos) << result.text();
  EXPECT_NE(result.text().find("S accumulator"), std::string::npos) << result.text();
  EXPECT_FALSE(check_protocol(p, 1).has("race")) << "with one step S[1] is never used";
}

// Moves the release `arrive_kind` on `barrier` in the softmax loop to just before the
// first `wait_kind` that precedes it: the columns are handed back while still being read.
void release_early(EditableProtocol& e, std::uint8_t barrier, OpKind wait_kind, int wait_occurrence) {
  auto& loop = e.loop(fwd::WarpRole::softmax);
  const int arrive = e.find(loop, OpKind::arrive, barrier);
  int wait = -1;
  for (int i = 0, seen = 0; i < arrive; ++i)
    if (loop[std::size_t(i)].kind == wait_kind && seen++ == wait_occurrence) wait = i;
  ASSERT_GE(wait, 0);
  const Op released = loop[std::size_t(arrive)];
  loop.erase(loop.begin() + arrive);
  loop.insert(loop.begin() + wait, released);
}

// Planted: the softmax hands the S buffer back (s_empty) before tcgen05.wait::ld. The rule
// catches it; no race follows in this pipeline only because S_{n+2} is issued after p_full(n)
// (see PlantedSingleSBufferWithoutSEmptyIsARace for the edge s_empty really guards).
TEST(Sm100aProtocol, PlantedReleaseBeforeWaitLdOnSIsReported) {
  EditableProtocol e;
  release_early(e, fwd::Bar::s_empty, OpKind::wait_ld, 0);
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("release-before-wait")) << result.text();
}

// Planted: the O correction's tcgen05.ld still in flight when p_full lets the MMA warp issue
// O += P V into the same columns: both the rule and a race.
TEST(Sm100aProtocol, PlantedReleaseBeforeWaitLdOnOIsARace) {
  EditableProtocol e;
  auto& loop = e.loop(fwd::WarpRole::softmax);
  // ld O -> wait_ld -> st O -> wait_st ...: drop the store half and move p_full before wait_ld.
  loop.erase(loop.begin() + e.find(loop, OpKind::tmem_store, fwd::Buf::o));
  loop.erase(loop.begin() + e.find(loop, OpKind::wait_st, protocol::kNone));
  release_early(e, fwd::Bar::p_full, OpKind::wait_ld, 1);
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("release-before-wait")) << result.text();
  EXPECT_TRUE(result.has("race")) << result.text();
  EXPECT_NE(result.text().find("O accumulator"), std::string::npos) << result.text();
}

// Planted: s_empty initialised for 1 arrival while four softmax warps arrive.
TEST(Sm100aProtocol, PlantedArrivalCountIsReported) {
  EditableProtocol e;
  e.barriers[fwd::Bar::s_empty].arrivals = 1;
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("arrival-count")) << result.text();
}

// Planted: p_full expects a fifth arrival that never comes: the MMA warp hangs.
TEST(Sm100aProtocol, PlantedMissingArrivalHangs) {
  EditableProtocol e;
  e.barriers[fwd::Bar::p_full].arrivals = fwd::Blk64::kSoftmaxWarps + 1;
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("never-completes")) << result.text();
}

// Planted: the producer refills a K stage without waiting for k_empty.
TEST(Sm100aProtocol, PlantedMissingEmptyWaitIsARace) {
  EditableProtocol e;
  auto& loop = e.loop(fwd::WarpRole::producer);
  loop.erase(loop.begin() + e.find(loop, OpKind::wait, fwd::Bar::k_empty));
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("race")) << result.text();
  EXPECT_NE(result.text().find("K stage"), std::string::npos) << result.text();
}

// Planted: P written with st.shared and handed to the tensor cores without fence.proxy.async.
TEST(Sm100aProtocol, PlantedMissingProxyFenceIsReported) {
  EditableProtocol e;
  auto& loop = e.loop(fwd::WarpRole::softmax);
  loop.erase(loop.begin() + e.find(loop, OpKind::fence_async, protocol::kNone));
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("fence")) << result.text();
}

// Planted: the epilogue's TMA store issued without the softmax warps' bar.sync: it may read
// staging rows other warps have not written yet.
TEST(Sm100aProtocol, PlantedMissingRoleSyncIsARace) {
  EditableProtocol e;
  auto& epi = e.epilogue(fwd::WarpRole::softmax);
  epi.erase(epi.begin() + e.find(epi, OpKind::role_sync, protocol::kNone));
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("race")) << result.text();
}

// Removes every wait on `barrier` from the producer's epilogue (the tail).
void drop_tail_waits(EditableProtocol& e, std::uint8_t barrier) {
  ASSERT_EQ(e.drop_epilogue_waits(fwd::WarpRole::producer, barrier), std::size_t(fwd::Blk64::kKvStages))
      << "one tail wait per stage";
}

// Planted: no tail. The last kKvStages tcgen05.commit arrivals on k_empty are waited by
// nobody, so they may land after the teardown __syncthreads (in the next CTA's smem).
TEST(Sm100aProtocol, PlantedMissingKTailWaitIsReported) {
  EditableProtocol e;
  drop_tail_waits(e, fwd::Bar::k_empty);
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("teardown")) << result.text();
  EXPECT_NE(result.text().find("K stage of step n+1 read"), std::string::npos) << result.text();
  EXPECT_EQ(result.text().find("V stage of step n read"), std::string::npos) << result.text();
  EXPECT_FALSE(check_protocol(e.relink(), 0).has("teardown")) << "steps = 0 commits nothing";
}

TEST(Sm100aProtocol, PlantedMissingVTailWaitIsReported) {
  EditableProtocol e;
  drop_tail_waits(e, fwd::Bar::v_empty);
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("teardown")) << result.text();
  EXPECT_NE(result.text().find("V stage of step n read"), std::string::npos) << result.text();
}

// Half a tail: waiting only for step N-1 leaves step N-2's commit (the other stage) unwaited.
TEST(Sm100aProtocol, PlantedShortTailIsReported) {
  EditableProtocol e;
  auto& epi = e.epilogue(fwd::WarpRole::producer);
  epi.erase(epi.begin() + e.find(epi, OpKind::wait, fwd::Bar::k_empty));  // the step N-2 wait
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("teardown")) << result.text();
  EXPECT_FALSE(check_protocol(e.relink(), 1).has("teardown")) << "with one step there is no step N-2";
}

// With two S buffers, p_full(n) already orders the softmax's read of S_n before S_{n+2}
// is issued, so dropping the s_empty wait is (only) redundant here...
TEST(Sm100aProtocol, SEmptyIsImpliedWithTwoSBuffers) {
  EditableProtocol e;
  auto& loop = e.loop(fwd::WarpRole::mma);
  loop.erase(loop.begin() + e.find(loop, OpKind::wait, fwd::Bar::s_empty));
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.ok()) << result.text();
}

// ...but with one S buffer it is the only thing between S_{n+1} and the softmax's read of S_n.
TEST(Sm100aProtocol, SingleSBufferIsSafeWithSEmpty) {
  EditableProtocol e;
  e.p.s_buffers = 1;
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.ok()) << result.text();
}

TEST(Sm100aProtocol, PlantedSingleSBufferWithoutSEmptyIsARace) {
  EditableProtocol e;
  e.p.s_buffers = 1;
  auto& loop = e.loop(fwd::WarpRole::mma);
  loop.erase(loop.begin() + e.find(loop, OpKind::wait, fwd::Bar::s_empty));
  const auto result = check_protocol_up_to(e.relink(), kMaxSteps);
  EXPECT_TRUE(result.has("race")) << result.text();
  EXPECT_NE(result.text().find("S accumulator"), std::string::npos) << result.text();
}

}  // namespace
}  // namespace vsa::sm100a
