// The CPU reference must give the same bits for any thread count: its results are
// what GPU runs are compared against, and a reference that wobbles with the
// machine's core count would make reports from different nodes incomparable.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cpu_reference.hpp"
#include "test_problems.hpp"

namespace vsa {
namespace {

struct Outputs {
  std::vector<bf16_bits> out, dq, dk, dv;
  std::vector<float> lse;
  bool operator==(const Outputs& o) const {
    return out == o.out && dq == o.dq && dk == o.dk && dv == o.dv && lse.size() == o.lse.size() &&
           std::memcmp(lse.data(), o.lse.data(), lse.size() * sizeof(float)) == 0;
  }
};

Outputs run(const test::HostProblem& p, const ref::Options& options) {
  const auto n = std::size_t(p.tensor_elems());
  Outputs r{std::vector<bf16_bits>(n), std::vector<bf16_bits>(n), std::vector<bf16_bits>(n), std::vector<bf16_bits>(n),
            std::vector<float>(std::size_t(p.row_elems()))};
  Status st = ref::forward(ref::tensors_of(p.forward_args(r.out.data(), r.lse.data())), options);
  EXPECT_TRUE(st.ok()) << st.error;
  st = ref::backward(
      ref::tensors_of(p.backward_args(r.out.data(), r.lse.data(), r.dq.data(), r.dk.data(), r.dv.data())), options);
  EXPECT_TRUE(st.ok()) << st.error;
  return r;
}

TEST(CpuRefDeterminism, ThreadCountDoesNotChangeAnyBit) {
  test::ProblemSpec spec;
  spec.shape = {2, 3, 6, 64, 64, 4, 1};  // 6 heads: uneven over 4 and 5 threads
  spec.seed = 51;
  spec.zero_rows = 0.2;
  spec.padded = true;
  const test::HostProblem p = test::make_problem(spec);
  for (ref::Precision precision : {ref::Precision::fp32, ref::Precision::fp64}) {
    const Outputs one = run(p, {precision, 1});
    for (int threads : {2, 3, 4, 5, 16}) {
      EXPECT_TRUE(run(p, {precision, threads}) == one)
          << "threads=" << threads << " precision=" << (precision == ref::Precision::fp32 ? "fp32" : "fp64");
    }
  }
}

}  // namespace
}  // namespace vsa
