#include <optional>

#include "lint/checks.hpp"

namespace vsa::lint {

void check_local_spill(const sass::Kernel& kernel, Severity severity, std::vector<Finding>& out) {
  int loads = 0;
  int stores = 0;
  std::optional<std::uint32_t> first;
  for (const auto& inst : kernel.instructions) {
    const auto base = inst.base_opcode();
    const bool load = base == "LDL";
    const bool store = base == "STL";
    if (!load && !store) continue;
    loads += load ? 1 : 0;
    stores += store ? 1 : 0;
    if (!first) first = inst.offset;
  }
  const auto stack = kernel.resources ? kernel.resources->stack_bytes : 0;
  const auto local = kernel.resources ? kernel.resources->local_bytes : 0;
  if (loads + stores == 0 && stack == 0 && local == 0) return;

  std::string message = "hot kernel uses local memory:";
  if (loads + stores > 0) {
    message += ' ';
    message += std::to_string(loads) + " LDL and " + std::to_string(stores) + " STL instructions";
  }
  if (stack > 0 || local > 0) {
    if (loads + stores > 0) message += ";";
    message += " resource usage STACK:" + std::to_string(stack) + " LOCAL:" + std::to_string(local) + " bytes";
  }
  if (kernel.resources) message += " (REG:" + std::to_string(kernel.resources->registers) + ")";
  message += ": register spills or a dynamically indexed local array";
  out.push_back({kRuleLocalSpill, kernel.name, kernel.arch, first, message, severity});
}

}  // namespace vsa::lint
