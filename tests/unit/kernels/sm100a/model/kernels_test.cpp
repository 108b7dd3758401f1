// Execution model, step 3: the real sm100a kernels (blk64 forward, blk128 forward, blk64
// backward) on the model against the fp64 naive reference, over several schedule seeds, on a
// case with ragged lists, a zero-count q block and a padded (vbs) key block.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "model/kernels_on_model.hpp"
#include "case.hpp"
#include "naive_reference.hpp"
#include "vsa/registry.hpp"

namespace vsa {
namespace {

using model_test::Case;

double max_diff(const std::vector<bf16_bits>& a, const std::vector<bf16_bits>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    m = std::max(m, double(std::fabs(bf16_to_float(a[i]) - bf16_to_float(b[i]))));
  return m;
}

void check_forward(int block, Status (*run)(const ForwardArgs&, const model::RunOptions&)) {
  const Case c(block, 4, 2);
  std::vector<bf16_bits> o_ref, o;
  std::vector<float> lse_ref, lse;
  naive::forward(c.forward(o_ref, lse_ref));
  for (std::uint64_t seed : {0ull, 1ull, 2ull, 3ull}) {
    const Status st = run(c.forward(o, lse), model::RunOptions{seed});
    ASSERT_TRUE(st.ok()) << st.error;
    EXPECT_LT(max_diff(o, o_ref), 0.02) << "seed " << seed;
    for (std::size_t i = 0; i < lse.size(); ++i) {
      if (std::isinf(lse_ref[i])) {
        EXPECT_EQ(lse[i], lse_ref[i]) << "row " << i;
      } else {
        EXPECT_NEAR(lse[i], lse_ref[i], 1e-3) << "row " << i << " seed " << seed;
      }
    }
  }
}

TEST(ModelKernels, Blk64ForwardMatchesTheReference) { check_forward(64, &model::run_forward_blk64); }
TEST(ModelKernels, Blk128ForwardMatchesTheReference) { check_forward(128, &model::run_forward_blk128); }

TEST(ModelKernels, Blk64BackwardMatchesTheReference) {
  const Case c(64, 4, 2);
  std::vector<bf16_bits> o;
  std::vector<float> lse;
  naive::forward(c.forward(o, lse));
  const std::size_t n = std::size_t(c.s.tensor_elems());
  std::vector<bf16_bits> dq(n), dk(n), dv(n), dq_r(n), dk_r(n), dv_r(n);
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
  b.workspace = reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(ws.data()) + 255) / 256 * 256);
  BackwardArgs r = b;
  r.dq = dq_r.data();
  r.dk = dk_r.data();
  r.dv = dv_r.data();
  naive::backward(r);
  b.dq = dq.data();
  b.dk = dk.data();
  b.dv = dv.data();
  for (std::uint64_t seed : {0ull, 1ull, 2ull}) {
    const Status st = model::run_backward_blk64(b, model::RunOptions{seed});
    ASSERT_TRUE(st.ok()) << st.error;
    EXPECT_LT(max_diff(dq, dq_r), 0.03) << "seed " << seed;
    EXPECT_LT(max_diff(dk, dk_r), 0.03) << "seed " << seed;
    EXPECT_LT(max_diff(dv, dv_r), 0.03) << "seed " << seed;
  }
}

}  // namespace
}  // namespace vsa

namespace vsa {
namespace {

// The backends every suite can name: registered, host memory, and larger cases refused at
// run time with the reason (a SKIP), never when a suite is read.
TEST(ModelBackends, RegisteredAndLargerCasesSkipWithTheReason) {
  const Registry registry = make_registry();
  for (const char* name : {"sm100a-blk64@model", "sm100a-blk128@model"}) {
    const Backend* b = registry.find(name);
    ASSERT_NE(b, nullptr) << name;
    EXPECT_EQ(b->memory(), Memory::host);
    Shape small;
    small.num_blocks = 4;
    small.block = std::string(name).find("128") != std::string::npos ? 128 : 64;
    Shape large = small;
    large.heads = 32;
    EXPECT_TRUE(b->supports(DeviceInfo{}, small, Op::forward).ok) << name;
    const Support no = b->supports(DeviceInfo{}, large, Op::forward);
    EXPECT_FALSE(no.ok);
    EXPECT_NE(no.reason.find("above the model's 64"), std::string::npos) << no.reason;
    EXPECT_TRUE(b->supports_shape(large, Op::forward).ok) << "a suite over larger cases must still be accepted";
  }
}

}  // namespace
}  // namespace vsa
