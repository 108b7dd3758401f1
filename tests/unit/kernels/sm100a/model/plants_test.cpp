// The planted faults of the real kernels (VSA_PLANT points, kernels/sm100a/model/plants.hpp):
// each one is reported by the model in the way `vsa-bench selftest` expects, and the planted
// build with no fault selected computes the reference's result.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "model/kernels_on_model.hpp"
#include "model/plants.hpp"
#include "case.hpp"
#include "naive_reference.hpp"

namespace vsa {
namespace {

using model_test::Case;

struct PlantGuard {
  explicit PlantGuard(model::Plant p) { model::set_active_plant(p); }
  ~PlantGuard() { model::set_active_plant(model::Plant::none); }
};

double forward_error(const Case& c, Status& st) {
  std::vector<bf16_bits> o, o_ref;
  std::vector<float> lse, lse_ref;
  naive::forward(c.forward(o_ref, lse_ref));
  st = model::planted::run_forward_blk64(c.forward(o, lse), model::RunOptions{1});
  double m = 0;
  for (std::size_t i = 0; i < o.size(); ++i)
    m = std::max(m, double(std::fabs(bf16_to_float(o[i]) - bf16_to_float(o_ref[i]))));
  return m;
}

TEST(ModelPlants, NoFaultSelectedMatchesTheReference) {
  Status st;
  EXPECT_LT(forward_error(Case(64, 4, 1), st), 0.02);
  EXPECT_TRUE(st.ok()) << st.error;
}

TEST(ModelPlants, WrongSboIsACorrectnessFailure) {
  const PlantGuard g(model::Plant::wrong_sbo);
  Status st;
  EXPECT_GT(forward_error(Case(64, 4, 1), st), 0.1);
  EXPECT_TRUE(st.ok()) << st.error;
}

TEST(ModelPlants, ShortExpectTxIsADeadlockNamingTheBarrier) {
  const PlantGuard g(model::Plant::expect_tx_short);
  Status st;
  (void)forward_error(Case(64, 4, 1), st);
  EXPECT_NE(st.error.find("deadlock"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("mma warp 5 lane 0 waits on mbarrier k_full"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("tx-count -16"), std::string::npos) << st.error;  // 16 bytes more arrived than expected
  // The waiting op by the forward table's own words (protocol_cursor.cuh tells the model).
  EXPECT_NE(st.error.find("at protocol op \"K_{n+1} landed\""), std::string::npos) << st.error;
}

TEST(ModelPlants, TmemOverAllocationIsAnError) {
  const PlantGuard g(model::Plant::tmem_overalloc);
  Status st;
  (void)forward_error(Case(64, 4, 1), st);
  EXPECT_NE(st.error.find("tcgen05.alloc: 1024 columns"), std::string::npos) << st.error;
}

TEST(ModelPlants, DeallocByAnotherWarpIsAnError) {
  const PlantGuard g(model::Plant::dealloc_other_warp);
  Status st;
  (void)forward_error(Case(64, 4, 1), st);
  EXPECT_NE(st.error.find("tcgen05.dealloc by warp 5 of TMEM allocated by warp 4"), std::string::npos) << st.error;
}

// The planted build's backward, the forward's outputs from the naive reference. In Case(64,
// 4, 1) kv block 0 has q blocks 0 and 2: a CTA of two steps, which the overlap below needs.
Status planted_backward(const Case& c) {
  std::vector<bf16_bits> o;
  std::vector<float> lse;
  naive::forward(c.forward(o, lse));
  const std::size_t n = std::size_t(c.s.tensor_elems());
  std::vector<bf16_bits> dq(n), dk(n), dv(n);
  std::vector<unsigned char> ws(model::workspace_bytes_backward(c.s) + 256);
  BackwardArgs b;
  b.shape = c.s;
  b.q = c.q.data();
  b.k = c.k.data();
  b.v = c.v.data();
  b.out = o.data();
  b.d_out = c.d_out.data();
  b.lse = lse.data();
  b.q2k_idx = c.q2k_idx.data();
  b.q2k_num = c.q2k_num.data();
  b.k2q_idx = c.k2q_idx.data();
  b.k2q_num = c.k2q_num.data();
  b.vbs = c.vbs.data();
  b.dq = dq.data();
  b.dk = dk.data();
  b.dv = dv.data();
  b.workspace = reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(ws.data()) + 255) / 256 * 256);
  return model::planted::run_backward_blk64(b, model::RunOptions{1});
}

TEST(ModelPlants, ReleaseBeforeWaitLdIsARace) {
  const PlantGuard g(model::Plant::skip_wait_ld);
  const Status st = planted_backward(Case(64, 4, 1));
  EXPECT_NE(st.error.find("race"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("tcgen05.ld read by thread"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("dq_reduce"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("schedule seed 1"), std::string::npos) << st.error;
}

// The seed review's TMEM overlap as today's backward can have it: the dQ accumulator based
// at dP^T's column 64, over the dP^T_{n+1} the dsoftmax warps are still reading.
TEST(ModelPlants, DqAccumulatorOverTheDpBeingReadIsARace) {
  {
    const Status st = planted_backward(Case(64, 4, 1));
    EXPECT_TRUE(st.ok()) << "the same case with no fault selected: " << st.error;
  }
  const PlantGuard g(model::Plant::tmem_overlap);
  const Status st = planted_backward(Case(64, 4, 1));
  EXPECT_NE(st.error.find("race in sm100a.bwd_blk64"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("TMEM lane "), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("tcgen05.ld read by thread"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("(dsoftmax warp"), std::string::npos) << st.error;
  // Both operations by the backward table's own words.
  EXPECT_NE(st.error.find("at protocol op \"dP^T row (64 fp32) -> registers\""), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("at protocol op \"dQ_i = dS_n K (M=64, N=128, K=64)\""), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("tcgen05.mma (D accumulator) write by thread 288 (mma warp 9 lane 0)"), std::string::npos)
      << st.error;
  // The cell is one of dP^T's columns, 64..127, which only the shifted dQ reaches.
  const auto at = st.error.find(" column ");
  ASSERT_NE(at, std::string::npos) << st.error;
  const int column = std::stoi(st.error.substr(at + 8));
  EXPECT_GE(column, 64) << st.error;
  EXPECT_LT(column, 128) << st.error;
}

// The tcgen05 fences as happens-before edges (PTX ISA 9.7.16.6.3), each left out of the real
// role files by a plant: the forward's softmax loads S under no after-fence, the backward's
// dsoftmax releases S^T under no before-fence.
TEST(ModelPlants, SoftmaxLoadWithoutAfterFenceIsARace) {
  const PlantGuard g(model::Plant::skip_fence_after);
  Status st;
  (void)forward_error(Case(64, 4, 1), st);
  EXPECT_NE(st.error.find("race in sm100a.fwd_blk64"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("tcgen05.mma (D accumulator) write by thread 160 (mma warp 5 lane 0)"), std::string::npos)
      << st.error;
  EXPECT_NE(st.error.find("(softmax warp"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("at protocol op \"S_n row (64 fp32) -> registers\""), std::string::npos) << st.error;
}

// (The same case with no fault selected: DqAccumulatorOverTheDpBeingReadIsARace.)
TEST(ModelPlants, DsoftmaxReleaseWithoutBeforeFenceIsARace) {
  const PlantGuard g(model::Plant::skip_fence_before);
  const Status st = planted_backward(Case(64, 4, 1));
  EXPECT_NE(st.error.find("race in sm100a.bwd_blk64"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("at protocol op \"S^T row (64 fp32) -> registers\""), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("at protocol op \"S^T_{n+1} = K Q^T (M=64, N=64, K=128)\""), std::string::npos) << st.error;
}

// A plain C++ shared-memory load (ld_shared) in the real dsoftmax, pointed at the stage the
// producer fills for the next step.
TEST(ModelPlants, StatReadFromTheStageBeingFilledIsARace) {
  const PlantGuard g(model::Plant::stat_next_stage);
  const Status st = planted_backward(Case(64, 4, 1));
  EXPECT_NE(st.error.find("cp.async.bulk load write by thread 256 (producer warp 8 lane 0)"), std::string::npos)
      << st.error;
  EXPECT_NE(st.error.find("ld.shared read by thread"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("at protocol op \"lse_i, Delta_i (broadcast reads)\""), std::string::npos) << st.error;
}

// The O tile stores' wait_group.read issued by lane 1: bulk groups belong to the thread that
// committed them (PTX ISA 9.7.9.25.4.3), so lane 0 ends with its stores never waited for.
TEST(ModelPlants, StoreWaitByAnotherLaneFailsTheIssuersExit) {
  const PlantGuard g(model::Plant::store_wait_other_lane);
  Status st;
  (void)forward_error(Case(64, 4, 1), st);
  EXPECT_NE(st.error.find("thread 0 (warp 0 lane 0, softmax) ended with"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("bulk op(s) it issued and never waited for"), std::string::npos) << st.error;
}

}  // namespace
}  // namespace vsa
