#pragma once
// Internal to the CPU reference: the pieces forward and backward share. Which key
// rows a q block sees (the sparsity policy, masking included), moving rows between
// the typed host tensors and Eigen scratch, and the constants of docs/spec.md.
#include <Eigen/Core>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cpu_reference.hpp"

namespace vsa::ref::detail {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatrixView = Eigen::Map<RowMatrix<T>>;
template <typename T>
using Column = Eigen::Matrix<T, Eigen::Dynamic, 1>;

inline constexpr double kLog2e = 1.4426950408889634074;
inline constexpr double kLn2 = 0.69314718055994530942;

// Contiguous valid key rows of one selected block: rows [first, first + count) of a head.
struct KeyRun {
  std::int64_t first = 0;
  int count = 0;
};

// The sparsity policy in one place: for (head, q block), which key rows are attended.
// Keys at in-block position >= vbs[key block] are padding and left out; that is the
// only masking (query rows are never masked). Runs come in q2k order.
class KeySelection {
 public:
  KeySelection(const Shape& shape, const Selection& selection) : m_shape(shape), m_sel(selection) {}

  // Fills `runs` and returns the number of valid keys (0: the row attends to nothing).
  [[nodiscard]] std::int64_t collect(std::int64_t head, int q_block, std::vector<KeyRun>& runs) const {
    runs.clear();
    const std::int64_t row = head * m_shape.num_blocks + q_block;
    std::int64_t keys = 0;
    for (int e = 0; e < m_sel.q2k_num[row]; ++e) {
      const int kb = m_sel.q2k_idx[row * m_shape.max_kv + e];
      const int valid = m_sel.vbs[kb];
      if (valid == 0) continue;
      runs.push_back({std::int64_t(kb) * m_shape.block, valid});
      keys += valid;
    }
    return keys;
  }

  // Most keys one q block can see: scratch sizing.
  [[nodiscard]] std::int64_t max_keys() const { return std::int64_t(m_shape.max_kv) * m_shape.block; }

 private:
  Shape m_shape;
  Selection m_sel;
};

template <typename T, typename In>
inline T to_scalar(In x) {
  if constexpr (std::is_same_v<In, bf16_bits>)
    return T(bf16_to_float(x));
  else
    return T(x);
}

// bf16 outputs go through float, as the naive reference does (one rounding rule everywhere).
template <typename Out, typename T>
inline Out from_scalar(T x) {
  if constexpr (std::is_same_v<Out, bf16_bits>)
    return float_to_bf16(float(x));
  else
    return Out(x);
}

// Fills dst (converting) from dst.rows() consecutive rows of a [.., D] tensor at src.
template <typename T, typename In>
inline void load_rows(const In* src, MatrixView<T> dst) {
  const std::int64_t n = dst.size();
  T* d = dst.data();
  for (std::int64_t i = 0; i < n; ++i) d[i] = to_scalar<T>(src[i]);
}

// Gathers the key runs of one head into consecutive rows of dst.
template <typename T, typename In>
inline void gather_rows(const In* head, const std::vector<KeyRun>& runs, MatrixView<T> dst) {
  const std::int64_t width = dst.cols();
  std::int64_t row = 0;
  for (const KeyRun& run : runs) {
    load_rows<T>(head + run.first * width, MatrixView<T>(dst.data() + row * width, run.count, width));
    row += run.count;
  }
}

// Writes factor * src (converting) to src.rows() consecutive rows of a [.., D] tensor at dst.
template <typename Out, typename T>
inline void store_rows(const MatrixView<T>& src, T factor, Out* dst) {
  const std::int64_t n = src.size();
  const T* s = src.data();
  for (std::int64_t i = 0; i < n; ++i) dst[i] = from_scalar<Out>(factor * s[i]);
}

// Scratch rows for up to `rows` x `cols`, viewed as exactly rows x cols.
template <typename T>
inline MatrixView<T> view(RowMatrix<T>& storage, std::int64_t rows, std::int64_t cols) {
  return MatrixView<T>(storage.data(), rows, cols);
}

// Pins Eigen's product blocking to fixed cache sizes, so the summation order inside
// a product (and so the result bits) is the same on every machine, not tuned to the
// local L1/L2. Called once, before any worker thread starts.
void pin_eigen_blocking();

}  // namespace vsa::ref::detail
