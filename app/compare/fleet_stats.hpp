#pragma once
// The order statistics fleet needs: median and quartiles (linear interpolation
// between closest ranks, the common "type 7" definition) and Tukey's fences.
#include <vector>

namespace vsa {

struct Quartiles {
  double q1 = 0, median = 0, q3 = 0;
  [[nodiscard]] double iqr() const { return q3 - q1; }
  [[nodiscard]] double low_fence() const { return q1 - 1.5 * iqr(); }
  [[nodiscard]] double high_fence() const { return q3 + 1.5 * iqr(); }
};

// Quantile p in [0, 1] of a non-empty sample.
[[nodiscard]] double quantile(std::vector<double> values, double p);
[[nodiscard]] Quartiles quartiles(const std::vector<double>& values);

}  // namespace vsa
