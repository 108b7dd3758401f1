#pragma once
// Argument checks shared by the CPU backends: a bad index must come back as a
// failed Status naming the entry, never as an out-of-bounds read. These read the
// index arrays (run-time validation), unlike Backend::supports, which must not.
#include <initializer_list>
#include <string_view>
#include <utility>

#include "cpu_reference.hpp"

namespace vsa::ref {

// Every dimension >= 1 (max_kv >= 0), and S * D * B * H small enough to index.
[[nodiscard]] Status check_shape(const Shape& shape);

// Counts in [0, max_kv], valid ids in [0, nb), vbs in [0, BLK]. Pointers non-null.
[[nodiscard]] Status check_selection(const Shape& shape, const Selection& selection);

// "name is null" when p is null.
[[nodiscard]] Status check_pointer(const void* p, std::string_view name);

// All of the above for one call: the shape, then each named tensor pointer, then the selection.
using NamedPointer = std::pair<const void*, const char*>;
[[nodiscard]] Status check_problem(const Shape& shape, const Selection& selection,
                                   std::initializer_list<NamedPointer> tensors);

}  // namespace vsa::ref
