#pragma once
// Small random block-sparse problems for the cuda-ref device tests, built on the
// host from a seed: inputs from the counter generator, q2k rows with ragged counts
// (zeros included), distinct ids in shuffled (unsorted) order, and in-range garbage
// past each row's count, so a kernel that reads past q2k_num gets wrong answers
// instead of skipping a -1. Plus the error metrics of docs/spec.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <ostream>
#include <string>
#include <vector>

#include "vsa/counter_rng.hpp"
#include "vsa/shape.hpp"

namespace vsa::test {

enum class VbsPattern { full, tail_only, random };

struct ProblemSpec {
  std::string name;
  int batch = 1, heads = 1, num_blocks = 2, head_dim = 64, block = 64, max_kv = 1;
  std::uint64_t seed = 1;
  float scale = 1.0f;  // input scale (x1, x4, x16)
  VbsPattern vbs = VbsPattern::full;
  bool zero_rows = true;  // force some q2k rows to count 0
};

// gtest prints a failing parameter with this instead of its raw bytes.
inline void PrintTo(const ProblemSpec& p, std::ostream* os) { *os << p.name; }

struct Problem {
  Shape shape;
  std::vector<bf16_bits> q, k, v, d_out;
  std::vector<std::int32_t> q2k_idx, q2k_num, vbs;
};

// Deterministic integers from the counter hash (TensorId::aux), independent of <random>.
class IndexStream {
 public:
  explicit IndexStream(std::uint64_t seed) : m_seed(seed) {}
  int below(int n) { return int(counter_hash(m_seed, TensorId::aux, m_next++) % std::uint64_t(n)); }

