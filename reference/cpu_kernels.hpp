#pragma once
// Internal to the CPU reference: the forward and backward loops, templated on the
// scalar T of every product and sum (float or double). cpu_reference.cpp checks
// the arguments and picks T; cpu_forward.cpp / cpu_backward.cpp define these and
// instantiate them for the tensor types of cpu_reference.hpp.
#include "cpu_reference.hpp"

namespace vsa::ref::detail {

// Work items: one per (b, h, q block); any thread count gives the same bits.
template <typename T, typename In, typename Out, typename Stat>
[[nodiscard]] Status run_forward(const ForwardTensors<In, Out, Stat>& t, int threads);

// Work items: one per (b, h), since dK / dV of a head accumulate over its q blocks
// in a fixed order; any thread count gives the same bits.
template <typename T, typename In, typename Out, typename Stat>
[[nodiscard]] Status run_backward(const BackwardTensors<In, Out, Stat>& t, int threads);

}  // namespace vsa::ref::detail
