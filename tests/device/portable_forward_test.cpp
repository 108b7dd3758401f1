// cuda-ref forward against the fp64 naive reference on small cases (docs/spec.md "Forward").
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "portable_runs.hpp"

namespace vsa::test {
namespace {

// Both sides round the same fp32/fp64 value to bf16: they differ by at most an ulp
// or so (2^-7 relative at worst). Real bugs (wrong block, wrong mask, race) give 0.1 .. 1.
constexpr double kRelMax = 1e-2;
constexpr double kRelL2 = 5e-3;

class PortableForward : public DeviceTest, public ::testing::WithParamInterface<ProblemSpec> {};

TEST_P(PortableForward, MatchesNaiveReference) {
  const Problem p = make_problem(GetParam());
  const Shape& s = p.shape;
  const ForwardOutputs want = naive_forward(p);
  const ForwardOutputs got = device_forward(cuda_ref_backend(), p, DeviceInputs(p));

  EXPECT_EQ(count_bits(got.out, kPoisonBf16), 0) << "O elements never written";
  EXPECT_EQ(count_bits(got.lse, kPoisonF32), 0) << "lse elements never written";
  const ErrorMetrics m = compare_bf16(got.out, want.out);
  EXPECT_EQ(m.non_finite, 0);
  EXPECT_LT(m.rel_max, kRelMax);
  EXPECT_LT(m.rel_l2, kRelL2);

  std::int64_t empty_rows = 0;
  for (std::int64_t bh = 0; bh < s.bh(); ++bh)
    for (int qb = 0; qb < s.num_blocks; ++qb) {
      const bool empty = p.q2k_num[std::size_t(bh * s.num_blocks + qb)] == 0;
      empty_rows += empty;
      for (int rr = 0; rr < s.block; ++rr) {
        const std::int64_t r = bh * s.seq() + std::int64_t(qb) * s.block + rr;
        const float w = want.lse[std::size_t(r)], g = got.lse[std::size_t(r)];
        if (empty) {
          // Count-0 rows: lse = -inf and O exactly +0.0 (bits 0), not merely small.
          ASSERT_TRUE(std::isinf(g) && g < 0) << "row " << r << " lse " << g;
          for (int d = 0; d < s.head_dim; ++d)
            ASSERT_EQ(got.out[std::size_t(r * s.head_dim + d)], 0) << "row " << r << " d " << d;
        } else {
          ASSERT_NEAR(g, w, 1e-4 * std::max(1.0f, std::abs(w))) << "lse row " << r;
        }
      }
    }
  RecordProperty("empty_q_blocks", std::to_string(empty_rows));
  RecordProperty("rel_max", std::to_string(m.rel_max));
}

TEST_P(PortableForward, IsBitwiseReproducible) {
  const Problem p = make_problem(GetParam());
  const DeviceInputs in(p);
  const ForwardOutputs a = device_forward(cuda_ref_backend(), p, in);
  const ForwardOutputs b = device_forward(cuda_ref_backend(), p, in);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(0, std::memcmp(a.lse.data(), b.lse.data(), a.lse.size() * sizeof(float)));
}

INSTANTIATE_TEST_SUITE_P(Cases, PortableForward, ::testing::ValuesIn(attention_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace vsa::test
