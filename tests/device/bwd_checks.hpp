#pragma once
// The backward checks the device tests share: each gradient against the fp64 naive
// reference (the fast kernels' tolerances; sm90a, sm100a-blk64), and the exact zeros
// docs/spec.md asks for (every backend, cuda-ref too).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "portable_runs.hpp"

namespace vsa::test {

// bf16 P and dS into the tensor cores, bf16 outputs: a few 1e-3 at worst; a wrong block,
// mask or race gives 0.1 .. 1.
inline constexpr double kBwdRelMax = 1e-2;
inline constexpr double kBwdRelL2 = 1e-2;

// One gradient: every element written (no poison left), finite, within the tolerances.
inline void expect_close(const std::vector<bf16_bits>& got, const std::vector<bf16_bits>& want, const char* what,
                         const std::string& name) {
  EXPECT_EQ(count_bits(got, kPoisonBf16), 0) << what << " elements never written";
  const ErrorMetrics m = compare_bf16(got, want);
  std::printf("  %-40s %-2s rel_max %.3e rel_l2 %.3e non_finite %lld\n", name.c_str(), what, m.rel_max, m.rel_l2,
              static_cast<long long>(m.non_finite));
  EXPECT_EQ(m.non_finite, 0) << what;
  EXPECT_LT(m.rel_max, kBwdRelMax) << what;
  EXPECT_LT(m.rel_l2, kBwdRelL2) << what;
}

// Rows of one [B, H, S, D] tensor that must be exactly zero, and are.
inline void expect_zero_rows(const std::vector<bf16_bits>& t, const Shape& s, std::int64_t bh, std::int64_t token,
                             const char* what) {
  const std::int64_t at = (bh * s.seq() + token) * s.head_dim;
  for (int d = 0; d < s.head_dim; ++d)
    ASSERT_EQ(t[std::size_t(at + d)], 0) << what << " bh " << bh << " token " << token << " d " << d;
}

// Exact zeros of problem p's gradients: dQ of count-0 q blocks; dK, dV of unselected kv
// blocks and of padded keys.
inline void expect_exact_zeros(const Problem& p, const BackwardInputs& in, const BackwardOutputs& got) {
  const Shape& s = p.shape;
  for (std::int64_t bh = 0; bh < s.bh(); ++bh)
    for (int b = 0; b < s.num_blocks; ++b) {
      const std::size_t at = std::size_t(bh * s.num_blocks + b);
      for (int t = 0; t < s.block; ++t) {
        const std::int64_t token = std::int64_t(b) * s.block + t;
        if (p.q2k_num[at] == 0) expect_zero_rows(got.dq, s, bh, token, "dQ of an empty q block");
        if (in.k2q.k2q_num[at] == 0 || t >= p.vbs[std::size_t(b)]) {
          expect_zero_rows(got.dk, s, bh, token, "dK of an unselected or padded key");
          expect_zero_rows(got.dv, s, bh, token, "dV of an unselected or padded key");
        }
      }
    }
}

// dQ, dK, dV of problem p against the reference, and the exact zeros.
inline void expect_backward_matches(const Problem& p, const BackwardInputs& in, const BackwardOutputs& got,
                                    const BackwardOutputs& want, const std::string& name) {
  expect_close(got.dq, want.dq, "dQ", name);
  expect_close(got.dk, want.dk, "dK", name);
  expect_close(got.dv, want.dv, "dV", name);
  expect_exact_zeros(p, in, got);
}

}  // namespace vsa::test
