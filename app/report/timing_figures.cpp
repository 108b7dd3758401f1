#include "report/timing_figures.hpp"

#include <cmath>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "engine/pass_sampling.hpp"
#include "util/stored_number.hpp"

namespace vsa {
namespace {

std::string percent(double fraction) { return fmt::format("{:.3g}%", 100 * fraction); }

// Each off-clock entry against the clocks of the timing (review of 2026-12-06: a list naming
// slow passes off-clock at an invented 1200 MHz, clocks of 1600 recorded, hid a 24% drop).
std::string off_clock_inconsistency(const Timing& t) {
  const std::vector<nlohmann::json> passes =
      t.clocks.is_array() ? t.clocks.get<std::vector<nlohmann::json>>() : std::vector<nlohmann::json>{};
  const std::vector<std::optional<double>> mhz = pass_clocks_mhz(passes);
  std::set<int> off;
  for (const auto& o : t.off_clock_passes) off.insert(o.pass);
  for (const auto& o : t.off_clock_passes) {
    const std::size_t i = std::size_t(o.pass);
    if (i >= mhz.size() || !mhz[i] || !same_stored_value(o.sm_clock_mhz, *mhz[i]))
      return fmt::format("off-clock pass {} at {:g} MHz, but its clock record gives {}", o.pass, o.sm_clock_mhz,
                         i < mhz.size() && mhz[i] ? fmt::format("{:g} MHz", *mhz[i]) : std::string("none"));
    if (o.sm_clock_mhz >= o.others_min_mhz && o.sm_clock_mhz <= o.others_max_mhz)
      return fmt::format("off-clock pass {} at {:g} MHz lies inside the kept passes' {:g}-{:g} MHz", o.pass,
                         o.sm_clock_mhz, o.others_min_mhz, o.others_max_mhz);
    for (std::size_t k = 0; k < mhz.size(); ++k)
      if (!off.count(int(k)) && mhz[k] && (*mhz[k] < o.others_min_mhz - 1e-6 || *mhz[k] > o.others_max_mhz + 1e-6))
        return fmt::format(
            "kept pass {} at {:g} MHz lies outside the {:g}-{:g} MHz that off-clock pass {} was judged "
            "against",
            k, *mhz[k], o.others_min_mhz, o.others_max_mhz, o.pass);
  }
  return "";
}

}  // namespace

std::string timing_figures_inconsistency(const Timing& t, int schema_version, double flops) {
  const std::size_t n = t.pass_medians_ms.size();
  if (n == 0)
    return t.tflops > 0 ? "tflops " + fmt::format("{:g}", t.tflops) + " but no pass_medians_ms to derive it from" : "";
  if (t.passes != int(n)) return fmt::format("passes {} but {} pass medians", t.passes, n);
  std::set<int> off;
  for (const auto& o : t.off_clock_passes) {
    if (o.pass < 0 || o.pass >= int(n)) return fmt::format("off-clock pass {} is not one of the {} passes", o.pass, n);
    if (!off.insert(o.pass).second) return fmt::format("off-clock pass {} is named twice", o.pass);
  }
  if (2 * off.size() >= n)
    return fmt::format("{} of {} passes left out as off-clock; a strict majority is always kept", off.size(), n);
  std::vector<double> kept;
  for (std::size_t i = 0; i < n; ++i)
    if (!off.count(int(i))) kept.push_back(t.pass_medians_ms[i]);
  const double m = median(kept);
  if (!same_stored_value(t.median_ms, m))
    return fmt::format("median_ms {:g} but the kept pass medians give {:g}", t.median_ms, m);
  const double spread = schema_version >= 2 ? median_interval_spread(kept) : relative_range(t.pass_medians_ms);
  if (!same_stored_value(t.spread, spread))
    return "spread " + percent(t.spread) + " but its pass medians give " + percent(spread) +
           (schema_version >= 2 ? " (the median's 95% interval over the kept passes)" : " ((max - min) / median)");
  // The gates read tflops: it must be the case's FLOPs over that median (spec.md's convention).
  if (t.tflops > 0) {
    if (!(flops > 0)) return fmt::format("tflops {:g} but the case has no flops_{} to derive it from", t.tflops, t.op);
    const double derived = flops / t.median_ms / 1e9;
    if (std::abs(t.tflops - derived) > 1e-6 * derived)
      return fmt::format("tflops {:g} but flops_{} over median_ms gives {:g}", t.tflops, t.op, derived);
  }
  return off_clock_inconsistency(t);
}

}  // namespace vsa
