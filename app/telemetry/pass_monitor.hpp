#pragma once
// NVML samples taken while a timed pass runs, not only around it. Under a power cap the
// SM clock moves within a pass (1.2-1.7 GHz on an H200 at 700 W, kernels/sm90a/NOTES.md
// run 29), and the samples before and after a pass catch it at its edges, where the card
// is idle or just starting. A sustained pass (timing.min_pass_ms) is only worth its
// number with the clock and power it ran at.
#include <chrono>
#include <cstddef>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace vsa {

// Samples `sample()` (a ClockSample as JSON, telemetry/clock_sample.hpp) every `period` on its
// own thread, from `settle` after construction until stop() or destruction; the first
// sample is taken at once when `settle` is zero. A sampler that throws gives a null sample.
class PassMonitor {
 public:
  PassMonitor(std::function<nlohmann::json()> sample, std::chrono::milliseconds period,
              std::chrono::milliseconds settle = std::chrono::milliseconds(0));
  ~PassMonitor();
  PassMonitor(const PassMonitor&) = delete;
  PassMonitor& operator=(const PassMonitor&) = delete;

  // Ends sampling and returns summarize_pass_samples of what was taken.
  nlohmann::json stop();

 private:
  void loop();

  std::function<nlohmann::json()> m_sample;
  std::chrono::milliseconds m_period;
  std::chrono::steady_clock::time_point m_first;  // no sample before this
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stopping = false;
  std::vector<nlohmann::json> m_samples;
  std::thread m_thread;
};

// Samples `sample()` on the calling thread every `period` until `done()`, the first after one
// period: for a burst pass whose launches are already queued, so every sample falls while the
// GPU runs it and none competes with the queueing. Returns summarize_pass_samples of them, or
// null when the pass ended before the first. After kMaxBurstSamples it only waits: a hung
// kernel (no hang watch) keeps a pass running until the case's timeout kills the worker.
inline constexpr std::size_t kMaxBurstSamples = 1024;
[[nodiscard]] nlohmann::json sample_until(const std::function<bool()>& done,
                                          const std::function<nlohmann::json()>& sample,
                                          std::chrono::microseconds period);

// A burst pass's sample: without NVML's power reading, a one-second mean longer than the pass;
// the instant power (power_instant_w) stays.
[[nodiscard]] nlohmann::json burst_sample(nlohmann::json sample);

// {"samples": n, "sm_clock_mhz": {"min", "mean", "max"}, "power_w": {...}, "power_instant_w": {...},
//  "temperature_c": {...}, "memory_temperature_c": {...}, "compute_processes": {...} (processes
//  with a compute context, from each sample's compute_pids), "compute_pids": [every pid seen],
//  "reasons": [every reason seen],
//  "reason_samples": {reason: samples that had it}, "reason_sampled": samples with a reason
//  mask}; a statistic no sample carries is left out (no NVML: only "samples").
[[nodiscard]] nlohmann::json summarize_pass_samples(const std::vector<nlohmann::json>& samples);

}  // namespace vsa
