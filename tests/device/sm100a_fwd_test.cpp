// sm100a-blk64 forward against the fp64 naive reference on small cases (docs/spec.md "Forward").
// Skips, with the reason, on every device that is not compute capability 10.0: as of this
// writing it has never run (no Blackwell GPU was available), so these cases are the first
// thing to run on one. Aimed at the kernel's own risks: two q blocks of one CTA with
// different counts (lockstep steps where one block sits out), count 0 next to a full row
// (no barrier wait at all), key-block vbs masking, rings wrapping, x16 inputs, the probe
// variant and run-to-run reproducibility.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "fwd_checks.hpp"
#include "vsa/registry.hpp"

namespace vsa::test::sm100a {
namespace {

using sm90a::expect_matches;
using sm90a::FwdDeviceInputs;
using sm90a::FwdOutputs;
using sm90a::FwdProblem;
using sm90a::FwdSpec;
using sm90a::make_problem;
using sm90a::naive_forward;
using sm90a::run_forward;

class Sm100aForward : public DeviceTest, public ::testing::WithParamInterface<FwdSpec> {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    int device = 0;
    cudaDeviceProp prop{};
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    if (prop.major != 10 || prop.minor != 0)
      GTEST_SKIP() << "sm100a kernels need compute capability 10.0, device is " << prop.major << "." << prop.minor;
    register_sm100a_backends(m_registry);
    m_backend = m_registry.find("sm100a-blk64");
    ASSERT_NE(m_backend, nullptr);
  }
  Registry m_registry;
  Backend* m_backend = nullptr;
};

TEST_P(Sm100aForward, MatchesNaiveReference) {
  const FwdProblem p = make_problem(GetParam());
  FwdDeviceInputs in(p);
  expect_matches(p, run_forward(*m_backend, p, in), naive_forward(p));
}

// Every hand-off delayed: a missing wait or an early release shows up as a mismatch.
TEST_P(Sm100aForward, ProbeVariantMatches) {
  const FwdProblem p = make_problem(GetParam());
  FwdDeviceInputs in(p);
  ProbeDelays probes;
  for (std::size_t i = 0; i < m_backend->probe_points().size(); ++i) probes.nanoseconds[i] = 2000;
  expect_matches(p, run_forward(*m_backend, p, in, probes), naive_forward(p));
}

TEST_P(Sm100aForward, IsBitwiseReproducible) {
  const FwdProblem p = make_problem(GetParam());
  FwdDeviceInputs in(p);
  const FwdOutputs a = run_forward(*m_backend, p, in), b = run_forward(*m_backend, p, in);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(0, std::memcmp(a.lse.data(), b.lse.data(), a.lse.size() * sizeof(float)));
}

std::vector<FwdSpec> forward_cases() {
  std::vector<FwdSpec> c;
  // One CTA: block A attends to one block, block B to nothing.
  c.push_back({"minimal_b1h1_nb2_counts_1_0", 1, 1, 2, 2, 31, 1.0f, {{1}, {}}, {}});
  // Pairs with different counts: (5, 1), (0, 6), (3, 3): lockstep steps where one block
  // sits out, and a pair whose first block has no steps at all.
  c.push_back({"uneven_pairs_b1h1_nb6", 1, 1, 6, 6, 32, 1.0f,
               {{4, 0, 2, 5, 1}, {3}, {}, {0, 1, 2, 3, 4, 5}, {5, 3, 1}, {2, 0, 4}}, {}});
  // Both blocks of a pair empty: the CTA runs no step and must still write O = 0, lse = -inf.
  c.push_back({"empty_pair_b1h2_nb4", 1, 2, 4, 4, 33, 1.0f, {{}, {}, {1, 3}, {2}}, {}});
  // Padded key blocks (vbs 1, 33, 17) and a block with no valid key; masking must use the
  // key block's vbs, not the query block's.
  c.push_back({"padded_vbs_b1h2_nb6", 1, 2, 6, 6, 34, 1.0f,
               {{1}, {4, 1, 2}, {2, 0}, {3, 1, 4, 0, 2}, {}, {5}}, {64, 1, 33, 64, 17, 0}});
  // Random ragged rows, unsorted ids, garbage past the count, B > 1.
  c.push_back({"random_b2h2_nb10", 2, 2, 10, 10, 35, 1.0f, {}, {}});
  // x16 inputs: a pre-scaling or exp2 base bug shows here, not at x1.
  FwdSpec x16{"x16_b1h2_nb8", 1, 2, 8, 8, 36, 16.0f, {}, {}};
  x16.vbs = {64, 64, 40, 64, 64, 64, 9, 64};
  c.push_back(x16);
  // Long rows: the 2-stage K/V ring and the 2 S buffers wrap many times.
  c.push_back({"long_rows_b1h1_nb24", 1, 1, 24, 24, 37, 4.0f, {}, {}});
  // Many CTAs.
  c.push_back({"many_pairs_b2h16_nb12", 2, 16, 12, 4, 38, 1.0f, {}, {}});
  return c;
}

INSTANTIATE_TEST_SUITE_P(Cases, Sm100aForward, ::testing::ValuesIn(forward_cases()),
                         [](const auto& info) { return info.param.name; });

// The module holds sm_100 machine code for both variants and the hot one does not spill.
class Sm100aForwardKernels : public Sm100aForward {};
TEST_F(Sm100aForwardKernels, ReportsLoadedImages) {
  int hot = 0;
  for (const KernelInfo& k : m_backend->kernels()) {
    EXPECT_EQ(k.binary_version, 100) << k.name;
    EXPECT_GT(k.registers, 0) << k.name;
    if (k.hot) {
      ++hot;
      EXPECT_EQ(k.local_bytes, 0u) << k.name << " spills to local memory";
    }
  }
  EXPECT_EQ(hot, 1);
}

}  // namespace
}  // namespace vsa::test::sm100a
