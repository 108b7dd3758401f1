#include "engine/timing.hpp"

#include "engine/case_runner.hpp"
#include "telemetry/pass_monitor.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

namespace vsa {

int launches_per_iteration(double min_pass_ms, int iterations, double per_launch_ms) {
  if (!(min_pass_ms > 0) || iterations < 1) return 1;
  if (!(per_launch_ms > 0)) return kMaxLaunchesPerIteration;
  const double n = std::ceil(min_pass_ms / (double(iterations) * per_launch_ms));
  return int(std::clamp(n, 1.0, double(kMaxLaunchesPerIteration)));
}

namespace {

// How often a sustained pass samples NVML: a power cap acts over tens of milliseconds.
constexpr std::chrono::milliseconds kDuringPassPeriod{50};
// How often a burst pass is sampled while the host waits for it (on that thread, once the
// pass is queued, so nothing competes with the queueing). The clock moves inside bursts of a
// few milliseconds too: S = 16384 backward passes whose after sample read 1905 MHz held
// 1740-1980 while they ran (kernels/sm90a/notes/runs.md, run 48). Passes shorter than this
// keep the after sample alone.
constexpr std::chrono::microseconds kBurstPassPeriod{2000};
// Samples from a pass's first second are left out (from its first half when shorter): NVML
// reads power as a one-second average, which then still holds the previous backend's load.
std::chrono::milliseconds settle_of(const TimingSpec& t) {
  return std::chrono::milliseconds(std::int64_t(std::min(1000.0, t.min_pass_ms / 2)));
}

class EventPair {
 public:
  EventPair() {
    cuda_check(cudaEventCreate(&m_start), "cudaEventCreate");
    cuda_check(cudaEventCreate(&m_stop), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(m_start);
    cudaEventDestroy(m_stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start() const { return m_start; }
  cudaEvent_t stop() const { return m_stop; }

 private:
  cudaEvent_t m_start{}, m_stop{};
};

// Cold runs: overwrite a buffer twice the L2 so inputs come from HBM.
class L2Flusher {
 public:
  explicit L2Flusher(bool enabled) {
    if (!enabled) return;
    int device = 0, l2 = 0;
    cuda_check(cudaGetDevice(&device), "cudaGetDevice");
    cuda_check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "L2 size");
    m_buffer = DeviceBytes(std::size_t(l2) * 2);
  }
  void flush(cudaStream_t stream) {
    if (m_buffer.bytes()) cuda_check(cudaMemsetAsync(m_buffer.get(), 0, m_buffer.bytes(), stream), "L2 flush");
  }

 private:
  DeviceBytes m_buffer;
};

// One launch's time for sizing sustained batches: batches of doubling size until one lasts
// min(kSoakMs, min_pass_ms), so the card is at its steady (capped) clock when the last,
// used one runs. Host time counts too: a launch that queues little GPU work costs what
// its call costs, not zero.
double calibrate_launch_ms(const std::function<void()>& launch, const TimingSpec& t, cudaStream_t stream) {
  const double soak_ms = std::min(kSoakMs, t.min_pass_ms);
  EventPair e;
  for (int n = std::max(2, t.warmup);; n = std::min(2 * n, kMaxLaunchesPerIteration)) {
    const auto host_start = std::chrono::steady_clock::now();
    cuda_check(cudaEventRecord(e.start(), stream), "cudaEventRecord");
    for (int k = 0; k < n; ++k) launch();
    cuda_check(cudaEventRecord(e.stop(), stream), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(e.stop()), "calibration");
    const double host_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start).count();
    float gpu_ms = 0;
    cuda_check(cudaEventElapsedTime(&gpu_ms, e.start(), e.stop()), "cudaEventElapsedTime");
    const double ms = std::max(double(gpu_ms), host_ms);
    if (ms >= soak_ms || n >= kMaxLaunchesPerIteration) return ms / n;
  }
}

}  // namespace

SamplingPolicy sampling_policy(const TimingSpec& t) {
  SamplingPolicy p;
  p.min_passes = t.passes;
  p.max_passes = std::max(t.passes, t.max_passes);
  p.target_spread = t.target_spread;
  p.time_budget_s = t.time_budget_s;
  return p;
}

void fill_timing(Timing& tm, const SampledBackend& b, const SamplingOutcome& outcome, const SamplingPolicy& policy,
                 double flops) {
  tm.pass_medians_ms = b.pass_medians_ms;
  tm.median_ms = b.stats.median_ms;
  tm.spread = b.stats.spread;
  tm.pass_range = b.stats.pass_range;
  tm.tflops = tm.median_ms > 0 ? flops / (tm.median_ms * 1e-3) / 1e12 : 0;
  tm.passes = int(b.pass_medians_ms.size());
  tm.off_clock_passes.clear();
  for (const auto& o : b.stats.off_clock)
    tm.off_clock_passes.push_back({o.pass, o.sm_clock_mhz, o.others_min_mhz, o.others_max_mhz});
  tm.sampling.stop = to_string(b.stop);
  tm.sampling.target_spread = policy.target_spread;
  tm.sampling.time_budget_s = policy.adaptive() ? policy.time_budget_s : 0;
  tm.sampling.min_passes = policy.min_passes;
  tm.sampling.max_passes = policy.adaptive() ? policy.max_passes : policy.min_passes;
  tm.sampling.seconds = outcome.seconds;
}

void time_backends(const std::vector<BackendSession*>& sessions, const std::vector<BackendResult*>& results,
                   const CaseSpec& spec, double flops_fwd, cudaStream_t stream,
                   const std::function<nlohmann::json()>& sample_clocks) {
  const TimingSpec& t = spec.timing;
  std::vector<EventPair> events(std::size_t(t.iterations));
  L2Flusher flusher(t.l2_flush);
  for (Op op : {Op::forward, Op::backward}) {
    if (op == Op::forward && !runs_forward(spec.op)) continue;
    if (op == Op::backward && !runs_backward(spec.op)) continue;
    const double flops = op == Op::forward ? flops_fwd : backward_flops(flops_fwd);
    auto launch = [&](BackendSession& s) {
      Status st = op == Op::forward ? s.forward() : s.backward();
      if (!st.ok())
        throw CudaError(s.backend().name() + (op == Op::forward ? " forward" : " backward") + " (timing): " + st.error,
                        false);
    };
    std::vector<std::size_t> eligible;
    for (std::size_t i = 0; i < sessions.size(); ++i)
      if (sessions[i]->on_device() && sessions[i]->backend().has_op(op)) eligible.push_back(i);
    for (std::size_t i : eligible)
      for (int w = 0; w < t.warmup; ++w) launch(*sessions[i]);
    cuda_check(cudaStreamSynchronize(stream), "warm-up");
    // Sustained passes: each iteration's batch is sized by calibration (1 launch per
    // iteration otherwise).
    std::vector<int> batch(sessions.size(), 1);
    if (t.min_pass_ms > 0)
      for (std::size_t i : eligible)
        batch[i] = launches_per_iteration(t.min_pass_ms, t.iterations,
                                          calibrate_launch_ms([&] { launch(*sessions[i]); }, t, stream));
    // One pass of one backend: its iterations queued back to back, each between its own
    // events, read after one sync (a host sync per iteration would leave the GPU idle until
    // the next launch arrives and charge that gap to short kernels).
    auto run_pass = [&](std::size_t pos, int pass) -> PassRecord {
      const std::size_t i = eligible[pos];
      nlohmann::json sample = {{"pass", pass}};
      if (sample_clocks) sample["before"] = sample_clocks();
      const auto started = std::chrono::steady_clock::now();
      // A sustained pass is watched by a thread; a burst pass is sampled below, once queued.
      std::unique_ptr<PassMonitor> monitor;
      if (sample_clocks && t.min_pass_ms > 0)
        monitor = std::make_unique<PassMonitor>(sample_clocks, kDuringPassPeriod, settle_of(t));
      for (int it = 0; it < t.iterations; ++it) {
        flusher.flush(stream);
        cuda_check(cudaEventRecord(events[std::size_t(it)].start(), stream), "cudaEventRecord");
        for (int k = 0; k < batch[i]; ++k) launch(*sessions[i]);
        cuda_check(cudaEventRecord(events[std::size_t(it)].stop(), stream), "cudaEventRecord");
      }
      cudaEvent_t last = events[std::size_t(t.iterations - 1)].stop();
      if (sample_clocks && !monitor) {
        // A burst: sampled on this thread, now that its launches are queued (burst_sample).
        nlohmann::json during = sample_until([&] { return cudaEventQuery(last) != cudaErrorNotReady; },
                                             [&] { return burst_sample(sample_clocks()); }, kBurstPassPeriod);
        if (!during.is_null()) sample["during"] = std::move(during);
      }
      cuda_check(cudaEventSynchronize(last), "timed runs");
      if (monitor) sample["during"] = monitor->stop();
      std::vector<double> ms;
      for (int it = 0; it < t.iterations; ++it) {
        float elapsed = 0;
        cuda_check(cudaEventElapsedTime(&elapsed, events[std::size_t(it)].start(), events[std::size_t(it)].stop()),
                   "cudaEventElapsedTime");
        ms.push_back(double(elapsed) / batch[i]);
      }
      if (sample_clocks) {
        sample["after"] = sample_clocks();
        // Wall time from the before sample to the after sample: what a counter read in both
        // (the thermal violation time, health.throttle) grew over.
        sample["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      }
      return {median(ms), std::move(sample)};
    };
    const auto now_s = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    };
    const SamplingPolicy policy = sampling_policy(t);
    const SamplingOutcome outcome = sample_passes(policy, eligible.size(), run_pass, now_s);
    for (std::size_t pos = 0; pos < eligible.size(); ++pos) {
      const std::size_t i = eligible[pos];
      const SampledBackend& sampled = outcome.backends[pos];
      Timing tm;
      tm.op = op == Op::forward ? "fwd" : "bwd";
      fill_timing(tm, sampled, outcome, policy, flops);
      tm.iterations = t.iterations;
      tm.launches_per_iteration = batch[i];
      tm.l2_flush = t.l2_flush;
      tm.clocks = sampled.pass_clocks;
      results[i]->timings.push_back(std::move(tm));
    }
  }
}

}  // namespace vsa
