// The device path of the backward inputs: k2q from kernels/common's inversion gives cuda-ref
// the same gradients, bit for bit, as the host inversion. (Accuracy, reproducibility and the
// probe variants of every backend: conformance_test.cpp.)
#include <gtest/gtest.h>

#include "portable_runs.hpp"

namespace vsa::test {
namespace {

class PortableBackward : public DeviceTest, public ::testing::WithParamInterface<ProblemSpec> {};

TEST_P(PortableBackward, DeviceInversionGivesTheSameGradients) {
  const Problem p = make_problem(GetParam());
  const BackwardInputs in = naive_backward_inputs(p);
  const DeviceInputs dev(p);
  Shape s = p.shape;
  s.max_q = in.k2q.max_q;
  DeviceBuffer<std::int32_t> k2q_idx(std::size_t(s.k2q_idx_elems())), k2q_num(std::size_t(s.count_elems()));
  ASSERT_TRUE(ok(device::invert_q2k(s, dev.q2k_idx.get(), dev.q2k_num.get(), k2q_idx.get(), k2q_num.get(), nullptr)));
  const BackwardOutputs with_device =
      device_backward(cuda_ref_backend(), p, dev, in, k2q_idx.get(), k2q_num.get(), s.max_q);
  const BackwardOutputs with_host = device_backward(cuda_ref_backend(), p, dev, in);
  EXPECT_EQ(with_device.dq, with_host.dq);
  EXPECT_EQ(with_device.dk, with_host.dk);
  EXPECT_EQ(with_device.dv, with_host.dv);
}

INSTANTIATE_TEST_SUITE_P(Cases, PortableBackward, ::testing::ValuesIn(attention_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace vsa::test
