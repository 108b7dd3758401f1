// The host backends as the harness sees them: registration, supports() decided
// from the shape alone, results equal to the library calls, errors as Status.
#include <gtest/gtest.h>

#include <vector>

#include "cpu_reference.hpp"
#include "test_problems.hpp"
#include "vsa/registry.hpp"

namespace vsa {
namespace {

Registry cpu_registry() {
  Registry r;
  register_cpu_backends(r);
  return r;
}

TEST(CpuBackends, RegistersCpuRefAndCpuNaiveOnHostMemory) {
  const Registry r = cpu_registry();
  for (const char* name : {"cpu-ref", "cpu-naive"}) {
    Backend* b = r.find(name);
    ASSERT_NE(b, nullptr) << name;
    EXPECT_EQ(b->memory(), Memory::host);
    EXPECT_TRUE(b->has_op(Op::forward));
    EXPECT_TRUE(b->has_op(Op::backward));
    EXPECT_TRUE(b->nondeterministic_outputs().empty());
  }
}

TEST(CpuBackends, SupportsDependsOnTheShapeOnly) {
  const Registry r = cpu_registry();
  const DeviceInfo no_gpu;
  const Shape tiny{1, 1, 4, 40, 16, 2, 2};
  // S = 32768, H = 16, all blocks selected: far too much for fp64 loops, fine for cpu-ref.
  const Shape big{1, 16, 512, 128, 64, 512, 512};
  for (Op op : {Op::forward, Op::backward}) {
    EXPECT_TRUE(r.find("cpu-ref")->supports(no_gpu, tiny, op).ok);
    EXPECT_TRUE(r.find("cpu-ref")->supports(no_gpu, big, op).ok);
    EXPECT_TRUE(r.find("cpu-naive")->supports(no_gpu, tiny, op).ok);
    const Support naive_big = r.find("cpu-naive")->supports(no_gpu, big, op);
    EXPECT_FALSE(naive_big.ok);
    EXPECT_FALSE(naive_big.reason.empty());
  }
  const Shape broken{1, 1, 0, 64, 64, 1, 1};
  const Support s = r.find("cpu-ref")->supports(no_gpu, broken, Op::forward);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("nb=0"), std::string::npos) << s.reason;
}

TEST(CpuBackends, RunAndMatchTheLibraryAndEachOther) {
  test::ProblemSpec spec;
  spec.shape = {1, 2, 3, 64, 32, 2, 1};
  spec.seed = 71;
  spec.padded = true;
  const test::HostProblem p = test::make_problem(spec);
  const auto n = std::size_t(p.tensor_elems());
  const Registry r = cpu_registry();

  std::vector<bf16_bits> out(n), out_lib(n), out_naive(n);
  std::vector<float> lse(std::size_t(p.row_elems())), lse_lib(lse.size()), lse_naive(lse.size());
  Status st = r.find("cpu-ref")->forward(p.forward_args(out.data(), lse.data()));
  ASSERT_TRUE(st.ok()) << st.error;
  ASSERT_TRUE(ref::forward(ref::tensors_of(p.forward_args(out_lib.data(), lse_lib.data()))).ok());
  EXPECT_EQ(out, out_lib);
  st = r.find("cpu-naive")->forward(p.forward_args(out_naive.data(), lse_naive.data()));
  ASSERT_TRUE(st.ok()) << st.error;

  std::vector<bf16_bits> dq(n), dk(n), dv(n), dq_n(n), dk_n(n), dv_n(n);
  st = r.find("cpu-ref")->backward(p.backward_args(out.data(), lse.data(), dq.data(), dk.data(), dv.data()));
  ASSERT_TRUE(st.ok()) << st.error;
  st = r.find("cpu-naive")->backward(p.backward_args(out.data(), lse.data(), dq_n.data(), dk_n.data(), dv_n.data()));
  ASSERT_TRUE(st.ok()) << st.error;
  // Coarse agreement only (the tight comparison is reference_cpu_test.cpp): a few bf16 ulps.
  const auto close = [](const std::vector<bf16_bits>& a, const std::vector<bf16_bits>& b) {
    double diff = 0, mag = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      diff = std::max(diff, double(std::fabs(bf16_to_float(a[i]) - bf16_to_float(b[i]))));
      mag = std::max(mag, double(std::fabs(bf16_to_float(b[i]))));
    }
    return diff <= 1e-2 * mag;
  };
  EXPECT_TRUE(close(out, out_naive));
  EXPECT_TRUE(close(dq, dq_n));
  EXPECT_TRUE(close(dk, dk_n));
  EXPECT_TRUE(close(dv, dv_n));
}

TEST(CpuBackends, FailuresComeBackAsStatus) {
  test::ProblemSpec spec;
  spec.shape = {1, 1, 3, 16, 16, 2, 1};
  test::HostProblem p = test::make_problem(spec);
  p.q2k_idx[0] = -3;  // the first entry of row 0 is always valid (count >= 1)
  std::vector<bf16_bits> out(std::size_t(p.tensor_elems()));
  std::vector<float> lse(std::size_t(p.row_elems()));
  const Registry r = cpu_registry();
  for (const char* name : {"cpu-ref", "cpu-naive"}) {
    const Status st = r.find(name)->forward(p.forward_args(out.data(), lse.data()));
    EXPECT_FALSE(st.ok()) << name;
    EXPECT_NE(st.error.find("q2k_idx"), std::string::npos) << name << ": " << st.error;
  }
  p = test::make_problem(spec);
  ForwardArgs probed = p.forward_args(out.data(), lse.data());
  probed.probes.nanoseconds[0] = 100;
  EXPECT_FALSE(r.find("cpu-ref")->forward(probed).ok());
}

}  // namespace
}  // namespace vsa
