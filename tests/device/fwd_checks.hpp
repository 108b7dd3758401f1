#pragma once
// The forward checks both fast-kernel families' device tests share (sm90a, sm100a-blk64):
// the fp64 naive reference on a FwdProblem, and the comparison of a run against it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "naive_reference.hpp"
#include "sm90a_fwd_problem.hpp"

namespace vsa::test::sm90a {

// bf16 outputs against an fp64 reference: about 2^-8 relative at worst; a wrong block,
// mask or race gives 0.1 .. 1.
inline constexpr double kRelMax = 1e-2;
inline constexpr double kLseRel = 1e-4;

inline FwdOutputs naive_forward(const FwdProblem& p) {
  FwdOutputs o{std::vector<bf16_bits>(p.q.size()), std::vector<float>(std::size_t(p.shape.row_elems()))};
  ForwardArgs a;
  a.shape = p.shape;
  a.q = p.q.data();
  a.k = p.k.data();
  a.v = p.v.data();
  a.q2k_idx = p.q2k_idx.data();
  a.q2k_num = p.q2k_num.data();
  a.vbs = p.vbs.data();
  a.out = o.out.data();
  a.lse = o.lse.data();
  naive::forward(a);
  return o;
}

inline double rel_max(const std::vector<bf16_bits>& got, const std::vector<bf16_bits>& want) {
  double max_diff = 0, max_ref = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double g = bf16_to_float(got[i]), w = bf16_to_float(want[i]);
    if (!std::isfinite(g)) return std::numeric_limits<double>::infinity();
    max_diff = std::max(max_diff, std::abs(g - w));
    max_ref = std::max(max_ref, std::abs(w));
  }
  return max_ref > 0 ? max_diff / max_ref : max_diff;
}

// Every element written, O within kRelMax, lse close, and rows that attend to nothing
// (count 0, or only padding keys) exactly O = +0 and lse = -inf.
inline void expect_matches(const FwdProblem& p, const FwdOutputs& got, const FwdOutputs& want) {
  EXPECT_EQ(count_poison(got), 0) << "output elements never written";
  const double err = rel_max(got.out, want.out);
  EXPECT_LT(err, kRelMax);
  ::testing::Test::RecordProperty("rel_max", std::to_string(err));
  const std::int64_t rows = p.shape.row_elems();
  int reported = 0;
  for (std::int64_t r = 0; r < rows && reported < 5; ++r) {
    const float w = want.lse[std::size_t(r)], g = got.lse[std::size_t(r)];
    if (std::isinf(w)) {
      bool zero = std::isinf(g) && g < 0;
      for (int d = 0; d < p.shape.head_dim; ++d) zero = zero && got.out[std::size_t(r * p.shape.head_dim + d)] == 0;
      if (!zero) {
        ADD_FAILURE() << "row " << r << " attends to nothing but lse = " << g << " or O != +0";
        ++reported;
      }
    } else if (!(std::abs(g - w) <= kLseRel * std::max(1.0f, std::abs(w)))) {
      ADD_FAILURE() << "lse row " << r << ": got " << g << ", want " << w;
      ++reported;
    }
  }
}

}  // namespace vsa::test::sm90a