 private:
  std::uint64_t m_seed;
  std::uint64_t m_next = 0;
};

inline std::vector<bf16_bits> generate_host(std::uint64_t seed, TensorId id, std::int64_t count, float scale) {
  std::vector<bf16_bits> out(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) out[std::size_t(i)] = counter_bf16(seed, id, std::uint64_t(i), scale);
  return out;
}

// Random q2k: row lengths in [0, max_kv] (every 3rd row 0 when zero_rows), distinct ids, shuffled.
inline void random_q2k(const Shape& s, std::uint64_t seed, bool zero_rows, std::vector<std::int32_t>& idx,
                       std::vector<std::int32_t>& num) {
  IndexStream rng(seed);
  idx.assign(std::size_t(s.q2k_idx_elems()), 0);
  num.assign(std::size_t(s.count_elems()), 0);
  // A permutation of [0, nb) kept across rows: a partial Fisher-Yates over its first
  // `count` slots draws `count` distinct ids uniformly, whatever order it starts in.
  std::vector<std::int32_t> ids(std::size_t(s.num_blocks));
  std::iota(ids.begin(), ids.end(), 0);
  for (std::int64_t row = 0; row < s.count_elems(); ++row) {
    const int count = (zero_rows && row % 3 == 1) ? 0 : rng.below(std::min(s.max_kv, s.num_blocks) + 1);
    for (int i = 0; i < count; ++i) std::swap(ids[std::size_t(i)], ids[std::size_t(i + rng.below(s.num_blocks - i))]);
    num[std::size_t(row)] = count;
    for (int e = 0; e < s.max_kv; ++e)
      idx[std::size_t(row * s.max_kv + e)] = e < count ? ids[std::size_t(e)] : rng.below(s.num_blocks);
  }
}

// Every row selects exactly max_kv distinct kv blocks (top-k with k = max_kv), shuffled.
inline void topk_q2k(const Shape& s, std::uint64_t seed, std::vector<std::int32_t>& idx,
                     std::vector<std::int32_t>& num) {
  IndexStream rng(seed);
  idx.assign(std::size_t(s.q2k_idx_elems()), 0);
  num.assign(std::size_t(s.count_elems()), s.max_kv);
  std::vector<std::int32_t> ids(std::size_t(s.num_blocks));
  std::iota(ids.begin(), ids.end(), 0);
  for (std::int64_t row = 0; row < s.count_elems(); ++row)
    for (int i = 0; i < s.max_kv; ++i) {
      std::swap(ids[std::size_t(i)], ids[std::size_t(i + rng.below(s.num_blocks - i))]);
      idx[std::size_t(row * s.max_kv + i)] = ids[std::size_t(i)];
    }
}

inline Problem make_problem(const ProblemSpec& p) {
  Problem pr;
  Shape& s = pr.shape;
  s.batch = p.batch;
  s.heads = p.heads;
  s.num_blocks = p.num_blocks;
  s.head_dim = p.head_dim;
  s.block = p.block;
  s.max_kv = p.max_kv;
  const std::int64_t n = s.tensor_elems();
  pr.q = generate_host(p.seed, TensorId::q, n, p.scale);
  pr.k = generate_host(p.seed, TensorId::k, n, p.scale);
  pr.v = generate_host(p.seed, TensorId::v, n, p.scale);
  pr.d_out = generate_host(p.seed, TensorId::d_out, n, p.scale);
  random_q2k(s, p.seed * 7919 + 1, p.zero_rows, pr.q2k_idx, pr.q2k_num);
  IndexStream rng(p.seed * 104729 + 3);
  pr.vbs.assign(std::size_t(s.num_blocks), s.block);
  if (p.vbs == VbsPattern::tail_only) pr.vbs.back() = std::max(1, s.block / 3);
  if (p.vbs == VbsPattern::random)
    for (auto& v : pr.vbs) v = 1 + rng.below(s.block);
  return pr;
}

// The small cases cuda-ref is checked on against vsa::naive: B > 1, odd nb, D = 64 / 128
// and odd sizes (80: a partial lane chunk; 48 with BLK = 48), BLK = 64 / 128, padded vbs,
// zero-count rows, input scales x1 / x4 / x16.
inline std::vector<ProblemSpec> attention_cases() {
  return {
      {"b2h2_nb5_d64", 2, 2, 5, 64, 64, 3, 11, 1.0f, VbsPattern::random, true},
      {"b1h3_nb3_d128_x4", 1, 3, 3, 128, 64, 3, 12, 4.0f, VbsPattern::tail_only, true},
      {"b1h2_nb3_d64_blk128", 1, 2, 3, 64, 128, 2, 13, 1.0f, VbsPattern::random, true},
      {"b2h1_nb7_d80_x16", 2, 1, 7, 80, 64, 4, 14, 16.0f, VbsPattern::random, true},
      {"b1h1_nb4_d256", 1, 1, 4, 256, 64, 2, 15, 1.0f, VbsPattern::full, false},
      {"b1h2_nb9_d48_blk48", 1, 2, 9, 48, 48, 5, 16, 1.0f, VbsPattern::random, true},
  };
}

// max|got - ref| / max|ref| and ||got - ref|| / ||ref|| over bf16 tensors (docs/spec.md).
struct ErrorMetrics {
  double rel_max = 0, rel_l2 = 0;
  std::int64_t non_finite = 0;  // NaN / Inf in got
};

inline ErrorMetrics compare_bf16(const std::vector<bf16_bits>& got, const std::vector<bf16_bits>& ref) {
  ErrorMetrics m;
  double max_diff = 0, max_ref = 0, sum_diff2 = 0, sum_ref2 = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double g = bf16_to_float(got[i]), r = bf16_to_float(ref[i]);
    if (!std::isfinite(g)) {
      ++m.non_finite;
      continue;
    }
    max_diff = std::max(max_diff, std::abs(g - r));
    max_ref = std::max(max_ref, std::abs(r));
    sum_diff2 += (g - r) * (g - r);
    sum_ref2 += r * r;
  }
  m.rel_max = max_ref > 0 ? max_diff / max_ref : max_diff;
  m.rel_l2 = sum_ref2 > 0 ? std::sqrt(sum_diff2 / sum_ref2) : std::sqrt(sum_diff2);
  return m;
}

}  // namespace vsa::test
