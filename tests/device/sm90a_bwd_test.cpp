// sm90a / sm90a-det backward against the fp64 naive reference (SPEC.md "Backward").
// Both sides get the same O, lse (naive forward) and k2q (host inversion), so only
// the backward is compared. Skips with the reason on machines without a CC 9.0 GPU.
// The timing driver is tools/sm90a_bwd_timing.cpp.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "bwd_cases.hpp"
#include "bwd_checks.hpp"
#include "launch.hpp"
#include "portable_runs.hpp"

namespace vsa::test {
namespace {

// The sm90a backends, registered once (the registry outlives every test).
Backend& sm90a_backend(bool deterministic) {
  static Registry registry = [] {
    Registry r;
    register_sm90a_backends(r);
    return r;
  }();
  Backend* backend = registry.find(deterministic ? "sm90a-det" : "sm90a");
  if (backend == nullptr) throw std::logic_error("sm90a backends are not registered");
  return *backend;
}

// Skips unless device 0 is compute capability 9.0 (the binary holds only an sm_90a image).
class Sm90aTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    if (prop.major != 9 || prop.minor != 0)
      GTEST_SKIP() << "sm90a needs compute capability 9.0, device 0 is " << prop.major << "." << prop.minor;
  }
};

std::vector<Case> cases() {
  // ProblemSpec: name, B, H, nb, D, BLK, max_kv, seed, input scale, vbs pattern, zero rows.
  return {
      {{"b1h1_nb2_counts_1_0", 1, 1, 2, 128, 64, 1, 21, 1.0f, VbsPattern::full, false}, Rows::minimal_1_0},
      {{"b2h2_nb5_random_vbs", 2, 2, 5, 128, 64, 3, 22, 1.0f, VbsPattern::random, true}, Rows::random},
      {{"b1h3_nb3_tail_x4", 1, 3, 3, 128, 64, 3, 23, 4.0f, VbsPattern::tail_only, true}, Rows::random},
      {{"b2h1_nb7_random_vbs_x16", 2, 1, 7, 128, 64, 4, 24, 16.0f, VbsPattern::random, true}, Rows::random},
      {{"b1h1_nb5_one_kv_each", 1, 1, 5, 128, 64, 1, 25, 1.0f, VbsPattern::full, true}, Rows::random},
      {{"b1h2_nb9_dense_reversed", 1, 2, 9, 128, 64, 9, 26, 1.0f, VbsPattern::tail_only, false}, Rows::dense_reversed},
      {{"b3h1_nb6_dense_x16", 3, 1, 6, 128, 64, 6, 27, 16.0f, VbsPattern::random, false}, Rows::dense_reversed},
      // 432 kv items (864 with q items): several items per persistent CTA, mixed kinds and lengths.
      {{"b3h6_nb24_many_items", 3, 6, 24, 128, 64, 6, 28, 1.0f, VbsPattern::random, true}, Rows::random},
  };
}

struct Param {
  Case c;
  bool deterministic;
};

std::vector<Param> params() {
  std::vector<Param> out;
  for (const Case& c : cases())
    for (bool det : {false, true}) out.push_back({c, det});
  return out;
}

class Sm90aBackward : public Sm90aTest, public ::testing::WithParamInterface<Param> {};

std::string param_name(const Param& p) { return p.c.spec.name + (p.deterministic ? "_det" : "_atomic"); }

TEST_P(Sm90aBackward, MatchesNaiveReference) {
  const Param& prm = GetParam();
  const Problem p = make_case(prm.c);
  const BackwardInputs in = naive_backward_inputs(p);
  const BackwardOutputs want = naive_backward(p, in);
  const BackwardOutputs got = device_backward(sm90a_backend(prm.deterministic), p, DeviceInputs(p), in);
  const std::string name = param_name(prm);
  expect_backward_matches(p, in, got, want, name);
}

// dK and dV are owned by one consumer each: same bits every
// run in both modes. dQ too in the deterministic mode; with atomics it may differ.
TEST_P(Sm90aBackward, IsBitwiseReproducible) {
  const Param& prm = GetParam();
  const Problem p = make_case(prm.c);
  const BackwardInputs in = naive_backward_inputs(p);
  const DeviceInputs dev(p);
  Backend& backend = sm90a_backend(prm.deterministic);
  const BackwardOutputs first = device_backward(backend, p, dev, in);
  for (int run = 0; run < 3; ++run) {
    const BackwardOutputs again = device_backward(backend, p, dev, in);
    EXPECT_EQ(first.dk, again.dk) << "run " << run;
    EXPECT_EQ(first.dv, again.dv) << "run " << run;
    if (prm.deterministic) EXPECT_EQ(first.dq, again.dq) << "run " << run;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Sm90aBackward, ::testing::ValuesIn(params()),
                         [](const auto& info) { return param_name(info.param); });

// The delay-probe variants compute the same function: bitwise for what is deterministic,
// within the reference tolerance for atomic dQ (another summation order).
class Sm90aBackwardProbes : public Sm90aTest, public ::testing::WithParamInterface<bool> {};

TEST_P(Sm90aBackwardProbes, ProbedVariantMatchesNormal) {
  const bool det = GetParam();
  const Problem p = make_case(cases()[5]);
  const BackwardInputs in = naive_backward_inputs(p);
  const DeviceInputs dev(p);
  Backend& backend = sm90a_backend(det);
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
  if (det)
    EXPECT_EQ(probed.dq, normal.dq);
  else
    expect_close(probed.dq, naive_backward(p, in).dq, "dQ", "probed_atomic");
}

INSTANTIATE_TEST_SUITE_P(Modes, Sm90aBackwardProbes, ::testing::Values(false, true),
                         [](const auto& info) { return std::string(info.param ? "det" : "atomic"); });

// The deterministic mode processes heads in chunks when the dS^T tiles would exceed their
// budget (bwd_launch.cu). Chunks of 4 and of 1 (b, h) pairs, on 18 pairs (the last chunk
// short), give the same bits as the whole problem in one launch sequence: every head's
// work is independent and summed in the same order.
TEST_F(Sm90aTest, DeterministicBackwardInChunksMatchesOneLaunch) {
  const Problem p = make_case(cases()[7]);
  const BackwardInputs in = naive_backward_inputs(p);
  const DeviceInputs dev(p);
  const BackwardOutputs whole = device_backward(sm90a_backend(true), p, dev, in);

  const Shape shape = backward_shape(p, in.k2q.max_q);
  for (std::int64_t chunk : {4, 1}) {
    ASSERT_LT(chunk, shape.bh());
    const std::size_t bytes = sm90a::deterministic_backward_workspace_bytes(shape, chunk);
    EXPECT_LT(bytes, sm90a::deterministic_backward_workspace_bytes(shape, shape.bh()));
    BackwardCall call(p, dev, in, bytes);
    ASSERT_TRUE(ok(sm90a::launch_deterministic_backward(call.args, chunk)));
    const BackwardOutputs chunked = call.outputs();
    EXPECT_EQ(chunked.dq, whole.dq) << "chunks of " << chunk;
    EXPECT_EQ(chunked.dk, whole.dk) << "chunks of " << chunk;
    EXPECT_EQ(chunked.dv, whole.dv) << "chunks of " << chunk;
  }
}

}  // namespace
}  // namespace vsa::test
