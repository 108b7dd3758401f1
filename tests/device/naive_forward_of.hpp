#pragma once
// The fp64 naive forward (reference/naive_reference.hpp) of any test problem type, for the
// device tests' references: the portable tests' Problem and the fast kernels' FwdProblem
// hold the same fields.
#include <cstddef>
#include <vector>

#include "naive_reference.hpp"
#include "vsa/bf16.hpp"

namespace vsa::test {

// Problem: shape, q, k, v, q2k_idx, q2k_num, vbs. Outputs: out (bf16) and lse (fp32) vectors.
template <class Outputs, class Problem>
Outputs naive_forward_of(const Problem& p) {
  Outputs o{std::vector<bf16_bits>(p.q.size()), std::vector<float>(std::size_t(p.shape.row_elems()))};
  ForwardArgs a;
  a.shape = p.shape;
  a.q = p.q.data();
  a.k = p.k.data();
  a.v = p.v.data();
  a.q2k_idx = p.q2k_idx.data();
  a.q2k_num = p.q2k_num.data();
  a.vbs = p.vbs.data();
  a.out = o.out.data();
  a.lse = o.lse.data();
  naive::forward(a);
  return o;
}

}  // namespace vsa::test
