#include "engine/pass_sampling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace vsa {

std::vector<std::size_t> pass_order(std::size_t count, int pass) {
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  if (pass % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

namespace {

// P(Bin(n, 1/2) <= k), summed in logs: n can be large enough for 2^-n to underflow.
double binomial_half_cdf(std::size_t n, std::size_t k) {
  double sum = 0;
  const double log_half_n = double(n) * std::log(0.5);
  for (std::size_t i = 0; i <= k; ++i)
    sum +=
        std::exp(std::lgamma(double(n) + 1) - std::lgamma(double(i) + 1) - std::lgamma(double(n - i) + 1) + log_half_n);
  return sum;
}

constexpr double kIntervalMiss = 0.05;  // the interval covers the median with >= 95%

}  // namespace

int median_interval_rank(std::size_t n) {
  int k = 1;
  for (std::size_t c = 2; 2 * c <= n; ++c) {
    if (2 * binomial_half_cdf(n, c - 1) > kIntervalMiss) break;
    k = int(c);
  }
  return k;
}

double median_interval_spread(std::vector<double> v) {
  if (v.size() < 2) return 0;
  std::sort(v.begin(), v.end());
  const double m = median(v);
  if (!(m > 0)) return 0;
  const std::size_t k = std::size_t(median_interval_rank(v.size()));
  return (v[v.size() - k] - v[k - 1]) / m;
}

double relative_range(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = median(v);
  if (!(m > 0)) return 0;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return (*hi - *lo) / m;
}

namespace {

std::optional<double> during_clock_mhz(const nlohmann::json& pass) {
  if (!pass.is_object()) return std::nullopt;
  const auto during = pass.find("during");
  if (during == pass.end() || !during->is_object()) return std::nullopt;
  const auto sm = during->find("sm_clock_mhz");
  if (sm == during->end() || !sm->is_object()) return std::nullopt;
  const auto mean = sm->find("mean");
  if (mean == sm->end() || !mean->is_number()) return std::nullopt;
  return mean->get<double>();
}

std::optional<double> after_clock_mhz(const nlohmann::json& pass) {
  if (!pass.is_object()) return std::nullopt;
  const auto after = pass.find("after");
  if (after == pass.end() || !after->is_object()) return std::nullopt;
  const auto mhz = after->find("sm_clock_mhz");
  if (mhz == after->end() || !mhz->is_number()) return std::nullopt;
  return mhz->get<double>();
}

}  // namespace

std::optional<double> pass_sm_clock_mhz(const nlohmann::json& pass) {
  if (const auto during = during_clock_mhz(pass)) return during;
  return after_clock_mhz(pass);
}

bool every_pass_sampled_during(const std::vector<nlohmann::json>& passes) {
  bool any = false;
  for (const auto& p : passes) {
    if (during_clock_mhz(p)) {
      any = true;
      continue;
    }
    if (after_clock_mhz(p)) return false;
  }
  return any;
}

std::vector<std::optional<double>> pass_clocks_mhz(const std::vector<nlohmann::json>& passes) {
  const bool during = every_pass_sampled_during(passes);
  std::vector<std::optional<double>> clocks;
  for (const auto& p : passes) clocks.push_back(during ? during_clock_mhz(p) : after_clock_mhz(p));
  return clocks;
}

std::vector<OffClockPass> off_clock_passes(const std::vector<std::optional<double>>& clocks) {
  std::vector<std::pair<double, int>> sorted;  // (MHz, pass) of the passes with a clock
  for (std::size_t i = 0; i < clocks.size(); ++i)
    if (clocks[i]) sorted.emplace_back(*clocks[i], int(i));
  if (sorted.size() < 3) return {};
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> mhz;
  for (const auto& [clock, pass] : sorted) mhz.push_back(clock);
  // Clock states: runs of sorted clocks with no step wider than the tolerance between
  // neighbours. Passes of one state may wander far in small steps (a capped clock does); two
  // passes of another state stay together, so a twin never hides its twin (NVML's clocks come in
  // 15 MHz steps: passes before the cap acts often read the same).
  const double slack = kOffClockTolerance * median(mhz);
  std::size_t begin = 0, best_begin = 0, best_end = 0;
  for (std::size_t i = 1; i <= mhz.size(); ++i) {
    if (i < mhz.size() && mhz[i] - mhz[i - 1] <= slack) continue;
    if (i - begin > best_end - best_begin) best_begin = begin, best_end = i;
    begin = i;
  }
  // Only a state held by a strict majority is "the others": with two of equal weight there is none.
  if (2 * (best_end - best_begin) <= mhz.size()) return {};
  std::vector<OffClockPass> off;
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (i < best_begin || i >= best_end) off.push_back({sorted[i].second, mhz[i], mhz[best_begin], mhz[best_end - 1]});
  std::sort(off.begin(), off.end(), [](const OffClockPass& x, const OffClockPass& y) { return x.pass < y.pass; });
  return off;
}

PassStatistics pass_statistics(const std::vector<double>& medians, const std::vector<nlohmann::json>& pass_clocks) {
  std::vector<std::optional<double>> clocks = pass_clocks_mhz(pass_clocks);
  clocks.resize(medians.size());
  PassStatistics s;
  s.off_clock = off_clock_passes(clocks);
  std::vector<bool> left_out(medians.size(), false);
  for (const auto& o : s.off_clock) left_out[std::size_t(o.pass)] = true;
  std::vector<double> kept;
  for (std::size_t i = 0; i < medians.size(); ++i)
    if (!left_out[i]) kept.push_back(medians[i]);
  s.kept = int(kept.size());
  s.median_ms = median(kept);
  s.spread = median_interval_spread(kept);
  s.pass_range = relative_range(kept);
  return s;
}

const char* to_string(SamplingStop stop) {
  switch (stop) {
    case SamplingStop::fixed:
      return "fixed";
    case SamplingStop::converged:
      return "converged";
    case SamplingStop::budget_exhausted:
      return "budget_exhausted";
    case SamplingStop::max_passes:
      return "max_passes";
  }
  return "fixed";
}

namespace {

bool converged(const PassStatistics& s, double target) { return s.kept >= kMinConvergedPasses && s.spread <= target; }

}  // namespace

SamplingOutcome sample_passes(const SamplingPolicy& policy, std::size_t backends,
                              const std::function<PassRecord(std::size_t, int)>& run_pass,
                              const std::function<double()>& now_s) {
  SamplingOutcome out;
  out.backends.resize(backends);
  if (backends == 0) return out;
  const int min_passes = std::max(1, policy.min_passes);
  const int max_passes = std::max(min_passes, policy.max_passes);
  const double start = now_s();
  double last_round_s = 0;
  SamplingStop why = SamplingStop::fixed;
  auto refresh = [&] {
    for (auto& b : out.backends) b.stats = pass_statistics(b.pass_medians_ms, b.pass_clocks);
  };
  for (int pass = 0;; ++pass) {
    if (pass >= min_passes) {
      if (!policy.adaptive()) break;
      refresh();
      if (std::all_of(out.backends.begin(), out.backends.end(),
                      [&](const SampledBackend& b) { return converged(b.stats, policy.target_spread); })) {
        why = SamplingStop::converged;
        break;
      }
      if (pass >= max_passes) {
        why = SamplingStop::max_passes;
        break;
      }
      if (now_s() - start + last_round_s > policy.time_budget_s) {
        why = SamplingStop::budget_exhausted;
        break;
      }
    }
    const double round_start = now_s();
    for (std::size_t i : pass_order(backends, pass)) {
      PassRecord r = run_pass(i, pass);
      out.backends[i].pass_medians_ms.push_back(r.median_ms);
      out.backends[i].pass_clocks.push_back(std::move(r.clocks));
    }
    last_round_s = now_s() - round_start;
    out.passes = pass + 1;
  }
  refresh();
  out.seconds = now_s() - start;
  for (auto& b : out.backends)
    b.stop = !policy.adaptive()                         ? SamplingStop::fixed
             : converged(b.stats, policy.target_spread) ? SamplingStop::converged
                                                        : why;
  return out;
}

}  // namespace vsa
