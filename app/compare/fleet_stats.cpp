#include "compare/fleet_stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vsa {

double quantile(std::vector<double> values, double p) {
  if (values.empty()) throw std::invalid_argument("quantile of an empty sample");
  std::sort(values.begin(), values.end());
  const double position = p * double(values.size() - 1);
  const auto below = std::size_t(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (position - double(below)) * (values[above] - values[below]);
}

Quartiles quartiles(const std::vector<double>& values) {
  return {quantile(values, 0.25), quantile(values, 0.5), quantile(values, 0.75)};
}

}  // namespace vsa
