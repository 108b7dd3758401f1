#include "telemetry/pass_monitor.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "telemetry/clock_sample.hpp"

namespace vsa {

PassMonitor::PassMonitor(std::function<nlohmann::json()> sample, std::chrono::milliseconds period,
                         std::chrono::milliseconds settle)
    : m_sample(std::move(sample)),
      m_period(period),
      m_first(std::chrono::steady_clock::now() + settle),
      m_thread([this] { loop(); }) {}

PassMonitor::~PassMonitor() { (void)stop(); }

void PassMonitor::loop() {
  std::unique_lock lock(m_mutex);
  if (m_wake.wait_until(lock, m_first, [this] { return m_stopping; })) return;
  while (!m_stopping) {
    lock.unlock();
    nlohmann::json s;  // NVML, outside the lock: stop() need not wait for it
    try {
      s = m_sample();
    } catch (...) {
      s = nullptr;  // a failed reading is a gap in the samples, not the end of the run
    }
    lock.lock();
    m_samples.push_back(std::move(s));
    m_wake.wait_for(lock, m_period, [this] { return m_stopping; });
  }
}

nlohmann::json PassMonitor::stop() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  if (m_thread.joinable()) m_thread.join();
  return summarize_pass_samples(m_samples);
}

nlohmann::json sample_until(const std::function<bool()>& done, const std::function<nlohmann::json()>& sample,
                            std::chrono::microseconds period) {
  std::vector<nlohmann::json> samples;
  for (;;) {
    std::this_thread::sleep_for(period);
    if (done()) break;
    if (samples.size() >= kMaxBurstSamples) continue;  // a hung kernel must not fill memory
    try {
      samples.push_back(sample());
    } catch (...) {
      samples.push_back(nullptr);  // a gap, as in PassMonitor
    }
  }
  if (samples.empty()) return nullptr;
  return summarize_pass_samples(samples);
}

namespace {

// min / mean / max of one numeric field over the samples that carry it.
void add_statistic(nlohmann::json& out, const std::vector<nlohmann::json>& samples, const char* field) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  int n = 0;
  for (const auto& s : samples) {
    if (!s.is_object()) continue;
    const auto v = s.find(field);
    if (v == s.end() || !v->is_number()) continue;
    const double x = v->get<double>();
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    sum += x;
    ++n;
  }
  if (n > 0) out[field] = {{"min", lo}, {"mean", sum / n}, {"max", hi}};
}

}  // namespace

nlohmann::json burst_sample(nlohmann::json sample) {
  if (sample.is_object()) sample.erase("power_w");
  return sample;
}

nlohmann::json summarize_pass_samples(const std::vector<nlohmann::json>& samples) {
  nlohmann::json out = {{"samples", samples.size()}};
  for (const char* field : {"sm_clock_mhz", "power_w", "power_instant_w", "temperature_c", "memory_temperature_c"})
    add_statistic(out, samples, field);
  // How many processes held a compute context on the GPU (ours included), from each sample's
  // pids, and every pid seen: a neighbour that came and went inside the pass is named too.
  std::vector<nlohmann::json> counts;
  std::set<std::uint64_t> pids;
  for (const auto& s : samples)
    if (s.is_object() && s.contains("compute_pids") && s["compute_pids"].is_array()) {
      counts.push_back({{"compute_processes", s["compute_pids"].size()}});
      for (const auto& pid : s["compute_pids"])
        if (pid.is_number_unsigned()) pids.insert(pid.get<std::uint64_t>());
    }
  add_statistic(out, counts, "compute_processes");
  if (!counts.empty()) out["compute_pids"] = pids;
  std::uint64_t reasons = 0;
  int known = 0;
  std::map<std::string, int> seen_in;  // reason -> samples that had it: how much of the pass it held
  for (const auto& s : samples) {
    const auto mask = event_reasons_of(s);
    if (!mask) continue;
    reasons |= *mask;
    ++known;
    for (const auto& name : decode_clock_event_reasons(*mask)) ++seen_in[name];
  }
  if (known > 0) {
    out["event_reasons"] = reasons;
    out["reasons"] = decode_clock_event_reasons(reasons);
    out["reason_samples"] = seen_in;
    out["reason_sampled"] = known;
  }
  return out;
}

}  // namespace vsa
