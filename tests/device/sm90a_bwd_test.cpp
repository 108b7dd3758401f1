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

// That case on the device, with the deterministic backend's gradients from one launch sequence.
struct ManyItems {
  Problem p = make_case(many_items_case());
  BackwardInputs in = naive_backward_inputs(p);
  DeviceInputs dev{p};
  BackwardOutputs whole = device_backward(sm90a_backend(true), p, dev, in);
  Shape shape = backward_shape(p, in.k2q.max_q);
};

void expect_same_bits(const BackwardOutputs& got, const BackwardOutputs& want, const std::string& what) {
  EXPECT_EQ(got.dq, want.dq) << what;
  EXPECT_EQ(got.dk, want.dk) << what;
  EXPECT_EQ(got.dv, want.dv) << what;
}

// The deterministic mode processes heads in chunks when the dS^T tiles would exceed their
// budget (bwd_launch.cu). Chunks of 4 and of 1 (b, h) pairs, on 18 pairs (the last chunk
// short), give the same bits as the whole problem in one launch sequence: every head's
// work is independent and summed in the same order.
TEST_F(Sm90aTest, DeterministicBackwardInChunksMatchesOneLaunch) {
  const ManyItems m;
  for (std::int64_t chunk : {4, 1}) {
    ASSERT_LT(chunk, m.shape.bh());
    const std::size_t bytes = sm90a::deterministic_backward_workspace_bytes(m.shape, chunk);
    EXPECT_LT(bytes, sm90a::deterministic_backward_workspace_bytes(m.shape, m.shape.bh()));
    BackwardCall call(m.p, m.dev, m.in, bytes);
    ASSERT_TRUE(ok(sm90a::launch_deterministic_backward(call.args, chunk)));
    expect_same_bits(call.outputs(), m.whole, "chunks of " + std::to_string(chunk));
  }
}

// A timeline alone runs the trace-only variant (the normal code plus stamps): the same bits as
// the untraced launch, and a stamp for every kv and q item (the deterministic mode: kv items,
// then q items, one of each per (b, h, block)).
TEST_F(Sm90aTest, DeterministicBackwardTraceOnlyGivesTheSameBitsAndStampsEveryItem) {
  const ManyItems m;
  int sms = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
  DeviceBuffer<std::uint64_t> trace(sm90a::trace_buffer_words(sms, sm90a::kBackwardTraceSlotsPerCta));
  trace.fill_bytes(0);
  BackwardCall call(m.p, m.dev, m.in, sm90a::deterministic_backward_workspace_bytes(m.shape, m.shape.bh()));
  call.args.trace = trace.get();
  ASSERT_TRUE(ok(sm90a::launch_deterministic_backward(call.args, m.shape.bh())));
  expect_same_bits(call.outputs(), m.whole, "traced");

  const std::int64_t items = m.shape.bh() * m.shape.num_blocks;  // 432 kv items, 432 q items
  const std::vector<std::uint64_t> words = trace.download();
  const sm90a::BwdTraceSummary t = sm90a::summarize_backward_trace(words, items);
  EXPECT_GT(t.slots, 0);
  EXPECT_GT(t.last_done_max_us, 0.0);
  // A slot stamps its first kTraceItems items only. Items are fetched at run time, so one slot
  // may take more than that (864 items over 264 slots on an H100 or H200, about 3.3 each): then
  // only an upper bound holds.
  int fullest = 0;
  for (std::size_t slot = 0; slot < words.size() / sm90a::kTraceWords; ++slot) {
    int n = 0;
    while (n < sm90a::kTraceItems && words[slot * sm90a::kTraceWords + 2 * sm90a::trace_item_stamp(n, 0)] != 0) ++n;
    fullest = std::max(fullest, n);
  }
  if (fullest < sm90a::kTraceItems) {
    EXPECT_EQ(t.kv_items, items);
    EXPECT_EQ(t.q_items, items);
  } else {
    EXPECT_LE(t.kv_items, items);
    EXPECT_LE(t.q_items, items);
  }
}

}  // namespace
}  // namespace vsa::test
