#pragma once
// The obviously-right reference: fp64 triple loops straight from docs/spec.md, no
// tiling, no Eigen, no threads. Slow (use tiny shapes); every other backend,
// including the Eigen CPU reference, is tested against it.
#include "vsa/backend.hpp"

namespace vsa::naive {

// O, lse (M format). Reads host pointers in args; writes out and lse.
void forward(const ForwardArgs& args);
// dQ, dK, dV. Uses q2k only (the k2q fields of args are ignored), so it also
// serves to check index inversion in other backends.
void backward(const BackwardArgs& args);

}  // namespace vsa::naive
