#pragma once
// Problem shape shared by every backend. Plain C++ (no CUDA types) so host code,
// tests and kernels agree on one definition.
#include <cstdint>

namespace vsa {

struct Shape {
  int batch = 1;       // B
  int heads = 1;       // H
  int num_blocks = 2;  // nb: blocks along the sequence; S = nb * block
  int head_dim = 128;  // D
  int block = 64;      // BLK: tokens per block
  int max_kv = 1;      // row length of q2k_idx (>= every q2k_num)
  int max_q = 1;       // row length of k2q_idx (>= every k2q_num)

  [[nodiscard]] constexpr std::int64_t seq() const { return std::int64_t(num_blocks) * block; }
  [[nodiscard]] constexpr std::int64_t bh() const { return std::int64_t(batch) * heads; }
  // Elements of one [B, H, S, D] tensor.
  [[nodiscard]] constexpr std::int64_t tensor_elems() const { return bh() * seq() * head_dim; }
  // Elements of one [B, H, S] row statistic (lse, Delta).
  [[nodiscard]] constexpr std::int64_t row_elems() const { return bh() * seq(); }
  // Elements of q2k_num / k2q_num ([B, H, nb]).
  [[nodiscard]] constexpr std::int64_t count_elems() const { return bh() * num_blocks; }
  [[nodiscard]] constexpr std::int64_t q2k_idx_elems() const { return count_elems() * max_kv; }
  [[nodiscard]] constexpr std::int64_t k2q_idx_elems() const { return count_elems() * max_q; }
};

}  // namespace vsa
