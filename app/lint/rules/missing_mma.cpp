#include <algorithm>
#include <regex>

#include "lint/checks.hpp"

namespace vsa::lint {

void check_missing_mma(const sass::Kernel& kernel, const KernelFamily& family, std::vector<Finding>& out) {
  if (family.mma_pattern.empty() || kernel.arch != family.arch) return;
  for (const auto& exempt : family.mma_exempt) {
    if (kernel.name.find(exempt) != std::string::npos) return;
  }
  const std::regex pattern(family.mma_pattern);
  const bool has_mma = std::any_of(kernel.instructions.begin(), kernel.instructions.end(), [&](const auto& inst) {
    const auto base = inst.base_opcode();
    return std::regex_match(base.begin(), base.end(), pattern);
  });
  if (has_mma) return;
  out.push_back({kRuleMissingMma, kernel.name, kernel.arch, std::nullopt,
                 family.label + " kernel has no " + family.mma_description + " instruction on " + family.arch + " (" +
                     std::to_string(kernel.instructions.size()) +
                     " instructions): the matrix path was not compiled in"});
}

}  // namespace vsa::lint
