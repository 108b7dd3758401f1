// sm90a / sm90a-det backward against the fp64 naive reference (docs/spec.md "Backward").
// Both sides get the same O, lse (naive forward) and k2q (host inversion), so only
// the backward is compared. Skips with the reason on machines without a CC 9.0 GPU.
// The timing driver (DISABLED_ by default) prints TFLOPS at S = 4096, 16384, 65536, and for
// the deterministic mode also the time of its kv items alone (the split of its two phases):
//   vsa_device_tests --gtest_filter='Sm90aBackwardTiming.*' --gtest_also_run_disabled_tests
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
#include "trace_summary.hpp"
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

// ---- timing driver --------------------------------------------------------------------
// B=1 H=8 D=128, every q block selects S/64/4 distinct random kv blocks (25% density), and
// S/64/8 (12.5%) at S = 4096, where fixed costs weigh most.
// Inputs are random (never zeros); lse is drawn in [8, 12] so P has realistic magnitudes.
// Times the whole backward (Delta, kernels, dQ postprocess) with events: 3 warm-ups,
// 20 timed runs, median. TFLOPS = 2.5 * 4 * D * 64 * 64 * pairs / s (docs/spec.md).
class Sm90aBackwardTiming : public Sm90aTest {};

// One traced launch (the probe variant with no delays, kernels/sm90a/trace.hpp) right after
// a few normal ones, summarised: where the time of the first launch sequence goes, by item
// kind (us from the first consumer start; med over consumer slots or items, max).
void print_backward_trace(const char* label, Backend& backend, const BackwardArgs& a, bool det) {
  int sms = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
  DeviceBuffer<std::uint64_t> trace(std::size_t(sms) * 2 * sm90a::kTraceWords);  // a record per consumer
  trace.fill_bytes(0);
  BackwardArgs traced = a;
  traced.trace = trace.get();
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(ok(backend.backward(a)));
  ASSERT_TRUE(ok(backend.backward(traced)));
  check_cuda(cudaDeviceSynchronize(), "traced backward");
  // The deterministic mode's first launch covers one chunk of heads: its kv item ids.
  const std::int64_t heads = det ? std::min(a.shape.bh(), sm90a::deterministic_backward_heads_per_chunk(a.shape))
                                 : a.shape.bh();
  const sm90a::BwdTraceSummary t = sm90a::summarize_backward_trace(trace.download(), heads * a.shape.num_blocks);
  std::printf(
      "TRACE  %-17s S=%-6d k=%-4d slots %d kv %d q %d | dep %.1f/%.1f arr1 %.1f | kv gemms %.2f epi %.2f | q gemms %.2f "
      "epi %.2f | bound %.2f | kv end %.1f/%.1f q start %.1f/%.1f | done %.1f/%.1f\n",
      label, int(a.shape.seq()), a.shape.max_kv, t.slots, t.kv_items, t.q_items, t.dependency_med_us, t.dependency_max_us,
      t.first_arrival_med_us, t.kv_gemms_med_us, t.kv_epilogue_med_us, t.q_gemms_med_us, t.q_epilogue_med_us,
      t.boundary_med_us, t.kv_last_done_med_us, t.kv_last_done_max_us, t.q_first_arrival_min_us,
      t.q_first_arrival_med_us, t.last_done_med_us, t.last_done_max_us);
  EXPECT_GT(t.kv_items, 0) << "the traced launch stamped nothing";
}

