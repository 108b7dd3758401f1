// Timing driver for the sm90a backward (a tool, not a test: build/tools/sm90a_bwd_timing,
// run by scripts/device/trace.sh). Prints TFLOPS at S = 4096, 16384, 65536, and for the
// deterministic mode also the time of its kv items alone (the split of its two phases), and up to
// S = 16384 the traced launch's time and its timeline; TIMING and TRACE lines, which trace.sh
// collects.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver_checks.hpp"
#include "event_timer.hpp"
#include "launch.hpp"
#include "portable_runs.hpp"
#include "trace_summary.hpp"

namespace vsa::test {
namespace {

// The sm90a backends, registered once (the registry outlives every run).
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

// Why device 0 cannot run the sm90a kernels (the binary holds only an sm_90a image), or empty.
std::string skip_reason() {
  if (!cuda_device_present()) return "no CUDA device";
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  if (prop.major != 9 || prop.minor != 0)
    return "sm90a needs compute capability 9.0, device 0 is " + std::to_string(prop.major) + "." +
           std::to_string(prop.minor);
  return "";
}

// B=1 H=8 D=128, every q block selects S/64/4 distinct random kv blocks (25% density), and
// S/64/8 (12.5%) at S = 4096, where fixed costs weigh most.
// Inputs are random (never zeros); lse is drawn in [8, 12] so P has realistic magnitudes.
// Times the whole backward (Delta, kernels, dQ postprocess) with events, in batches of back-to-
// back launches (event_timer.hpp's time_launches: 5 warm-ups, 20 batches of 10, the median of
// the batches' per-launch times; min and max are batch means). Before run 59 each launch was
// timed alone, 20 in a row. TFLOPS = 2.5 * 4 * D * 64 * 64 * pairs / s (SPEC.md).

// One traced launch (the trace-only variant: the normal code plus stamps, kernels/sm90a/variant.hpp) right after
// a few normal ones, summarised: where the time of the first launch sequence goes, by item
// kind (us from the first consumer start; med over consumer slots or items, max).
int sm_count() {
  int sms = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
  return sms;
}

void print_backward_trace(const char* label, Backend& backend, const BackwardArgs& a, bool det) {
  DeviceBuffer<std::uint64_t> trace(sm90a::trace_buffer_words(sm_count(), sm90a::kBackwardTraceSlotsPerCta));
  trace.fill_bytes(0);
  BackwardArgs traced = a;
  traced.trace = trace.get();
  for (int i = 0; i < 4; ++i) tools::require(backend.backward(a), "backward");
  tools::require(backend.backward(traced), "traced backward");
  check_cuda(cudaDeviceSynchronize(), "traced backward");
  // The deterministic mode's first launch covers one chunk of heads: its kv item ids.
  const std::int64_t heads =
      det ? std::min(a.shape.bh(), sm90a::deterministic_backward_heads_per_chunk(a.shape)) : a.shape.bh();
  const sm90a::BwdTraceSummary t = sm90a::summarize_backward_trace(trace.download(), heads * a.shape.num_blocks);
  std::printf(
      "TRACE  %-17s S=%-6d k=%-4d slots %d kv %d q %d | dep %.1f/%.1f arr1 %.1f | kv gemms %.2f epi %.2f | q gemms "
      "%.2f "
      "epi %.2f | bound %.2f | kv end %.1f/%.1f q start %.1f/%.1f | done %.1f/%.1f\n",
      label, int(a.shape.seq()), a.shape.max_kv, t.slots, t.kv_items, t.q_items, t.dependency_med_us,
      t.dependency_max_us, t.first_arrival_med_us, t.kv_gemms_med_us, t.kv_epilogue_med_us, t.q_gemms_med_us,
      t.q_epilogue_med_us, t.boundary_med_us, t.kv_last_done_med_us, t.kv_last_done_max_us, t.q_first_arrival_min_us,
      t.q_first_arrival_med_us, t.last_done_med_us, t.last_done_max_us);
  tools::expect(t.kv_items > 0, "the traced launch stamped nothing");
}

void run() {
  const struct { int seq, density_divisor; } sizes[] = {{4096, 4}, {4096, 8}, {16384, 4}, {65536, 4}};
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
    } inputs[] = {
        {&q, TensorId::q}, {&k, TensorId::k}, {&v, TensorId::v}, {&d_out, TensorId::d_out}, {&o, TensorId::aux}};
    for (const auto& in : inputs)
      tools::require(device::generate_bf16(in.buf->get(), std::int64_t(n), 7, in.id, 1.0f, nullptr), "generate");
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
      const auto print_timing = [&](const char* label, const std::vector<float>& ms) {  // sorted
        const double median = ms[ms.size() / 2];
        std::printf("TIMING %-17s S=%-6d k=%-4d pairs=%-8.0f median %.4f ms (min %.4f max %.4f)  %.1f TFLOPS\n", label,
                    seq, s.max_kv, pairs, median, ms.front(), ms.back(), flops / (median * 1e-3) / 1e12);
      };
      const char* whole_label = det ? "sm90a-det" : "sm90a";
      if (seq <= 16384) {
        // The traced launch against the untraced one: their ratio is the stamps' cost, so the
        // timeline below is known to describe the timed kernel (run 56b, run 58). Timed in turns,
        // so a clock that drifts under the power cap moves both alike (run 59). The det mode
        // records its first chunk of heads only (bwd_launch.cu), so where it runs in several
        // chunks the ratio holds the untraced chunks too and understates the cost.
        DeviceBuffer<std::uint64_t> words(sm90a::trace_buffer_words(sm_count(), sm90a::kBackwardTraceSlotsPerCta));
        BackwardArgs traced = a;
        traced.trace = words.get();
        const auto traced_launch = [&] { return backend.backward(traced); };
        const std::vector<std::vector<float>> ms = time_launches_in_turn({whole, traced_launch}, nullptr);
        print_timing(whole_label, ms[0]);
        print_timing(det ? "sm90a-det traced" : "sm90a traced", ms[1]);
        print_backward_trace(whole_label, backend, a, det);
      } else {
        print_timing(whole_label, time_launches(whole, nullptr));
      }
      if (det) print_timing("sm90a-det kv only", time_launches(kv_only, nullptr));
      tools::expect(compare_bf16(dk.download(), dk.download()).non_finite == 0, "dK has non-finite values");
      tools::expect(compare_bf16(dq.download(), dq.download()).non_finite == 0,
                    "dQ (of the whole runs) has non-finite values");
    }
  }
}

}  // namespace
}  // namespace vsa::test

int main() {
  return vsa::tools::run_driver([] {
    if (const std::string why = vsa::test::skip_reason(); !why.empty()) vsa::tools::cannot_run(why);
    vsa::test::run();
  });
}
