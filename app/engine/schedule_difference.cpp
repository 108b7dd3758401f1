#include "engine/schedule_difference.hpp"

#include <algorithm>

#include "engine/stability.hpp"

namespace vsa {
namespace {

std::string differs(const char* tensor, const RunDiff& d, std::size_t elements) {
  if (d.mismatched == 0) return "";
  return std::string(tensor) + ": " + std::to_string(d.mismatched) + " of " + std::to_string(elements) +
         " elements differ bit for bit";
}

}  // namespace

std::string schedule_difference(const HostOutputs& first, const HostOutputs& run, bool forward,
                                const std::vector<std::string>& schedule_dependent) {
  auto checked = [&](const char* tensor) {
    return std::find(schedule_dependent.begin(), schedule_dependent.end(), tensor) == schedule_dependent.end();
  };
  std::string d;
  if (forward) {
    if (checked("o")) d = differs("o", diff_bf16(first.o, run.o), first.o.size());
    if (d.empty() && checked("lse")) d = differs("lse", diff_f32(first.lse, run.lse), first.lse.size());
    return d;
  }
  if (checked("dq")) d = differs("dq", diff_bf16(first.dq, run.dq), first.dq.size());
  if (d.empty() && checked("dk")) d = differs("dk", diff_bf16(first.dk, run.dk), first.dk.size());
  if (d.empty() && checked("dv")) d = differs("dv", diff_bf16(first.dv, run.dv), first.dv.size());
  return d;
}

}  // namespace vsa
