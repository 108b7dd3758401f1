// sm100a-blk64 backward against the fp64 naive reference on small cases (SPEC.md "Backward").
// Both sides get the same O, lse (naive forward) and k2q (host inversion), so only the
// backward is compared. Skips, with the reason, on every device that is not compute
// capability 10.0: as of this writing it has never run (no Blackwell GPU was available), so
// these cases are the first thing to run on one. Aimed at the kernel's own risks: M = 64
// accumulators in TMEM layout F, the MN-major dS^T operand of dQ = dS K, kv blocks nobody
// selects (exact-zero dK/dV, no barrier touched), padded keys, k2q rows longer than the
// Q/dO ring, the longest-first order from 1024 kv items on, the probe variant, and
// run-to-run reproducibility of dK and dV.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bwd_cases.hpp"
#include "bwd_checks.hpp"
#include "portable_runs.hpp"

namespace vsa::test {
namespace {

Backend& sm100a_backend() {
  static Registry registry = [] {
    Registry r;
    register_sm100a_backends(r);
    return r;
  }();
  Backend* backend = registry.find("sm100a-blk64");
  if (backend == nullptr) throw std::logic_error("sm100a-blk64 is not registered");
  return *backend;
}

// Skips unless device 0 is compute capability 10.0 (the binary holds only an sm_100a image).
class Sm100aBwdTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    if (prop.major != 10 || prop.minor != 0)
      GTEST_SKIP() << "sm100a kernels need compute capability 10.0, device 0 is " << prop.major << "." << prop.minor;
  }
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.spec.name; }

std::vector<Case> cases() {
  // ProblemSpec: name, B, H, nb, D, BLK, max_kv, seed, input scale, vbs pattern, zero rows.
  return {
      {{"b1h1_nb2_counts_1_0", 1, 1, 2, 128, 64, 1, 41, 1.0f, VbsPattern::full, false}, Rows::minimal_1_0},
      {{"b2h2_nb5_random_vbs", 2, 2, 5, 128, 64, 3, 42, 1.0f, VbsPattern::random, true}, Rows::random},
      {{"b1h3_nb3_tail_x4", 1, 3, 3, 128, 64, 3, 43, 4.0f, VbsPattern::tail_only, true}, Rows::random},
      {{"b2h1_nb7_random_vbs_x16", 2, 1, 7, 128, 64, 4, 44, 16.0f, VbsPattern::random, true}, Rows::random},
      // k2q rows of 9 entries: the 3-stage Q/dO ring and the 2 P^T/dS^T buffers wrap several times.
      {{"b1h2_nb9_dense_reversed", 1, 2, 9, 128, 64, 9, 45, 1.0f, VbsPattern::tail_only, false}, Rows::dense_reversed},
      {{"b3h1_nb6_dense_x16", 3, 1, 6, 128, 64, 6, 46, 16.0f, VbsPattern::random, false}, Rows::dense_reversed},
      {{"b3h6_nb24_many_items", 3, 6, 24, 128, 64, 6, 47, 1.0f, VbsPattern::random, true}, Rows::random},
      // 1024 kv items: the grid walks the device-sorted longest-first order.
      {{"b1h16_nb64_ordered", 1, 16, 64, 128, 64, 3, 48, 1.0f, VbsPattern::random, true}, Rows::random},
  };
}

class Sm100aBackward : public Sm100aBwdTest, public ::testing::WithParamInterface<Case> {};

TEST_P(Sm100aBackward, MatchesNaiveReference) {
  const Problem p = make_case(GetParam());
  const BackwardInputs in = naive_backward_inputs(p);
  const BackwardOutputs want = naive_backward(p, in);
  const BackwardOutputs got = device_backward(sm100a_backend(), p, DeviceInputs(p), in);
  const std::string& name = GetParam().spec.name;
  expect_backward_matches(p, in, got, want, name);
}

