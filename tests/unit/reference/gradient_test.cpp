// Finite-difference check of the backward: dQ, dK, dV must be the gradient of
// L = sum(O * dO) with respect to Q, K, V. Independent of the naive loops (which
// share docs/spec.md's formulas with cpu-ref, so a wrong formula would agree with itself).
// bf16 inputs cannot be nudged by 1e-5, hence the fp64 entry points.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cpu_reference.hpp"

namespace vsa {
namespace {

struct Fp64Problem {
  Shape shape;
  std::vector<std::int32_t> q2k_idx, q2k_num, vbs;
  std::vector<double> q, k, v, d_out;

  [[nodiscard]] ref::Selection selection() const { return {q2k_idx.data(), q2k_num.data(), vbs.data()}; }
};

// Tiny on purpose (every input element is perturbed twice). Blocks: vbs {4, 2, 3, 0, 4}:
// block 3 is only padding, block 4 is never selected; q1 selects nothing, q3 only padding.
Fp64Problem tiny_problem() {
  Fp64Problem p;
  p.shape = {1, 2, 5, 5, 4, 3, 1};  // B=1, H=2, nb=5, D=5, BLK=4, max_kv=3
  p.vbs = {4, 2, 3, 0, 4};
  const std::vector<std::vector<int>> rows = {{2, 0}, {}, {1}, {3}, {0, 1, 2}};
  for (std::int64_t bh = 0; bh < p.shape.bh(); ++bh)
    for (const auto& row : rows) {
      p.q2k_num.push_back(int(row.size()));
      for (int e = 0; e < p.shape.max_kv; ++e) p.q2k_idx.push_back(e < int(row.size()) ? row[std::size_t(e)] : -1);
    }
  std::mt19937_64 rng(41);
  // Spread 2: logits of a few units, so the softmax is far from uniform.
  std::uniform_real_distribution<double> uniform(-2.0, 2.0);
  const auto n = std::size_t(p.shape.tensor_elems());
  for (auto* t : {&p.q, &p.k, &p.v, &p.d_out}) {
    t->resize(n);
    for (double& x : *t) x = uniform(rng);
  }
  return p;
}

constexpr ref::Options kFp64{ref::Precision::fp64, 1};

double loss(const Fp64Problem& p) {
  std::vector<double> out(p.q.size()), lse(std::size_t(p.shape.row_elems()));
  const Status st = ref::forward(
      ref::Fp64Forward{p.shape, p.selection(), p.q.data(), p.k.data(), p.v.data(), out.data(), lse.data()}, kFp64);
  EXPECT_TRUE(st.ok()) << st.error;
  double l = 0;
  for (std::size_t i = 0; i < out.size(); ++i) l += out[i] * p.d_out[i];
  return l;
}

TEST(CpuRefGradient, MatchesCentralDifferences) {
  Fp64Problem p = tiny_problem();
  const auto n = std::size_t(p.shape.tensor_elems());
  std::vector<double> out(n), lse(std::size_t(p.shape.row_elems())), dq(n), dk(n), dv(n);
  ASSERT_TRUE(
      ref::forward(ref::Fp64Forward{p.shape, p.selection(), p.q.data(), p.k.data(), p.v.data(), out.data(), lse.data()},
                   kFp64)
          .ok());
  ASSERT_TRUE(ref::backward(ref::Fp64Backward{p.shape, p.selection(), p.q.data(), p.k.data(), p.v.data(), out.data(),
                                              p.d_out.data(), lse.data(), dq.data(), dk.data(), dv.data()},
                            kFp64)
                  .ok());

  // Central differences: truncation ~h^2 * L''' ~ 1e-10, cancellation ~1e-16 * |L| / h
  // ~ 1e-10; a wrong formula (a missing scale, a wrong Delta) is off by O(0.1 .. 1).
  constexpr double h = 1e-5;
  constexpr double tolerance = 1e-7;
  struct Wrt {
    const char* name;
    std::vector<double>* input;
    const std::vector<double>* gradient;
  };
  int nonzero = 0;
  for (const Wrt& w : {Wrt{"dQ", &p.q, &dq}, Wrt{"dK", &p.k, &dk}, Wrt{"dV", &p.v, &dv}}) {
    for (std::size_t i = 0; i < n; ++i) {
      const double x = (*w.input)[i];
      (*w.input)[i] = x + h;
      const double up = loss(p);
      (*w.input)[i] = x - h;
      const double down = loss(p);
      (*w.input)[i] = x;
      const double numeric = (up - down) / (2 * h);
      ASSERT_NEAR((*w.gradient)[i], numeric, tolerance) << w.name << "[" << i << "]";
      nonzero += (*w.gradient)[i] != 0;
    }
  }
  EXPECT_GT(nonzero, int(n));  // the check is not vacuous
}

}  // namespace
}  // namespace vsa
