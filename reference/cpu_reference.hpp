#pragma once
// The CPU reference (backend "cpu-ref"): VSA block-sparse attention forward and
// backward exactly per docs/spec.md, on host memory, with Eigen products.
//
// For each q block the selected, valid key rows are gathered into one contiguous
// matrix, so a q block is a handful of dense products (S = Q K^T, O = P V, ...)
// and the softmax runs over all its keys at once (no online rescaling). Keys at
// in-block position >= vbs[key block] are simply not gathered: that is the mask.
// Design notes and measured throughput: reference/NOTES.md.
//
// Results do not depend on the thread count, bit for bit (tested).
#include <cstdint>

#include "vsa/backend.hpp"

namespace vsa::ref {

// Scalar type of every internal product and sum.
enum class Precision { fp32, fp64 };

struct Options {
  Precision precision = Precision::fp32;
  int threads = 0;  // 0: one per hardware thread
};

// Which key blocks each q block attends to, and how many valid tokens each block
// has (docs/spec.md). Host pointers; entries of q2k_idx past q2k_num are never read.
// Checked before use: counts in [0, max_kv], ids in [0, nb), vbs in [0, BLK]
// (vbs 0 is accepted: such a block only holds padding). Ids within a row are not
// checked for distinctness: a repeated id counts its keys twice, as in the naive loops.
struct Selection {
  const std::int32_t* q2k_idx = nullptr;  // [B, H, nb, max_kv]
  const std::int32_t* q2k_num = nullptr;  // [B, H, nb]
  const std::int32_t* vbs = nullptr;      // [nb]
};

// Host tensors of one call, [B, H, S, D] row-major, typed by what flows in and out:
// In: bf16_bits (the backend interface) or double; Out: bf16_bits, float or double;
// Stat (lse): float or double. The supported combinations are the aliases below.
template <typename In, typename Out, typename Stat>
struct ForwardTensors {
  Shape shape;
  Selection selection;
  const In* q = nullptr;
  const In* k = nullptr;
  const In* v = nullptr;
  Out* out = nullptr;
  Stat* lse = nullptr;  // [B, H, S], M format: base-2 log-sum-exp of the scaled logits
};

// k2q is not an input: dK and dV accumulate per head over q blocks in ascending
// order, the same order a k2q walk (ascending q, reference/inversion.hpp) gives.
template <typename In, typename Out, typename Stat>
struct BackwardTensors {
  Shape shape;
  Selection selection;
  const In* q = nullptr;
  const In* k = nullptr;
  const In* v = nullptr;
  const In* out = nullptr;    // forward O
  const In* d_out = nullptr;  // dO
  const Stat* lse = nullptr;  // forward lse, M format
  Out* dq = nullptr;
  Out* dk = nullptr;
  Out* dv = nullptr;
};

// bf16 in, bf16 out, fp32 lse: what the backend interface carries.
using Bf16Forward = ForwardTensors<bf16_bits, bf16_bits, float>;
using Bf16Backward = BackwardTensors<bf16_bits, bf16_bits, float>;
// bf16 in, fp32 out: the same computation before the final bf16 rounding, so tests
// can compare references at fp32 resolution.
using UnroundedForward = ForwardTensors<bf16_bits, float, float>;
using UnroundedBackward = BackwardTensors<bf16_bits, float, float>;
// fp64 in and out: inputs that can be perturbed finer than bf16 allows
// (finite-difference gradient checks). Always computed in fp64, whatever
// Options::precision says.
using Fp64Forward = ForwardTensors<double, double, double>;
using Fp64Backward = BackwardTensors<double, double, double>;

// Writes out and lse. A row with no valid selected key (count 0, or only padding)
// gets O = 0 exactly and lse = -inf. Fails (nothing escapes) on a bad shape, a null
// pointer, an out-of-range count/id/vbs, or an allocation failure.
template <typename In, typename Out, typename Stat>
[[nodiscard]] Status forward(const ForwardTensors<In, Out, Stat>& tensors, const Options& options = {});

// Writes dq, dk, dv. Rows of q blocks with no valid selected key get dQ = 0 exactly;
// key rows nobody attends to (unselected blocks, padding) get dK = dV = 0 exactly.
template <typename In, typename Out, typename Stat>
[[nodiscard]] Status backward(const BackwardTensors<In, Out, Stat>& tensors, const Options& options = {});

extern template Status forward(const Bf16Forward&, const Options&);
extern template Status forward(const UnroundedForward&, const Options&);
extern template Status forward(const Fp64Forward&, const Options&);
extern template Status backward(const Bf16Backward&, const Options&);
extern template Status backward(const UnroundedBackward&, const Options&);
extern template Status backward(const Fp64Backward&, const Options&);

// Views of the backend arguments (host pointers). The k2q fields of BackwardArgs
// are not used (see BackwardTensors).
[[nodiscard]] Bf16Forward tensors_of(const ForwardArgs& args);
[[nodiscard]] Bf16Backward tensors_of(const BackwardArgs& args);

}  // namespace vsa::ref
