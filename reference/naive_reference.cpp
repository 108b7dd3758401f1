#include "naive_reference.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace vsa::naive {
namespace {

struct Indexer {
  const Shape& s;
  // Row r of head (b, h) in a [B, H, S, D] tensor.
  [[nodiscard]] std::int64_t row(std::int64_t bh, std::int64_t r) const { return (bh * s.seq() + r) * s.head_dim; }
  [[nodiscard]] std::int64_t count(std::int64_t bh, int blk) const { return bh * s.num_blocks + blk; }
  [[nodiscard]] std::int64_t q2k(std::int64_t bh, int blk, int n) const {
    return (bh * s.num_blocks + blk) * s.max_kv + n;
  }
};

double dot_bf16(const bf16_bits* a, const bf16_bits* b, int d) {
  double acc = 0;
  for (int i = 0; i < d; ++i) acc += double(bf16_to_float(a[i])) * double(bf16_to_float(b[i]));
  return acc;
}

// Keys attended by query block qb of head bh: (global key row) for every valid key.
std::vector<std::int64_t> selected_keys(const Indexer& ix, const std::int32_t* q2k_idx, const std::int32_t* q2k_num,
                                        const std::int32_t* vbs, std::int64_t bh, int qb) {
  std::vector<std::int64_t> keys;
  const int n = q2k_num[ix.count(bh, qb)];
  for (int e = 0; e < n; ++e) {
    const int kb = q2k_idx[ix.q2k(bh, qb, e)];
    for (int p = 0; p < vbs[kb]; ++p) keys.push_back(std::int64_t(kb) * ix.s.block + p);
  }
  return keys;
}

}  // namespace

void forward(const ForwardArgs& a) {
  const Shape& s = a.shape;
  const Indexer ix{s};
  const double scale = 1.0 / std::sqrt(double(s.head_dim));
  const double log2e = 1.4426950408889634;
  for (std::int64_t bh = 0; bh < s.bh(); ++bh) {
    for (int qb = 0; qb < s.num_blocks; ++qb) {
      const auto keys = selected_keys(ix, a.q2k_idx, a.q2k_num, a.vbs, bh, qb);
      for (int rr = 0; rr < s.block; ++rr) {
        const std::int64_t r = std::int64_t(qb) * s.block + rr;
        const bf16_bits* qrow = a.q + ix.row(bh, r);
        std::vector<double> logits(keys.size());
        double m = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < keys.size(); ++j) {
          logits[j] = scale * dot_bf16(qrow, a.k + ix.row(bh, keys[j]), s.head_dim);
          m = std::max(m, logits[j]);
        }
        double l = 0;
        for (double x : logits) l += std::exp(x - m);
        std::vector<double> o(s.head_dim, 0.0);
        for (std::size_t j = 0; j < keys.size(); ++j) {
          const double p = std::exp(logits[j] - m) / l;
          const bf16_bits* vrow = a.v + ix.row(bh, keys[j]);
          for (int d = 0; d < s.head_dim; ++d) o[d] += p * bf16_to_float(vrow[d]);
        }
        for (int d = 0; d < s.head_dim; ++d) a.out[ix.row(bh, r) + d] = float_to_bf16(float(o[d]));
        a.lse[bh * s.seq() + r] =
            keys.empty() ? -std::numeric_limits<float>::infinity() : float(log2e * (m + std::log(l)));
      }
    }
  }
}

void backward(const BackwardArgs& a) {
  const Shape& s = a.shape;
  const Indexer ix{s};
  const double scale = 1.0 / std::sqrt(double(s.head_dim));
  const double log2e = 1.4426950408889634;
  const int D = s.head_dim;
  std::vector<double> dq(s.tensor_elems(), 0.0), dk(s.tensor_elems(), 0.0), dv(s.tensor_elems(), 0.0);
  for (std::int64_t bh = 0; bh < s.bh(); ++bh) {
    for (int qb = 0; qb < s.num_blocks; ++qb) {
      const auto keys = selected_keys(ix, a.q2k_idx, a.q2k_num, a.vbs, bh, qb);
      for (int rr = 0; rr < s.block; ++rr) {
        const std::int64_t r = std::int64_t(qb) * s.block + rr;
        const std::int64_t qrow = ix.row(bh, r);
        double delta = 0;
        for (int d = 0; d < D; ++d) delta += double(bf16_to_float(a.out[qrow + d])) * bf16_to_float(a.d_out[qrow + d]);
        const double lse = a.lse[bh * s.seq() + r];
        for (std::int64_t key : keys) {
          const std::int64_t krow = ix.row(bh, key);
          const double sc = dot_bf16(a.q + qrow, a.k + krow, D);
          const double p = std::exp2(scale * log2e * sc - lse);
          const double dp = dot_bf16(a.d_out + qrow, a.v + krow, D);
          const double ds = p * (dp - delta);
          for (int d = 0; d < D; ++d) {
            dv[krow + d] += p * bf16_to_float(a.d_out[qrow + d]);
            dk[krow + d] += scale * ds * bf16_to_float(a.q[qrow + d]);
            dq[qrow + d] += scale * ds * bf16_to_float(a.k[krow + d]);
          }
        }
      }
    }
  }
  for (std::int64_t i = 0; i < s.tensor_elems(); ++i) {
    a.dq[i] = float_to_bf16(float(dq[i]));
    a.dk[i] = float_to_bf16(float(dk[i]));
    a.dv[i] = float_to_bf16(float(dv[i]));
  }
}

}  // namespace vsa::naive
