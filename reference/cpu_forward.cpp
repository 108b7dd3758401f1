// Forward of the CPU reference (docs/spec.md, "Forward"): per q block, gather the valid
// selected keys, S = Q K^T, exact softmax over all of them, O = P V.
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "cpu_block_math.hpp"
#include "cpu_kernels.hpp"
#include "parallel_items.hpp"

namespace vsa::ref::detail {
namespace {

// One worker's buffers, sized once for the largest q block.
template <typename T>
struct ForwardScratch {
  std::vector<KeyRun> runs;
  RowMatrix<T> q, k, v, s, o;

  ForwardScratch(const Shape& shape, std::int64_t max_keys)
      : q(shape.block, shape.head_dim),
        k(max_keys, shape.head_dim),
        v(max_keys, shape.head_dim),
        s(shape.block, max_keys),
        o(shape.block, shape.head_dim) {}
};

template <typename T, typename In, typename Out, typename Stat>
void forward_q_block(const ForwardTensors<In, Out, Stat>& t, const KeySelection& selection, std::int64_t head,
                     int q_block, ForwardScratch<T>& scratch) {
  const Shape& sh = t.shape;
  const int blk = sh.block;
  const int d = sh.head_dim;
  const std::int64_t head_offset = head * sh.seq() * d;
  const std::int64_t first_row = std::int64_t(q_block) * blk;
  Out* out = t.out + head_offset + first_row * d;
  Stat* lse = t.lse + head * sh.seq() + first_row;

  const std::int64_t keys = selection.collect(head, q_block, scratch.runs);
  if (keys == 0) {  // nothing to attend to: O = 0 exactly, lse = -inf
    for (std::int64_t i = 0; i < std::int64_t(blk) * d; ++i) out[i] = from_scalar<Out>(T(0));
    for (int r = 0; r < blk; ++r) lse[r] = -std::numeric_limits<Stat>::infinity();
    return;
  }

  auto q = view(scratch.q, blk, d);
  auto k = view(scratch.k, keys, d);
  auto v = view(scratch.v, keys, d);
  auto s = view(scratch.s, blk, keys);
  auto o = view(scratch.o, blk, d);
  load_rows<T>(t.q + head_offset + first_row * d, q);
  gather_rows<T>(t.k + head_offset, scratch.runs, k);
  gather_rows<T>(t.v + head_offset, scratch.runs, v);

  const T scale = T(1.0 / std::sqrt(double(d)));
  s.noalias() = q * k.transpose();
  s *= scale;  // natural-log logits
  const Column<T> row_max = s.rowwise().maxCoeff();
  s.array().colwise() -= row_max.array();
  s.array() = s.array().exp();  // unnormalised P, every entry in (0, 1]
  const Column<T> row_sum = s.rowwise().sum();
  o.noalias() = s * v;

  // Eigen's vectorised log rather than libm's: one implementation on every host.
  const Column<T> log_sum = row_sum.array().log();
  for (int r = 0; r < blk; ++r) {
    const T inv = T(1) / row_sum(r);
    for (int c = 0; c < d; ++c) out[std::int64_t(r) * d + c] = from_scalar<Out>(o(r, c) * inv);
    lse[r] = Stat(T(kLog2e) * (row_max(r) + log_sum(r)));
  }
}

}  // namespace

template <typename T, typename In, typename Out, typename Stat>
Status run_forward(const ForwardTensors<In, Out, Stat>& t, int threads) {
  const KeySelection selection(t.shape, t.selection);
  const std::int64_t items = t.shape.count_elems();  // (b, h, q block)
  const int workers = worker_count(threads, items);
  // Scratch is built inside the workers (allocation failures become a Status there).
  std::vector<std::unique_ptr<ForwardScratch<T>>> scratch(static_cast<std::size_t>(workers));
  return for_each_item(items, workers, [&](int worker, std::int64_t item) {
    auto& mine = scratch[std::size_t(worker)];
    if (!mine) mine = std::make_unique<ForwardScratch<T>>(t.shape, selection.max_keys());
    forward_q_block<T>(t, selection, item / t.shape.num_blocks, int(item % t.shape.num_blocks), *mine);
  });
}

template Status run_forward<float>(const Bf16Forward&, int);
template Status run_forward<double>(const Bf16Forward&, int);
template Status run_forward<float>(const UnroundedForward&, int);
template Status run_forward<double>(const UnroundedForward&, int);
template Status run_forward<double>(const Fp64Forward&, int);

}  // namespace vsa::ref::detail