TEST_F(Sm90aBackwardTiming, DISABLED_Tflops) {
  const struct {
    int seq, density_divisor;
  } sizes[] = {{4096, 4}, {4096, 8}, {16384, 4}, {65536, 4}};
  for (const auto& size : sizes) {
    const int seq = size.seq;
    Shape s;
    s.batch = 1;
    s.heads = 8;
    s.num_blocks = seq / 64;
    s.head_dim = 128;
    s.block = 64;
    s.max_kv = s.num_blocks / size.density_divisor;
    std::vector<std::int32_t> q2k_idx(std::size_t(s.q2k_idx_elems())), q2k_num(std::size_t(s.count_elems()), s.max_kv);
    IndexStream rng(seq);
    std::vector<std::int32_t> ids(std::size_t(s.num_blocks));
    std::iota(ids.begin(), ids.end(), 0);
    for (std::int64_t row = 0; row < s.count_elems(); ++row) {
      for (int i = 0; i < s.max_kv; ++i)
        std::swap(ids[std::size_t(i)], ids[std::size_t(i + rng.below(s.num_blocks - i))]);
      std::sort(ids.begin(), ids.begin() + s.max_kv);  // FastVideo's rows are ascending
      std::copy(ids.begin(), ids.begin() + s.max_kv, q2k_idx.begin() + row * s.max_kv);
    }
    const ref::InvertedMap k2q = ref::invert_q2k(s, q2k_idx.data(), q2k_num.data());
    s.max_q = k2q.max_q;
    std::vector<float> lse_host(std::size_t(s.row_elems()));
    for (auto& x : lse_host) x = 8.0f + 4.0f * float(rng.below(1 << 20)) / float(1 << 20);

    const std::size_t n = std::size_t(s.tensor_elems());
    DeviceBuffer<bf16_bits> q(n), k(n), v(n), o(n), d_out(n), dq(n), dk(n), dv(n);
    const struct {
      DeviceBuffer<bf16_bits>* buf;
      TensorId id;
    } inputs[] = {{&q, TensorId::q}, {&k, TensorId::k}, {&v, TensorId::v}, {&d_out, TensorId::d_out}, {&o, TensorId::aux}};
    for (const auto& in : inputs)
      ASSERT_TRUE(ok(device::generate_bf16(in.buf->get(), std::int64_t(n), 7, in.id, 1.0f, nullptr)));
    DeviceBuffer<float> lse(lse_host);
    DeviceBuffer<std::int32_t> dq2k_idx(q2k_idx), dq2k_num(q2k_num), dk2q_idx(k2q.k2q_idx), dk2q_num(k2q.k2q_num),
        vbs(std::vector<std::int32_t>(std::size_t(s.num_blocks), 64));
    const double pairs = double(s.bh()) * s.num_blocks * s.max_kv;
    const double flops = 2.5 * 4.0 * 128 * 64 * 64 * pairs;

    for (bool det : {false, true}) {
      Backend& backend = sm90a_backend(det);
      DeviceBuffer<unsigned char> workspace(backend.workspace_bytes(s, Op::backward));
      BackwardArgs a;
      a.shape = s;
      a.q = q.get();
      a.k = k.get();
      a.v = v.get();
      a.out = o.get();
      a.d_out = d_out.get();
      a.lse = lse.get();
      a.q2k_idx = dq2k_idx.get();
      a.q2k_num = dq2k_num.get();
      a.k2q_idx = dk2q_idx.get();
      a.k2q_num = dk2q_num.get();
      a.vbs = vbs.get();
      a.dq = dq.get();
      a.dk = dk.get();
      a.dv = dv.get();
      a.workspace = workspace.get();
      // The deterministic mode also without its q items: the time of its kv phase (dQ unwritten).
      const auto kv_only = [&] {
        return sm90a::launch_deterministic_backward(a, sm90a::deterministic_backward_heads_per_chunk(s),
                                                    sm90a::DetItems::kv_only);
      };
      const auto whole = [&] { return backend.backward(a); };
      const auto report = [&](const char* label, const auto& launch) {
        for (int i = 0; i < 3; ++i) ASSERT_TRUE(ok(launch()));
        synchronize();
        cudaEvent_t start, stop;
        check_cuda(cudaEventCreate(&start), "cudaEventCreate");
        check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
        std::vector<float> ms;
        for (int i = 0; i < 20; ++i) {
          check_cuda(cudaEventRecord(start), "cudaEventRecord");
          ASSERT_TRUE(ok(launch()));
          check_cuda(cudaEventRecord(stop), "cudaEventRecord");
          check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
          float t = 0;
          check_cuda(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
          ms.push_back(t);
        }
        check_cuda(cudaEventDestroy(start), "cudaEventDestroy");
        check_cuda(cudaEventDestroy(stop), "cudaEventDestroy");
        std::sort(ms.begin(), ms.end());
        const double median = ms[ms.size() / 2];
        std::printf("TIMING %-17s S=%-6d k=%-4d pairs=%-8.0f median %.3f ms (min %.3f max %.3f)  %.1f TFLOPS\n", label, seq,
                    s.max_kv, pairs, median, ms.front(), ms.back(), flops / (median * 1e-3) / 1e12);
      };
      report(det ? "sm90a-det" : "sm90a", whole);
      if (det) report("sm90a-det kv only", kv_only);
      if (seq <= 16384) print_backward_trace(det ? "sm90a-det" : "sm90a", backend, a, det);
      EXPECT_EQ(compare_bf16(dk.download(), dk.download()).non_finite, 0) << "dK";
      EXPECT_EQ(compare_bf16(dq.download(), dq.download()).non_finite, 0) << "dQ (of the whole runs)";
    }
  }
}

}  // namespace
}  // namespace vsa::test
