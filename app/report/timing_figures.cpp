#include "report/timing_figures.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "engine/pass_sampling.hpp"

namespace vsa {
namespace {

// JSON round-trips a double exactly; the slack covers a writer that summed in another order.
bool same(double stored, double derived) {
  return std::abs(stored - derived) <= 1e-9 * std::max(1.0, std::abs(derived));
}

std::string percent(double fraction) { return fmt::format("{:.3g}%", 100 * fraction); }

}  // namespace

std::string timing_figures_inconsistency(const Timing& t, int schema_version) {
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
  if (!same(t.median_ms, m)) return fmt::format("median_ms {:g} but the kept pass medians give {:g}", t.median_ms, m);
  const double spread = schema_version >= 2 ? median_interval_spread(kept) : relative_range(t.pass_medians_ms);
  if (!same(t.spread, spread))
    return "spread " + percent(t.spread) + " but its pass medians give " + percent(spread) +
           (schema_version >= 2 ? " (the median's 95% interval over the kept passes)" : " ((max - min) / median)");
  return "";
}

}  // namespace vsa
