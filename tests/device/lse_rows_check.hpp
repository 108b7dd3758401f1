#pragma once
// The row-level part of every forward check (docs/spec.md): lse within a relative tolerance of
// the reference, and a row that attends to nothing (reference lse = -inf: count 0, or only
// padding keys) has exactly O = +0 and lse = -inf. Reports the first five bad rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vsa/backend.hpp"

namespace vsa::test {

inline void expect_lse_and_empty_rows(const Shape& shape, const std::vector<bf16_bits>& out,
                                      const std::vector<float>& lse, const std::vector<float>& want_lse,
                                      double lse_rel) {
  int reported = 0;
  for (std::int64_t r = 0; r < shape.row_elems() && reported < 5; ++r) {
    const float w = want_lse[std::size_t(r)], g = lse[std::size_t(r)];
    if (std::isinf(w)) {
      bool zero = std::isinf(g) && g < 0;
      for (int d = 0; d < shape.head_dim; ++d) zero = zero && out[std::size_t(r * shape.head_dim + d)] == 0;
      if (!zero) {
        ADD_FAILURE() << "row " << r << " attends to nothing but lse = " << g << " or O != +0";
        ++reported;
      }
    } else if (!(std::abs(g - w) <= lse_rel * std::max(1.0f, std::abs(w)))) {
      ADD_FAILURE() << "lse row " << r << ": got " << g << ", want " << w;
      ++reported;
    }
  }
}

}  // namespace vsa::test
