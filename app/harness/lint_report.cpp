#include "harness/lint_report.hpp"

#include <map>

#include "harness/sass_instruction.hpp"

namespace vsa::lint {

std::string format_text(const LintResult& result) {
  std::map<std::string, int> per_arch;
  for (const auto& kernel : result.kernels) ++per_arch[kernel.arch];
  std::string archs;
  for (const auto& [arch, count] : per_arch) archs += (archs.empty() ? "" : ", ") + arch + ": " + std::to_string(count);

  std::string out = "lint " + result.file + "\n  cuobjdump: " + result.cuobjdump + "\n  " +
                    std::to_string(result.kernels.size()) + " kernel images (" + archs + "), " +
                    std::to_string(result.findings.size()) + (result.findings.size() == 1 ? " finding" : " findings") +
                    "\n";
  for (const auto& finding : result.findings) {
    out += "\n" + finding.rule + "  " + finding.arch + "  " +
           (finding.offset ? sass::format_offset(*finding.offset) : std::string("-")) + "  " +
           sass::demangle(finding.kernel) + "\n    " + finding.message + "\n";
  }
  return out;
}

nlohmann::json to_json(const LintResult& result) {
  nlohmann::json rules = nlohmann::json::array();
  for (const auto& rule : rule_descriptions()) rules.push_back({{"id", rule.id}, {"meaning", rule.meaning}});

  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& kernel : result.kernels) {
    nlohmann::json k = {{"kernel", sass::demangle(kernel.name)},
                        {"mangled", kernel.name},
                        {"arch", kernel.arch},
                        {"instructions", kernel.instructions},
                        {"family", kernel.family.empty() ? nlohmann::json(nullptr) : nlohmann::json(kernel.family)}};
    if (kernel.resources) {
      k["registers"] = kernel.resources->registers;
      k["stack_bytes"] = kernel.resources->stack_bytes;
      k["shared_bytes"] = kernel.resources->shared_bytes;
      k["local_bytes"] = kernel.resources->local_bytes;
    }
    kernels.push_back(std::move(k));
  }

  nlohmann::json findings = nlohmann::json::array();
  for (const auto& finding : result.findings) findings.push_back(to_json(finding));

  return {{"file", result.file},   {"cuobjdump", result.cuobjdump}, {"clean", result.clean()},
          {"rules", rules},        {"kernels", kernels},            {"findings", findings}};
}

}  // namespace vsa::lint
