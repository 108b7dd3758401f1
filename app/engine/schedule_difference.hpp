#pragma once
// Backends that explore schedules (vsa/schedule_explorer.hpp): the outputs that must not
// depend on the schedule, compared bit for bit between two schedules of one op.
#include <string>
#include <vector>

#include "engine/case_data.hpp"

namespace vsa {

// "" when every output of the op (o and lse after the forward; dq, dk, dv after the
// backward) outside `schedule_dependent` is bitwise equal; else the first that is not:
// "lse: 12 of 256 elements differ bit for bit".
[[nodiscard]] std::string schedule_difference(const HostOutputs& first, const HostOutputs& run, bool forward,
                                              const std::vector<std::string>& schedule_dependent);

}  // namespace vsa
