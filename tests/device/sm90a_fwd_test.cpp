// sm90a forward against the fp64 naive reference on small cases (docs/spec.md "Forward"),
// aimed at the bug classes of docs/spec.md: zero-count rows next to full ones (6, 7),
// padded key blocks and all-padding selections (9), unsorted ids and garbage past the
// count, odd nb, B > 1, x16 inputs (8), many items per persistent CTA, long rows that
// wrap the K/V ring, the delay-probe variant (1, 2) and run-to-run reproducibility.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>

#include "fwd_checks.hpp"
#include "vsa/registry.hpp"

namespace vsa::test::sm90a {
namespace {

class Sm90aForward : public DeviceTest, public ::testing::WithParamInterface<FwdSpec> {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
#if !defined(VSA_HAVE_SM90A)
    GTEST_SKIP() << "built without the sm90a kernels (VSA_BUILD_SM90A=OFF)";
#else
    int device = 0;
    cudaDeviceProp prop{};
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    if (prop.major != 9 || prop.minor != 0)
      GTEST_SKIP() << "sm90a kernels need compute capability 9.0, device is " << prop.major << "." << prop.minor;
    register_sm90a_backends(m_registry);
    m_backend = m_registry.find("sm90a");
    ASSERT_NE(m_backend, nullptr);
#endif
  }
  Registry m_registry;
  Backend* m_backend = nullptr;
};

TEST_P(Sm90aForward, MatchesNaiveReference) {
  const FwdProblem p = make_problem(GetParam());
  FwdDeviceInputs in(p);
  expect_matches(p, run_forward(*m_backend, p, in), naive_forward(p));
}

// Sleeps at the K/V release and before the O copy widen the windows in which a missing
// wait or an early hand-back would let the producer overwrite a tile still being read.
TEST_P(Sm90aForward, ProbeVariantMatches) {
  const FwdProblem p = make_problem(GetParam());
  FwdDeviceInputs in(p);
  ProbeDelays probes;
  probes.nanoseconds[0] = 3000;  // fwd.release_kv
  probes.nanoseconds[1] = 3000;  // fwd.epilogue
  expect_matches(p, run_forward(*m_backend, p, in, probes), naive_forward(p));
}

// Each query block is owned by one warp group with a fixed reduction order.
TEST_P(Sm90aForward, IsBitwiseReproducible) {
  const FwdProblem p = make_problem(GetParam());
  FwdDeviceInputs in(p);
  const FwdOutputs a = run_forward(*m_backend, p, in), b = run_forward(*m_backend, p, in);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(0, std::memcmp(a.lse.data(), b.lse.data(), a.lse.size() * sizeof(float)));
}

std::vector<FwdSpec> forward_cases() {
  std::vector<FwdSpec> c;
  // The smallest problem: one block attends to one block, its neighbour to nothing.
  c.push_back({"minimal_b1h1_nb2_counts_1_0", 1, 1, 2, 2, 21, 1.0f, {{1}, {}}, {}});
  // Count-0 rows between full rows, processed by neighbouring warp groups.
  c.push_back({"zero_rows_next_to_full_b1h2_nb6", 1, 2, 6, 6, 22, 1.0f,
               {{5, 0, 3, 1, 4, 2}, {}, {2, 4, 0, 5, 1, 3}, {}, {3}, {0, 1, 2, 3, 4, 5}}, {}});
  // Padded key blocks: vbs 1 (one valid key), 33, 17; a row that selects only the vbs-1
  // block; masking must use the key block's vbs, not the query block's.
  c.push_back({"padded_vbs_b1h2_nb5", 1, 2, 5, 5, 23, 1.0f, {{1}, {4, 1, 2}, {2, 0}, {3, 1, 4, 0, 2}, {}},
               {64, 1, 33, 64, 17}});
  // Blocks with no valid key at all: a row selecting only those behaves like an empty row.
  c.push_back({"all_padding_selection_b1h1_nb4", 1, 1, 4, 3, 24, 1.0f, {{2}, {2, 0}, {0, 2}, {1}}, {64, 64, 0, 5}});
  // Random ragged rows, unsorted ids, garbage past the count, odd nb, B > 1.
  c.push_back({"random_b2h2_nb9", 2, 2, 9, 9, 25, 1.0f, {}, {}});
  // Large inputs (x16): a pre-scaling or exp2 base bug shows here, not at x1.
  FwdSpec x16{"x16_b1h2_nb7", 1, 2, 7, 7, 26, 16.0f, {}, {}};
  x16.vbs = {64, 64, 40, 64, 64, 64, 9};
  c.push_back(x16);
  // More items than the grid has warp groups: every slot loops over several items.
  c.push_back({"many_items_b2h24_nb12", 2, 24, 12, 3, 27, 1.0f, {}, {}});
  // Long rows: the 3-stage ring wraps many times within one item.
  c.push_back({"long_rows_b1h1_nb24", 1, 1, 24, 24, 28, 4.0f, {}, {}});
  return c;
}

INSTANTIATE_TEST_SUITE_P(Cases, Sm90aForward, ::testing::ValuesIn(forward_cases()),
                         [](const auto& info) { return info.param.name; });

// The module really holds sm_90 machine code for the forward kernels, and the hot ones
// keep everything in registers (an empty or spilling image fails here, not in timing).
class Sm90aForwardKernels : public Sm90aForward {};
TEST_F(Sm90aForwardKernels, ReportsLoadedImages) {
  int hot = 0;
  for (const KernelInfo& k : m_backend->kernels()) {
    if (k.name.rfind("sm90a.fwd", 0) != 0) continue;
    EXPECT_EQ(k.binary_version, 90) << k.name;
    EXPECT_GT(k.registers, 0) << k.name;
    if (k.hot) {
      ++hot;
      EXPECT_EQ(k.local_bytes, 0u) << k.name << " spills to local memory";
    }
  }
  EXPECT_GE(hot, 1);
}

}  // namespace
}  // namespace vsa::test::sm90a
