#pragma once
// The checks of the backend conformance suite (conformance_test.cpp), each a function
// that returns an AssertionResult, so the suite can require them on real backends and
// require them to fail on the planted faulty ones (kernels/selftest).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "conformance_runs.hpp"
#include "engine/stability.hpp"

namespace vsa::test {

// bf16 outputs against the fp64 reference: about 2^-8 relative at worst for every backend
// (bf16 P and dS into the tensor cores included); a wrong block, mask or race gives 0.1 .. 1.
inline constexpr double kConformanceRelMax = 1e-2;
inline constexpr double kConformanceRelL2 = 1e-2;
inline constexpr double kLseRelTolerance = 1e-4;
// Outputs a backend declares nondeterministic (e.g. atomically reduced dQ) may differ run to
// run by this much, max |x - first| / max |first|: the band suites/stability.json grants.
inline constexpr double kNondeterministicBand = 1e-2;

inline ::testing::AssertionResult close_to(const std::vector<bf16_bits>& got, const std::vector<bf16_bits>& want,
                                           const char* what) {
  if (const auto unwritten = count_bits(got, kPoisonBf16); unwritten > 0)
    return ::testing::AssertionFailure() << what << ": " << unwritten << " elements never written";
  const ErrorMetrics m = compare_bf16(got, want);
  if (m.non_finite > 0) return ::testing::AssertionFailure() << what << ": " << m.non_finite << " NaN / Inf";
  if (!(m.rel_max < kConformanceRelMax) || !(m.rel_l2 < kConformanceRelL2))
    return ::testing::AssertionFailure() << what << ": rel_max " << m.rel_max << ", rel_l2 " << m.rel_l2 << " (limits "
                                         << kConformanceRelMax << ", " << kConformanceRelL2 << ")";
  return ::testing::AssertionSuccess();
}

// lse within kLseRelTolerance; a row that attends to nothing (reference lse -inf: count 0
// or only padding keys) has exactly O = +0 and lse = -inf.
inline ::testing::AssertionResult rows_match(const Shape& s, const ForwardOutputs& got, const ForwardOutputs& want) {
  if (const auto unwritten = count_bits(got.lse, kPoisonF32); unwritten > 0)
    return ::testing::AssertionFailure() << "lse: " << unwritten << " rows never written";
  for (std::int64_t r = 0; r < s.row_elems(); ++r) {
    const float w = want.lse[std::size_t(r)], g = got.lse[std::size_t(r)];
    if (std::isinf(w)) {
      bool zero = std::isinf(g) && g < 0;
      for (int d = 0; d < s.head_dim; ++d) zero = zero && got.out[std::size_t(r * s.head_dim + d)] == 0;
      if (!zero)
        return ::testing::AssertionFailure() << "row " << r << " attends to nothing but lse " << g << " or O != +0";
    } else if (!(std::abs(g - w) <= kLseRelTolerance * std::max(1.0f, std::abs(w)))) {
      return ::testing::AssertionFailure() << "lse row " << r << ": got " << g << ", want " << w;
    }
  }
  return ::testing::AssertionSuccess();
}

// Exact zeros of the gradients: dQ of count-0 q blocks; dK, dV of unselected or padded keys.
inline ::testing::AssertionResult exact_zeros(const Problem& p, const BackwardInputs& in, const BackwardOutputs& g) {
  const Shape& s = p.shape;
  for (std::int64_t bh = 0; bh < s.bh(); ++bh)
    for (int b = 0; b < s.num_blocks; ++b) {
      const std::size_t at = std::size_t(bh * s.num_blocks + b);
      for (int t = 0; t < s.block; ++t) {
        const std::int64_t row = (bh * s.seq() + std::int64_t(b) * s.block + t) * s.head_dim;
        const bool dq_zero = p.q2k_num[at] == 0;
        const bool dkv_zero = in.k2q.k2q_num[at] == 0 || t >= p.vbs[std::size_t(b)];
        for (int d = 0; d < s.head_dim; ++d) {
          const std::size_t i = std::size_t(row + d);
          if (dq_zero && g.dq[i] != 0)
            return ::testing::AssertionFailure() << "dQ of empty q block " << b << " (bh " << bh << ") not +0";
          if (dkv_zero && (g.dk[i] != 0 || g.dv[i] != 0))
            return ::testing::AssertionFailure()
                   << "dK/dV of unselected or padded key " << b * s.block + t << " (bh " << bh << ") not +0";
        }
      }
    }
  return ::testing::AssertionSuccess();
}

// The run against the naive reference of the same op.
inline ::testing::AssertionResult matches_reference(Op op, const Problem& p, const BackwardInputs& in,
                                                    const RunOutputs& got, const RunOutputs& want) {
  if (op == Op::forward) {
    if (auto r = close_to(got.fwd.out, want.fwd.out, "O"); !r) return r;
    return rows_match(p.shape, got.fwd, want.fwd);
  }
  for (auto [g, w, name] : {std::tuple{&got.bwd.dq, &want.bwd.dq, "dQ"}, std::tuple{&got.bwd.dk, &want.bwd.dk, "dK"},
                            std::tuple{&got.bwd.dv, &want.bwd.dv, "dV"}})
    if (auto r = close_to(*g, *w, name); !r) return r;
  return exact_zeros(p, in, got.bwd);
}

inline bool declared_nondeterministic(const std::vector<std::string>& declared, const std::string& tensor) {
  return std::find(declared.begin(), declared.end(), tensor) != declared.end();
}

// Two runs of one op give the same outputs: the same bits, except tensors the backend
// declares nondeterministic, which stay within kNondeterministicBand of each other.
inline ::testing::AssertionResult same_outputs(Op op, const RunOutputs& a, const RunOutputs& b,
                                               const std::vector<std::string>& nondeterministic, const char* what) {
  auto compare = [&](const std::string& tensor, const RunDiff& d) -> ::testing::AssertionResult {
    if (declared_nondeterministic(nondeterministic, tensor)) {
      if (d.rel_dev <= kNondeterministicBand) return ::testing::AssertionSuccess();
      return ::testing::AssertionFailure() << what << ": " << tensor << " (declared nondeterministic) deviates "
                                           << d.rel_dev << " > band " << kNondeterministicBand;
    }
    if (d.mismatched == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << what << ": " << tensor << " differs in " << d.mismatched
                                         << " elements (rel deviation " << d.rel_dev << ")";
  };
  if (op == Op::forward) {
    if (auto r = compare("o", diff_bf16(a.fwd.out, b.fwd.out)); !r) return r;
    return compare("lse", diff_f32(a.fwd.lse, b.fwd.lse));
  }
  if (auto r = compare("dq", diff_bf16(a.bwd.dq, b.bwd.dq)); !r) return r;
  if (auto r = compare("dk", diff_bf16(a.bwd.dk, b.bwd.dk)); !r) return r;
  return compare("dv", diff_bf16(a.bwd.dv, b.bwd.dv));
}

}  // namespace vsa::test
