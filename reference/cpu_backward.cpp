// Backward of the CPU reference (docs/spec.md, "Backward"). One head at a time: for each
// q block (ascending), gather its valid selected keys, recompute P from lse, form dS,
// write dQ of the block, and add its dK / dV contributions into per-head
// accumulators. Five products per q block, the minimum (the k2q walk would recompute
// S and dP a second time); the fixed q-block order makes the sums reproducible.
#include <cmath>
#include <memory>
#include <vector>

#include "cpu_block_math.hpp"
#include "cpu_kernels.hpp"
#include "parallel_items.hpp"

namespace vsa::ref::detail {
namespace {

// One worker's buffers: per-q-block operands sized for the largest q block, and the
// dK / dV accumulators of one head.
template <typename T>
struct BackwardScratch {
  std::vector<KeyRun> runs;
  RowMatrix<T> q, o, d_out, d_q;    // [BLK, D]
  RowMatrix<T> k, v, d_k, d_v;      // [keys, D]
  RowMatrix<T> p, d_s;              // [BLK, keys]
  RowMatrix<T> d_k_head, d_v_head;  // [S, D]

  BackwardScratch(const Shape& shape, std::int64_t max_keys)
      : q(shape.block, shape.head_dim),
        o(shape.block, shape.head_dim),
        d_out(shape.block, shape.head_dim),
        d_q(shape.block, shape.head_dim),
        k(max_keys, shape.head_dim),
        v(max_keys, shape.head_dim),
        d_k(max_keys, shape.head_dim),
        d_v(max_keys, shape.head_dim),
        p(shape.block, max_keys),
        d_s(shape.block, max_keys),
        d_k_head(shape.seq(), shape.head_dim),
        d_v_head(shape.seq(), shape.head_dim) {}
};

// Adds the gathered rows of `part` back onto the head rows they came from.
template <typename T>
void scatter_add(const std::vector<KeyRun>& runs, const MatrixView<T>& part, RowMatrix<T>& head) {
  std::int64_t row = 0;
  for (const KeyRun& run : runs) {
    head.middleRows(run.first, run.count) += part.middleRows(row, run.count);
    row += run.count;
  }
}

template <typename T, typename In, typename Out, typename Stat>
void backward_head(const BackwardTensors<In, Out, Stat>& t, const KeySelection& selection, std::int64_t head,
                   BackwardScratch<T>& scratch) {
  const Shape& sh = t.shape;
  const int blk = sh.block;
  const int d = sh.head_dim;
  const std::int64_t head_offset = head * sh.seq() * d;
  const T scale = T(1.0 / std::sqrt(double(d)));

  scratch.d_k_head.setZero();  // key rows nobody attends to stay exactly 0
  scratch.d_v_head.setZero();
  for (int q_block = 0; q_block < sh.num_blocks; ++q_block) {
    const std::int64_t first_row = std::int64_t(q_block) * blk;
    const std::int64_t block_offset = head_offset + first_row * d;
    Out* d_q_out = t.dq + block_offset;
    const std::int64_t keys = selection.collect(head, q_block, scratch.runs);
    if (keys == 0) {  // no valid key: no gradient flows through these rows
      for (std::int64_t i = 0; i < std::int64_t(blk) * d; ++i) d_q_out[i] = from_scalar<Out>(T(0));
      continue;
    }

    auto q = view(scratch.q, blk, d);
    auto o = view(scratch.o, blk, d);
    auto d_out = view(scratch.d_out, blk, d);
    auto d_q = view(scratch.d_q, blk, d);
    auto k = view(scratch.k, keys, d);
    auto v = view(scratch.v, keys, d);
    auto d_k = view(scratch.d_k, keys, d);
    auto d_v = view(scratch.d_v, keys, d);
    auto p = view(scratch.p, blk, keys);
    auto d_s = view(scratch.d_s, blk, keys);
    load_rows<T>(t.q + block_offset, q);
    load_rows<T>(t.out + block_offset, o);
    load_rows<T>(t.d_out + block_offset, d_out);
    gather_rows<T>(t.k + head_offset, scratch.runs, k);
    gather_rows<T>(t.v + head_offset, scratch.runs, v);

    const Column<T> delta = (o.array() * d_out.array()).rowwise().sum();
    // lse is base 2; in natural-log units P = exp(scale * s - lse * ln 2).
    Column<T> lse_natural(blk);
    for (int r = 0; r < blk; ++r) lse_natural(r) = T(t.lse[head * sh.seq() + first_row + r]) * T(kLn2);

    p.noalias() = q * k.transpose();
    p *= scale;
    p.array().colwise() -= lse_natural.array();
    p.array() = p.array().exp();
    d_s.noalias() = d_out * v.transpose();  // dP
    d_s.array().colwise() -= delta.array();
    d_s.array() *= p.array();  // dS = P (dP - Delta)

    d_q.noalias() = d_s * k;
    store_rows(d_q, scale, d_q_out);
    d_v.noalias() = p.transpose() * d_out;
    d_k.noalias() = d_s.transpose() * q;
    scatter_add(scratch.runs, d_v, scratch.d_v_head);
    scatter_add(scratch.runs, d_k, scratch.d_k_head);
  }
  const auto whole = [&](RowMatrix<T>& m) { return view(m, sh.seq(), d); };
  store_rows(whole(scratch.d_k_head), scale, t.dk + head_offset);
  store_rows(whole(scratch.d_v_head), T(1), t.dv + head_offset);
}

}  // namespace

template <typename T, typename In, typename Out, typename Stat>
Status run_backward(const BackwardTensors<In, Out, Stat>& t, int threads) {
  const KeySelection selection(t.shape, t.selection);
  const std::int64_t items = t.shape.bh();
  const int workers = worker_count(threads, items);
  std::vector<std::unique_ptr<BackwardScratch<T>>> scratch(static_cast<std::size_t>(workers));
  return for_each_item(items, workers, [&](int worker, std::int64_t head) {
    auto& mine = scratch[std::size_t(worker)];
    if (!mine) mine = std::make_unique<BackwardScratch<T>>(t.shape, selection.max_keys());
    backward_head<T>(t, selection, head, *mine);
  });
}

template Status run_backward<float>(const Bf16Backward&, int);
template Status run_backward<double>(const Bf16Backward&, int);
template Status run_backward<float>(const UnroundedBackward&, int);
template Status run_backward<double>(const UnroundedBackward&, int);
template Status run_backward<double>(const Fp64Backward&, int);

}  // namespace vsa::ref::detail
