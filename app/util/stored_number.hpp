#pragma once
// Whether a figure stored in a report or table is the one its inputs give. JSON round-trips a
// double exactly; the slack covers a writer that summed in another order. One rule for every
// reader that re-derives a stored figure (report timing figures, floor tables).
#include <algorithm>
#include <cmath>

namespace vsa {

[[nodiscard]] inline bool same_stored_value(double stored, double derived) {
  return std::abs(stored - derived) <= 1e-9 * std::max(1.0, std::abs(derived));
}

}  // namespace vsa
