// Timeline driver for the sm90a forward (a tool, not a test: build/tools/sm90a_fwd_trace,
// run by scripts/device/trace.sh). Where the time of
// a small problem goes: the trace-only variant (the normal code plus stamps; before run 56
// the probe variant, up to 19% slower) stamps %globaltimer at the consumer start, the
// order kernel's dependency, each item's arrival, first scores and epilogue, and the end
// (kernels/sm90a/trace.hpp); one traced launch right after a queue of normal ones, so the
// launch sees the stream as the timed runs do. Printed beside the event-timed launch of the
// normal and the traced variant, timed in alternating batches, so the trace's own cost shows.
// Always the persistent layout (VSA_SM90A_FWD_FOUR_CTAS=0): the four-CTA layout has no timeline.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "driver_checks.hpp"
#include "sm90a_fwd_timing.hpp"
#include "trace_summary.hpp"

namespace vsa::test::sm90a {
namespace {

using vsa::sm90a::summarize_trace;
using vsa::sm90a::TraceSummary;

void run() {
#if !defined(VSA_HAVE_SM90A)
  tools::cannot_run(sm90a_driver_skip_reason());
#else
  if (const std::string why = sm90a_driver_skip_reason(); !why.empty()) tools::cannot_run(why);
  Backend& backend = sm90a_driver_backend();
  int sms = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");

  std::printf("%-6s %4s %7s %7s | %6s %6s | %5s %5s %5s %5s %5s %5s %5s %6s %6s %5s\n", "S", "k", "ev_us", "evtr_us",
              "slots", "items", "skew", "dep", "dep_mx", "arr1", "S1", "item", "bound", "done_m", "done_x", "GHz");
  struct Case {
    int seq, per_row;
  };
  for (Case c : {Case{4096, 8}, Case{4096, 16}, Case{4096, 32}, Case{8192, 16}, Case{16384, 32}, Case{16384, 64}}) {
    const FwdProblem p = topk_problem(c.seq, 8, 1000 + c.seq + c.per_row, c.per_row);
    FwdDeviceInputs in(p);
    DeviceBuffer<bf16_bits> out(p.q.size());
    DeviceBuffer<float> lse(std::size_t(p.shape.row_elems()));
    DeviceBuffer<unsigned char> workspace(backend.workspace_bytes(p.shape, Op::forward));
    DeviceBuffer<std::uint64_t> trace(vsa::sm90a::trace_buffer_words(sms, vsa::sm90a::kForwardTraceSlotsPerCta));
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
    ForwardArgs a = forward_args(p, in);
    a.out = out.get();
    a.lse = lse.get();
    a.workspace = workspace.get();
    a.stream = stream;
    ForwardArgs traced = a;
    traced.trace = trace.get();

    // The traced variant computes the same thing: checked before any number is printed.
    trace.fill_bytes(0);
    tools::require(backend.forward(traced), "traced forward");
    check_cuda(cudaStreamSynchronize(stream), "traced run");
    const std::vector<bf16_bits> got = out.download();
    const std::vector<float> got_lse = lse.download();
    for (std::int64_t item : {std::int64_t(0), p.shape.count_elems() - 1}) {
      const ItemError e = check_item(p, item, got, got_lse);
      tools::require(e.out_rel < 1e-2, "S " + std::to_string(c.seq) + " item " + std::to_string(item) +
                                           ": O rel error " + std::to_string(e.out_rel));
    }

    const auto times =
        time_launches_in_turn({[&] { return backend.forward(a); }, [&] { return backend.forward(traced); }}, stream);
    const std::vector<float>& normal = times[0];
    const std::vector<float>& with_trace = times[1];
    // A queue of normal launches, then the traced one behind them.
    for (int i = 0; i < 8; ++i) tools::require(backend.forward(a), "forward");
    trace.fill_bytes(0);
    check_cuda(cudaStreamSynchronize(stream), "queue");
    for (int i = 0; i < 8; ++i) tools::require(backend.forward(a), "forward");
    tools::require(backend.forward(traced), "traced forward");
    check_cuda(cudaStreamSynchronize(stream), "traced launch");
    const TraceSummary t = summarize_trace(trace.download());
    std::printf("%-6d %4d %7.1f %7.1f | %6d %6d | %5.1f %5.1f %5.1f %5.1f %5.2f %5.2f %5.2f %6.1f %6.1f %5.2f\n", c.seq,
                c.per_row, normal[normal.size() / 2] * 1e3, with_trace[with_trace.size() / 2] * 1e3, t.slots, t.items,
                t.start_skew_max_us, t.dependency_med_us, t.dependency_max_us, t.first_arrival_med_us,
                t.first_scores_med_us, t.item_med_us, t.boundary_med_us, t.last_done_med_us, t.last_done_max_us,
                t.clock_ghz);
    tools::expect(t.items > 0, "the traced launch stamped nothing");
    (void)cudaStreamDestroy(stream);
  }
  std::printf(
      "us from the first consumer start: skew = latest start, dep = producer past the order kernel (median, max),\n"
      "arr1 = first Q after dep, S1 = first scores after arrival, item = arrival to epilogue done, bound = epilogue\n"
      "to next arrival, done_m / done_x = a slot's last epilogue (median, max); ev_us = event time per launch.\n");
#endif
}

}  // namespace
}  // namespace vsa::test::sm90a

int main() {
  try {
    // The persistent layout for both the normal and the traced launch: a timeline is recorded on
    // it alone, and the four-CTA layout's rule (kernels/sm90a/fwd_layout.hpp) would otherwise
    // time the untraced launch of the first case (S = 4096, k = 8) on another kernel.
    setenv("VSA_SM90A_FWD_FOUR_CTAS", "0", 1);
    vsa::test::sm90a::run();
  } catch (const std::exception& e) {
    vsa::tools::fail(e.what());
  }
  return vsa::tools::exit_code();
}
