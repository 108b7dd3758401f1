#include "problem_checks.hpp"

#include <string>
#include <utility>

namespace vsa::ref {

Status check_shape(const Shape& s) {
  if (s.batch < 1 || s.heads < 1 || s.num_blocks < 1 || s.head_dim < 1 || s.block < 1 || s.max_kv < 0)
    return Status::failure("cpu reference: invalid shape (B=" + std::to_string(s.batch) +
                           " H=" + std::to_string(s.heads) + " nb=" + std::to_string(s.num_blocks) +
                           " D=" + std::to_string(s.head_dim) + " BLK=" + std::to_string(s.block) +
                           " max_kv=" + std::to_string(s.max_kv) + ")");
  // In double, so the test itself cannot overflow; 2^46 elements is far beyond any host.
  constexpr double kMaxElements = 70368744177664.0;  // 2^46
  const double tensor = double(s.bh()) * double(s.num_blocks) * double(s.block) * double(s.head_dim);
  const double q2k = double(s.bh()) * double(s.num_blocks) * double(s.max_kv);
  if (tensor > kMaxElements || q2k > kMaxElements) return Status::failure("cpu reference: shape too large to index");
  return Status::success();
}

Status check_pointer(const void* p, std::string_view name) {
  if (p == nullptr) return Status::failure("cpu reference: " + std::string(name) + " is null");
  return Status::success();
}

Status check_selection(const Shape& s, const Selection& sel) {
  for (auto [p, name] : {NamedPointer{sel.q2k_idx, "q2k_idx"}, {sel.q2k_num, "q2k_num"}, {sel.vbs, "vbs"}})
    if (auto st = check_pointer(p, name); !st.ok()) return st;
  for (int b = 0; b < s.num_blocks; ++b)
    if (sel.vbs[b] < 0 || sel.vbs[b] > s.block)
      return Status::failure("cpu reference: vbs[" + std::to_string(b) + "] = " + std::to_string(sel.vbs[b]) +
                             " is outside [0, " + std::to_string(s.block) + "]");
  for (std::int64_t row = 0; row < s.count_elems(); ++row) {
    const int n = sel.q2k_num[row];
    if (n < 0 || n > s.max_kv)
      return Status::failure("cpu reference: q2k_num[" + std::to_string(row) + "] = " + std::to_string(n) +
                             " is outside [0, max_kv = " + std::to_string(s.max_kv) + "]");
    for (int e = 0; e < n; ++e) {
      const int kb = sel.q2k_idx[row * s.max_kv + e];
      if (kb < 0 || kb >= s.num_blocks)
        return Status::failure("cpu reference: q2k_idx[" + std::to_string(row) + "][" + std::to_string(e) + "] = " +
                               std::to_string(kb) + " is outside [0, nb = " + std::to_string(s.num_blocks) + ")");
    }
  }
  return Status::success();
}

Status check_problem(const Shape& shape, const Selection& selection, std::initializer_list<NamedPointer> tensors) {
  if (auto st = check_shape(shape); !st.ok()) return st;
  for (auto [p, name] : tensors)
    if (auto st = check_pointer(p, name); !st.ok()) return st;
  return check_selection(shape, selection);
}

}  // namespace vsa::ref
