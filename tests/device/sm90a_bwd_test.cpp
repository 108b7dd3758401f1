// sm90a-det internals that the backend conformance suite (conformance_test.cpp: accuracy,
// probe variants, reproducibility, two streams) does not reach: the chunked launch of the
// deterministic backward, and its trace-only variant (variant.hpp). Skips with the reason on
// machines without a CC 9.0 GPU.
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
#include "trace.hpp"
#include "trace_summary.hpp"

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

// A timeline alone runs the trace-only variant (the normal code plus stamps): the same bits as
// the untraced launch, and a stamp for every kv and q item (the deterministic mode: kv items,
// then q items, one of each per (b, h, block)).
TEST_F(Sm90aTest, DeterministicBackwardTraceOnlyGivesTheSameBitsAndStampsEveryItem) {
  const Problem p = make_case(many_items_case());
  const BackwardInputs in = naive_backward_inputs(p);
  const DeviceInputs dev(p);
  const BackwardOutputs plain = device_backward(sm90a_backend(true), p, dev, in);

  const Shape shape = backward_shape(p, in.k2q.max_q);
  int sms = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
  DeviceBuffer<std::uint64_t> trace(std::size_t(sms) * 2 * sm90a::kTraceWords);  // a record per consumer
  trace.fill_bytes(0);
  BackwardCall call(p, dev, in, sm90a::deterministic_backward_workspace_bytes(shape, shape.bh()));
  call.args.trace = trace.get();
  ASSERT_TRUE(ok(sm90a::launch_deterministic_backward(call.args, shape.bh())));
  const BackwardOutputs traced = call.outputs();
  EXPECT_EQ(traced.dq, plain.dq);
  EXPECT_EQ(traced.dk, plain.dk);
  EXPECT_EQ(traced.dv, plain.dv);

  const std::int64_t items = shape.bh() * shape.num_blocks;  // 432 kv items, 432 q items
  const sm90a::BwdTraceSummary t = sm90a::summarize_backward_trace(trace.download(), items);
  EXPECT_GT(t.slots, 0);
  // Each slot stamps its first kTraceItems items; 864 items over the slots fit that many.
  ASSERT_LE(2 * items, std::int64_t(t.slots) * sm90a::kTraceItems);
  EXPECT_EQ(t.kv_items, items);
  EXPECT_EQ(t.q_items, items);
  EXPECT_GT(t.last_done_max_us, 0.0);
}

}  // namespace
}  // namespace vsa::test
