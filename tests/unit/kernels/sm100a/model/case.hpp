#pragma once
// A small sparse-attention case for the execution model's tests: ragged q2k lists with an
// empty one, a padded last key block (vbs), and the k2q inversion for the backward.
#include <random>
#include <vector>

#include "vsa/backend.hpp"
#include "vsa/bf16.hpp"

namespace vsa::model_test {

struct Case {
  Shape s;
  std::vector<bf16_bits> q, k, v, d_out;
  std::vector<std::int32_t> q2k_idx, q2k_num, k2q_idx, k2q_num, vbs;

  Case(int block, int nb, int heads) {
    s.batch = 1;
    s.heads = heads;
    s.num_blocks = nb;
    s.block = block;
    s.head_dim = 128;
    s.max_kv = 3;
    s.max_q = nb;
    std::mt19937 rng(7);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (auto* t : {&q, &k, &v, &d_out}) {
      t->resize(std::size_t(s.tensor_elems()));
      for (auto& x : *t) x = float_to_bf16(nd(rng));
    }
    q2k_idx.assign(std::size_t(s.q2k_idx_elems()), 0);
    q2k_num.assign(std::size_t(s.count_elems()), 0);
    for (int i = 0; i < s.count_elems(); ++i) {
      q2k_num[std::size_t(i)] = i % 4 == 1 ? 0 : 1 + i % 3;  // ragged, one empty list
      for (int j = 0; j < s.max_kv; ++j) q2k_idx[std::size_t(i * s.max_kv + j)] = (i * 3 + j) % nb;
    }
    vbs.assign(std::size_t(nb), block);
    vbs[std::size_t(nb - 1)] = block - 23;  // a partial last key block
    k2q_idx.assign(std::size_t(s.k2q_idx_elems()), 0);
    k2q_num.assign(std::size_t(s.count_elems()), 0);
    for (int bh = 0; bh < s.bh(); ++bh)
      for (int qb = 0; qb < nb; ++qb) {
        const int item = bh * nb + qb;
        for (int j = 0; j < q2k_num[std::size_t(item)]; ++j) {
          const int kit = bh * nb + q2k_idx[std::size_t(item * s.max_kv + j)];
          k2q_idx[std::size_t(kit * s.max_q + k2q_num[std::size_t(kit)]++)] = qb;
        }
      }
  }
  ForwardArgs forward(std::vector<bf16_bits>& o, std::vector<float>& lse) const {
    o.assign(std::size_t(s.tensor_elems()), 0);
    lse.assign(std::size_t(s.row_elems()), 0);
    ForwardArgs a;
    a.shape = s;
    a.q = q.data();
    a.k = k.data();
    a.v = v.data();
    a.q2k_idx = q2k_idx.data();
    a.q2k_num = q2k_num.data();
    a.vbs = vbs.data();
    a.out = o.data();
    a.lse = lse.data();
    return a;
  }
};

}  // namespace vsa::model_test
