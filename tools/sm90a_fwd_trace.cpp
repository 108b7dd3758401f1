// Timeline driver for the sm90a forward (a tool, not a test: build/tools/sm90a_fwd_trace,
// run by scripts/device/trace.sh). Where the time of
// a small problem goes: the trace-only variant (the normal code plus stamps; before run 56
// the probe variant, up to 19% slower) stamps %globaltimer at the consumer start, the
// order kernel's dependency, each item's arrival, first scores and epilogue, and the end
// (kernels/sm90a/trace.hpp); one traced launch right after a queue of normal ones, so the
// launch sees the stream as the timed runs do. Printed beside the event-timed launch of the
// normal and the traced variant, timed in alternating batches, so the trace's own cost shows.
// Always the persistent layout (VSA_SM90A_FWD_FOUR_CTAS=0): the four-CTA layout has no timeline.
// Every case on shuffled rows (topk_problem's, as every timeline before run 64c), then on rows in
// ascending order (the harness's topk cases), named in the last column: the order moves the
// forward's time by up to 11% at S = 4096 (runs 63, 64).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sm90a_forward_driver.hpp"
#include "trace_summary.hpp"

namespace vsa::test::sm90a {
namespace {

using vsa::sm90a::summarize_trace;
using vsa::sm90a::TraceSummary;

// One case on one row order: checked, timed against its traced twin, then one traced launch
// behind a queue of normal ones; one row of the table.
void trace_case(Backend& backend, int sms, int seq, int per_row, bool ascending) {
  const FwdProblem p = driver_problem(seq, per_row, ascending);
  FwdDeviceInputs in(p);
  DriverForward f(backend, p, in);
  DeviceBuffer<std::uint64_t> trace(vsa::sm90a::trace_buffer_words(sms, vsa::sm90a::kForwardTraceSlotsPerCta));
  const ForwardArgs& a = f.args;
  const cudaStream_t stream = f.stream;
  ForwardArgs traced = a;
  traced.trace = trace.get();
  const char* rows = rows_name(ascending);

  // The traced variant computes the same thing: checked before any number is printed.
  trace.fill_bytes(0);
  tools::require(backend.forward(traced), "traced forward");
  check_cuda(cudaStreamSynchronize(stream), "traced run");
  const std::string bad = first_last_items_error(p, f);
  tools::require(bad.empty(), "S " + std::to_string(seq) + " " + rows + " " + bad);

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
  std::printf("%-6d %4d %7.1f %7.1f | %6d %6d | %5.1f %5.1f %5.1f %5.1f %5.2f %5.2f %5.2f %6.1f %6.1f %5.2f %-8s\n",
              seq, per_row, normal[normal.size() / 2] * 1e3, with_trace[with_trace.size() / 2] * 1e3, t.slots, t.items,
              t.start_skew_max_us, t.dependency_med_us, t.dependency_max_us, t.first_arrival_med_us,
              t.first_scores_med_us, t.item_med_us, t.boundary_med_us, t.last_done_med_us, t.last_done_max_us,
              t.clock_ghz, rows);
  tools::expect(t.items > 0, "the traced launch stamped nothing");
}

void run() {
  Backend& backend = sm90a_backend_or_skip();
  const int sms = sm_count();

  std::printf("%-6s %4s %7s %7s | %6s %6s | %5s %5s %5s %5s %5s %5s %5s %6s %6s %5s %-8s\n", "S", "k", "ev_us",
              "evtr_us", "slots", "items", "skew", "dep", "dep_mx", "arr1", "S1", "item", "bound", "done_m", "done_x",
              "GHz", "rows");
  struct Case {
    int seq, per_row;
  };
  for (const bool ascending : {false, true})
    for (Case c : {Case{4096, 8}, Case{4096, 16}, Case{4096, 32}, Case{8192, 16}, Case{16384, 32}, Case{16384, 64}})
      trace_case(backend, sms, c.seq, c.per_row, ascending);
  std::printf(
      "us from the first consumer start: skew = latest start, dep = producer past the order kernel (median, max),\n"
      "arr1 = first Q after dep, S1 = first scores after arrival, item = arrival to epilogue done, bound = epilogue\n"
      "to next arrival, done_m / done_x = a slot's last epilogue (median, max); ev_us = event time per launch\n"
      "(batches of back-to-back launches).\n"
      "rows: each row's blocks shuffled, or ascending (the harness's order).\n");
}

}  // namespace
}  // namespace vsa::test::sm90a

int main() {
  // The persistent layout for both the normal and the traced launch: a timeline is recorded on
  // it alone, and the four-CTA layout's rule (kernels/sm90a/fwd_layout.hpp) would otherwise
  // time the untraced launch of the first case (S = 4096, k = 8) on another kernel.
  setenv("VSA_SM90A_FWD_FOUR_CTAS", "0", 1);
  return vsa::tools::run_driver(vsa::test::sm90a::run);
}
