#pragma once
// The softmax scale of docs/spec.md, computed once on the host in double and rounded
// once to fp32, so forward and backward use the very same constants.
#include <cmath>

namespace vsa::portable {

struct SoftmaxScale {
  float scale;       // 1 / sqrt(D): multiplies dQ and dK
  float scale_log2;  // scale * log2(e): turns a logit into the base-2 exponent
};

inline SoftmaxScale softmax_scale(int head_dim) {
  const double scale = 1.0 / std::sqrt(double(head_dim));
  return {float(scale), float(scale * 1.4426950408889634)};
}

}  // namespace vsa::portable
