// cuda-ref backward against the fp64 naive reference on small cases (docs/spec.md "Backward").
// Both get the same O, lse (from the naive forward) and k2q (host inversion), so only
// the backward math is compared.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bwd_checks.hpp"
#include "portable_runs.hpp"

namespace vsa::test {
namespace {

constexpr double kRelMax = 1e-2;  // see portable_forward_test.cpp
constexpr double kRelL2 = 5e-3;

class PortableBackward : public DeviceTest, public ::testing::WithParamInterface<ProblemSpec> {};

// cuda-ref's own, tighter rel_l2 (fp32 throughout), recorded as test properties.
void expect_ref_close(const std::vector<bf16_bits>& got, const std::vector<bf16_bits>& want, const char* what) {
  EXPECT_EQ(count_bits(got, kPoisonBf16), 0) << what << " elements never written";
  const ErrorMetrics m = compare_bf16(got, want);
  EXPECT_EQ(m.non_finite, 0) << what;
  EXPECT_LT(m.rel_max, kRelMax) << what;
  EXPECT_LT(m.rel_l2, kRelL2) << what;
  ::testing::Test::RecordProperty(std::string(what) + "_rel_max", std::to_string(m.rel_max));
}


TEST_P(PortableBackward, MatchesNaiveReference) {
  const Problem p = make_problem(GetParam());
  const BackwardInputs in = naive_backward_inputs(p);
  const BackwardOutputs want = naive_backward(p, in);
  const BackwardOutputs got = device_backward(cuda_ref_backend(), p, DeviceInputs(p), in);
  expect_ref_close(got.dq, want.dq, "dQ");
  expect_ref_close(got.dk, want.dk, "dK");
  expect_ref_close(got.dv, want.dv, "dV");

  expect_exact_zeros(p, in, got);
}

TEST_P(PortableBackward, IsBitwiseReproducible) {
  const Problem p = make_problem(GetParam());
  const BackwardInputs in = naive_backward_inputs(p);
  const DeviceInputs dev(p);
  const BackwardOutputs a = device_backward(cuda_ref_backend(), p, dev, in);
  const BackwardOutputs b = device_backward(cuda_ref_backend(), p, dev, in);
  EXPECT_EQ(a.dq, b.dq);
  EXPECT_EQ(a.dk, b.dk);
  EXPECT_EQ(a.dv, b.dv);
}

// The whole device path: k2q from kernels/common's inversion gives the same bits as the host one.
TEST_P(PortableBackward, DeviceInversionGivesTheSameGradients) {
  const Problem p = make_problem(GetParam());
  const BackwardInputs in = naive_backward_inputs(p);
  const DeviceInputs dev(p);
  Shape s = p.shape;
  s.max_q = in.k2q.max_q;
  DeviceBuffer<std::int32_t> k2q_idx(std::size_t(s.k2q_idx_elems())), k2q_num(std::size_t(s.count_elems()));
  ASSERT_TRUE(ok(device::invert_q2k(s, dev.q2k_idx.get(), dev.q2k_num.get(), k2q_idx.get(), k2q_num.get(), nullptr)));
  const BackwardOutputs with_device = device_backward(cuda_ref_backend(), p, dev, in, k2q_idx.get(), k2q_num.get(),
                                                      s.max_q);
  const BackwardOutputs with_host = device_backward(cuda_ref_backend(), p, dev, in);
  EXPECT_EQ(with_device.dq, with_host.dq);
  EXPECT_EQ(with_device.dk, with_host.dk);
  EXPECT_EQ(with_device.dv, with_host.dv);
}

INSTANTIATE_TEST_SUITE_P(Cases, PortableBackward, ::testing::ValuesIn(attention_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace vsa::test
