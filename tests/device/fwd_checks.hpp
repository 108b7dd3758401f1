#pragma once
// The forward checks both fast-kernel families' device tests share (sm90a, sm100a-blk64):
// the fp64 naive reference on a FwdProblem, and the comparison of a run against it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lse_rows_check.hpp"
#include "naive_forward_of.hpp"
#include "sm90a_fwd_problem.hpp"

namespace vsa::test::sm90a {

// bf16 outputs against an fp64 reference: about 2^-8 relative at worst; a wrong block,
// mask or race gives 0.1 .. 1.
inline constexpr double kRelMax = 1e-2;
inline constexpr double kLseRel = 1e-4;

inline FwdOutputs naive_forward(const FwdProblem& p) { return naive_forward_of<FwdOutputs>(p); }

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
  expect_lse_and_empty_rows(p.shape, got.out, got.lse, want.lse, kLseRel);
}

}  // namespace vsa::test::sm90a
