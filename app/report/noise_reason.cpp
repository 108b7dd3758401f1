#include "report/noise_reason.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "engine/pass_sampling.hpp"
#include "model/case_spec.hpp"
#include "telemetry/clock_summary.hpp"

namespace vsa {

namespace {

// Two significant digits; below 0.0001% it is 0 (rounding noise of a constant product).
std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g%%", std::round(1e6 * 100 * fraction) / 1e6);
  return buf;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::vector<bool> left_out(const Timing& t) {
  std::vector<bool> out(t.pass_medians_ms.size(), false);
  for (const auto& o : t.off_clock_passes)
    if (o.pass >= 0 && std::size_t(o.pass) < out.size()) out[std::size_t(o.pass)] = true;
  return out;
}

// A clock step of the H200 is 15 MHz (0.76% of 1980 MHz): a kept-pass clock range wider than
// this fraction of the median clock is the clock moving, not one step of jitter.
constexpr double kClockMoved = 0.01;

std::string how_sampling_ended(const Timing& t) {
  if (t.sampling.stop == "budget_exhausted")
    return "the " + number(t.sampling.time_budget_s) + " s budget ran out after " + std::to_string(t.passes) +
           " passes";
  if (t.sampling.stop == "max_passes") return "max_passes (" + std::to_string(t.sampling.max_passes) + ") reached";
  if (t.sampling.stop == "fixed")
    return std::to_string(t.passes) + (t.passes == 1 ? " fixed pass" : " fixed passes") + " (adaptive sampling off)";
  return "";
}

std::string what_the_clock_says(const Timing& t) {
  const std::vector<double> times = kept_pass_medians_ms(t);
  const std::vector<std::optional<double>> clocks = kept_pass_clocks_mhz(t);
  std::vector<double> mhz, cycles;
  nlohmann::json kept_clocks = nlohmann::json::array();
  const std::vector<bool> out = left_out(t);
  for (std::size_t i = 0, k = 0; i < t.pass_medians_ms.size(); ++i) {
    if (out[i]) continue;
    if (clocks[k]) {
      mhz.push_back(*clocks[k]);
      cycles.push_back(times[k] * *clocks[k]);
    }
    if (t.clocks.is_array() && i < t.clocks.size()) kept_clocks.push_back(t.clocks[i]);
    ++k;
  }
  if (mhz.size() < 2 || mhz.size() != times.size())
    return "no SM clock sample for every kept pass: the cause is not known";
  // "at 1560-1695 MHz, sw_power_cap; sampled after each pass": a pass's clock is the mean of
  // the samples taken while it ran where it has them (sustained passes, burst passes of 2 ms
  // and more), else the one sample taken after it, which can miss a cap that acted inside it.
  const bool during = std::all_of(kept_clocks.begin(), kept_clocks.end(), [](const nlohmann::json& c) {
    return c.is_object() && c.contains("during") && c["during"].is_object() && c["during"].contains("sm_clock_mhz");
  });
  const std::string at =
      clock_summary(kept_clocks) + (during ? "; sampled during each pass" : "; sampled after each pass");
  if (relative_range(mhz) > kClockMoved) {
    const double cycle_spread = median_interval_spread(cycles);
    std::string s =
        "the SM clock moved between passes (" + at + ") and pass time × SM clock spreads ±" + percent(cycle_spread);
    return s + (cycle_spread <= spread_target(t) ? ": the clock accounts for the spread"
                                                 : ": the sampled clock does not account for all of it");
  }
  return "the SM clock held still across the kept passes (" + at +
         "): the pass times vary at one sampled clock (a cap acting inside a pass, memory or the host)";
}

}  // namespace

double spread_target(const Timing& t) {
  return t.sampling.target_spread > 0 ? t.sampling.target_spread : kDefaultTargetSpread;
}

std::vector<double> kept_pass_medians_ms(const Timing& t) {
  const std::vector<bool> out = left_out(t);
  std::vector<double> kept;
  for (std::size_t i = 0; i < t.pass_medians_ms.size(); ++i)
    if (!out[i]) kept.push_back(t.pass_medians_ms[i]);
  return kept;
}

std::vector<std::optional<double>> kept_pass_clocks_mhz(const Timing& t) {
  const std::vector<bool> out = left_out(t);
  std::vector<nlohmann::json> passes;
  if (t.clocks.is_array()) passes.assign(t.clocks.begin(), t.clocks.end());
  std::vector<std::optional<double>> all = pass_clocks_mhz(passes);  // one source for the timing
  all.resize(t.pass_medians_ms.size());
  std::vector<std::optional<double>> kept;
  for (std::size_t i = 0; i < t.pass_medians_ms.size(); ++i)
    if (!out[i]) kept.push_back(all[i]);
  return kept;
}

std::string noise_reason(const Timing& t) {
  const std::size_t kept = kept_pass_medians_ms(t).size();
  if (kept < 2) {
    const std::string ended = how_sampling_ended(t);
    return "one kept pass: no spread measured" + (ended.empty() ? std::string() : "; " + ended);
  }
  const double target = spread_target(t);
  if (t.spread <= target) return "";
  std::string reason = "±" + percent(t.spread) + " > " + percent(target) + " target: ";
  const std::string ended = how_sampling_ended(t);
  if (!ended.empty()) reason += ended + "; ";
  return reason + what_the_clock_says(t);
}

}  // namespace vsa
