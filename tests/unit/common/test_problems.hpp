#pragma once
// Random host problems for unit tests: bf16 tensors from the counter generator
// (the same values the harness and the GPU produce for a seed), a q2k map with
// per-row counts, optional zero-count rows, unsorted ids and garbage past the
// counts (kernels must never read it), padded vbs, and the deterministic k2q.
//
//   vsa::test::ProblemSpec spec;
//   spec.shape = {.batch = 2, .heads = 2, .num_blocks = 5, .head_dim = 64, .block = 64, .max_kv = 3};
//   spec.zero_rows = 0.25;
//   auto p = vsa::test::make_problem(spec);
//   std::vector<vsa::bf16_bits> out(p.tensor_elems());
//   std::vector<float> lse(p.row_elems());
//   auto args = p.forward_args(out.data(), lse.data());
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "inversion.hpp"
#include "vsa/backend.hpp"
#include "vsa/counter_rng.hpp"

namespace vsa::test {

struct ProblemSpec {
  Shape shape;  // max_kv is the q2k row length; max_q is filled in from the inversion
  std::uint64_t seed = 1;
  float scale = 1.0f;                  // input scale (docs/spec.md: x1, x4, x16)
  double zero_rows = 0.0;              // probability that a q block's count is 0
  bool full_rows = false;              // every count = max_kv (else uniform in [1, max_kv])
  bool padded = false;                 // vbs uniform in [1, BLK] (else every block full)
  bool shuffled = true;                // ids in random order (else ascending, as FastVideo gives)
  std::vector<int> vbs;                // when non-empty: these vbs, overriding `padded`
  std::vector<std::vector<int>> rows;  // when non-empty: these q2k rows (one per q block,
                                       // same for every head), overriding the random ones
};

struct HostProblem {
  Shape shape;
  std::vector<bf16_bits> q, k, v, d_out;
  std::vector<std::int32_t> q2k_idx, q2k_num, vbs, k2q_idx, k2q_num;

  [[nodiscard]] std::int64_t tensor_elems() const { return shape.tensor_elems(); }
  [[nodiscard]] std::int64_t row_elems() const { return shape.row_elems(); }
  [[nodiscard]] std::int64_t pairs() const { return std::accumulate(q2k_num.begin(), q2k_num.end(), std::int64_t(0)); }

  [[nodiscard]] ForwardArgs forward_args(bf16_bits* out, float* lse) const {
    ForwardArgs a;
    a.shape = shape;
    a.q = q.data();
    a.k = k.data();
    a.v = v.data();
    a.q2k_idx = q2k_idx.data();
    a.q2k_num = q2k_num.data();
    a.vbs = vbs.data();
    a.out = out;
    a.lse = lse;
    return a;
  }

  [[nodiscard]] BackwardArgs backward_args(const bf16_bits* out, const float* lse, bf16_bits* dq, bf16_bits* dk,
                                           bf16_bits* dv) const {
    BackwardArgs a;
    a.shape = shape;
    a.q = q.data();
    a.k = k.data();
    a.v = v.data();
    a.out = out;
    a.d_out = d_out.data();
    a.lse = lse;
    a.q2k_idx = q2k_idx.data();
    a.q2k_num = q2k_num.data();
    a.k2q_idx = k2q_idx.data();
    a.k2q_num = k2q_num.data();
    a.vbs = vbs.data();
    a.dq = dq;
    a.dk = dk;
    a.dv = dv;
    return a;
  }
};

inline std::vector<bf16_bits> counter_tensor(std::int64_t count, std::uint64_t seed, TensorId id, float scale) {
  std::vector<bf16_bits> t(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) t[std::size_t(i)] = counter_bf16(seed, id, std::uint64_t(i), scale);
  return t;
}

inline HostProblem make_problem(const ProblemSpec& spec) {
  HostProblem p;
  p.shape = spec.shape;
  Shape& s = p.shape;
  const int nb = s.num_blocks;
  std::mt19937_64 rng(spec.seed);

  p.vbs.assign(std::size_t(nb), s.block);
  if (!spec.vbs.empty())
    p.vbs.assign(spec.vbs.begin(), spec.vbs.end());
  else if (spec.padded)
    for (auto& n : p.vbs) n = std::uniform_int_distribution<int>(1, s.block)(rng);

  if (!spec.rows.empty())
    for (const auto& row : spec.rows) s.max_kv = std::max(s.max_kv, int(row.size()));
  // Past the counts: values no valid entry can hold, so reading them would show.
  p.q2k_idx.assign(std::size_t(s.q2k_idx_elems()), -7);
  p.q2k_num.assign(std::size_t(s.count_elems()), 0);
  std::vector<int> ids(static_cast<std::size_t>(nb));
  for (std::int64_t bh = 0; bh < s.bh(); ++bh)
    for (int qb = 0; qb < nb; ++qb) {
      const std::int64_t row = bh * nb + qb;
      std::int32_t* idx = p.q2k_idx.data() + row * s.max_kv;
      if (!spec.rows.empty()) {
        const auto& fixed = spec.rows[std::size_t(qb)];
        std::copy(fixed.begin(), fixed.end(), idx);
        p.q2k_num[std::size_t(row)] = int(fixed.size());
        continue;
      }
      const int limit = std::min(s.max_kv, nb);
      int count = spec.full_rows ? limit : std::uniform_int_distribution<int>(1, std::max(limit, 1))(rng);
      if (std::bernoulli_distribution(spec.zero_rows)(rng)) count = 0;
      std::iota(ids.begin(), ids.end(), 0);
      std::shuffle(ids.begin(), ids.end(), rng);
      if (!spec.shuffled) std::sort(ids.begin(), ids.begin() + count);
      std::copy(ids.begin(), ids.begin() + count, idx);
      p.q2k_num[std::size_t(row)] = count;
    }

  const auto inverted = ref::invert_q2k(s, p.q2k_idx.data(), p.q2k_num.data());
  s.max_q = inverted.max_q;
  p.k2q_idx = inverted.k2q_idx;
  p.k2q_num = inverted.k2q_num;

  const std::int64_t n = s.tensor_elems();
  p.q = counter_tensor(n, spec.seed, TensorId::q, spec.scale);
  p.k = counter_tensor(n, spec.seed, TensorId::k, spec.scale);
  p.v = counter_tensor(n, spec.seed, TensorId::v, spec.scale);
  p.d_out = counter_tensor(n, spec.seed, TensorId::d_out, 1.0f);
  return p;
}

}  // namespace vsa::test