// dK and dV are owned by one CTA each: same bits every run. dQ is reduce-added in CTA
// completion order and may differ (nondeterministic_outputs() says so).
TEST_P(Sm100aBackward, DkDvAreBitwiseReproducible) {
  const Problem p = make_case(GetParam());
  const BackwardInputs in = naive_backward_inputs(p);
  const DeviceInputs dev(p);
  const BackwardOutputs first = device_backward(sm100a_backend(), p, dev, in);
  for (int run = 0; run < 3; ++run) {
    const BackwardOutputs again = device_backward(sm100a_backend(), p, dev, in);
    EXPECT_EQ(first.dk, again.dk) << "run " << run;
    EXPECT_EQ(first.dv, again.dv) << "run " << run;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Sm100aBackward, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.spec.name; });

// Every backward hand-off delayed by 3 us: dK, dV bitwise equal to the normal variant, dQ
// within the reference tolerance (another summation order).
class Sm100aBackwardProbes : public Sm100aBwdTest, public ::testing::WithParamInterface<int> {};

TEST_P(Sm100aBackwardProbes, ProbedVariantMatchesNormal) {
  const Problem p = make_case(cases()[std::size_t(GetParam())]);
  const BackwardInputs in = naive_backward_inputs(p);
  const DeviceInputs dev(p);
  Backend& backend = sm100a_backend();
  const BackwardOutputs normal = device_backward(backend, p, dev, in);

  BackwardCall call(p, dev, in, backend.workspace_bytes(backward_shape(p, in.k2q.max_q), Op::backward));
  BackwardArgs& a = call.args;
  const auto names = backend.probe_points();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i].rfind("bwd.", 0) == 0) a.probes.nanoseconds[i] = 3000;
  ASSERT_TRUE(a.probes.any());
  ASSERT_TRUE(ok(backend.backward(a)));
  const BackwardOutputs probed = call.outputs();
  EXPECT_EQ(probed.dk, normal.dk);
  EXPECT_EQ(probed.dv, normal.dv);
  expect_close(probed.dq, naive_backward(p, in).dq, "dQ", "probed_" + cases()[std::size_t(GetParam())].spec.name);
}

// The seed's experiment (issue 18, finding 4): some dsoftmax warps (2, 3) and some
// dq_reduce warps (5, 6) late between their full-barrier wait and the read it guards,
// while the others release and the MMA warp goes on: the outputs must not change.
TEST_P(Sm100aBackwardProbes, WarpMaskedReadProbesMatchNormal) {
  const Problem p = make_case(cases()[std::size_t(GetParam())]);
  const BackwardInputs in = naive_backward_inputs(p);
  const DeviceInputs dev(p);
  Backend& backend = sm100a_backend();
  ASSERT_TRUE(backend.probe_warp_masks());
  const BackwardOutputs normal = device_backward(backend, p, dev, in);

  BackwardCall call(p, dev, in, backend.workspace_bytes(backward_shape(p, in.k2q.max_q), Op::backward));
  BackwardArgs& a = call.args;
  const auto names = backend.probe_points();
  int set = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "bwd.read_st") a.probes.warps[i] = 0b1100u;
    if (names[i] == "bwd.read_dq") a.probes.warps[i] = 0b1100000u;
    if (a.probes.warps[i] != 0) {
      a.probes.nanoseconds[i] = 20000;
      ++set;
    }
  }
  ASSERT_EQ(set, 2);
  ASSERT_TRUE(ok(backend.backward(a)));
  const BackwardOutputs probed = call.outputs();
  EXPECT_EQ(probed.dk, normal.dk);
  EXPECT_EQ(probed.dv, normal.dv);
  expect_close(probed.dq, naive_backward(p, in).dq, "dQ", "masked_" + cases()[std::size_t(GetParam())].spec.name);
}

// The dense case (long k2q rows) and the many-items case.
INSTANTIATE_TEST_SUITE_P(Cases, Sm100aBackwardProbes, ::testing::Values(4, 6),
                         [](const auto& info) { return cases()[std::size_t(info.param)].spec.name; });

// The module holds sm_100 machine code for both backward variants and the hot one does not spill.
class Sm100aBackwardKernels : public Sm100aBwdTest {};
TEST_F(Sm100aBackwardKernels, ReportsLoadedImages) {
  int hot = 0;
  for (const KernelInfo& k : sm100a_backend().kernels()) {
    if (k.name.rfind("sm100a.bwd", 0) != 0) continue;
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
}  // namespace vsa::test
