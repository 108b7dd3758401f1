#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lint/checks.hpp"

namespace vsa::lint {

namespace {

// The stack-pointer set-up that opens every kernel: "LDC R1, c[0x0][0x28]" (sm_90),
// "LDC R1, c[0x0][0x37c]" (sm_100), "MOV R1, c[0x0][0x28]" (older toolkits).
bool is_stack_pointer_setup(const sass::Instruction& inst) {
  const auto base = inst.base_opcode();
  return (base == "LDC" || base == "MOV") && std::string_view(inst.operands).starts_with("R1, c[");
}

bool is_trivial(const sass::Instruction& inst) {
  const auto base = inst.base_opcode();
  return base == "EXIT" || base == "BRA" || base == "NOP" || is_stack_pointer_setup(inst);
}

}  // namespace

bool is_empty_body(const sass::Kernel& kernel) {
  return std::all_of(kernel.instructions.begin(), kernel.instructions.end(), is_trivial);
}

void check_empty_body(const sass::Kernel& kernel, std::vector<Finding>& out) {
  if (!is_empty_body(kernel)) return;
  out.push_back({kRuleEmptyBody, kernel.name, kernel.arch, std::nullopt,
                 "kernel body is only EXIT/BRA/NOP: its code was compiled away for " + kernel.arch +
                     " (an arch guard such as __CUDA_ARCH__ / __CUDA_ARCH_FEAT_SM*_ALL did not match)"});
}

void check_family_images(const sass::Listing& listing, const RuleTable& rules, std::vector<Finding>& out) {
  // name -> archs it has an image for
  std::map<std::string, std::set<std::string>> archs_of;
  for (const auto& kernel : listing.kernels) archs_of[kernel.name].insert(kernel.arch);
  for (const auto& [name, archs] : archs_of) {
    for (const auto& family : rules.families) {
      if (!name.starts_with(family.mangled_prefix) || archs.contains(family.arch)) continue;
      const std::string found_in = fmt::format("{}", fmt::join(archs, ", "));
      out.push_back({kRuleEmptyBody, name, family.arch, std::nullopt,
                     family.label + " kernel has no " + family.arch + " image (found only in " + found_in +
                         "): the build dropped the arch its family needs"});
    }
  }
}

}  // namespace vsa::lint
