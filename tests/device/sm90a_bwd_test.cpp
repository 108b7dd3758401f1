// sm90a-det internals that the backend conformance suite (conformance_test.cpp: accuracy,
// probe variants, reproducibility, two streams) does not reach: the chunked launch of the
// deterministic backward. Skips with the reason on machines without a CC 9.0 GPU.
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

// 432 kv items (864 with q items) in 18 heads: several items per persistent CTA.
Case many_items_case() {
  // ProblemSpec: name, B, H, nb, D, BLK, max_kv, seed, input scale, vbs pattern, zero rows.
  return {{"b3h6_nb24_many_items", 3, 6, 24, 128, 64, 6, 28, 1.0f, VbsPattern::random, true}, Rows::random};
}

// The deterministic mode processes heads in chunks when the dS^T tiles would exceed their
// budget (bwd_launch.cu). Chunks of 4 and of 1 (b, h) pairs, on 18 pairs (the last chunk
// short), give the same bits as the whole problem in one launch sequence: every head's
// work is independent and summed in the same order.
TEST_F(Sm90aTest, DeterministicBackwardInChunksMatchesOneLaunch) {
  const Problem p = make_case(many_items_case());
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
