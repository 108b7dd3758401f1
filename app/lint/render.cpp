#include "lint/render.hpp"

#include <map>
#include <fmt/ranges.h>

#include "sass/instruction.hpp"

namespace vsa::lint {

std::string format_text(const LintResult& result) {
  std::map<std::string, int> per_arch;
  for (const auto& kernel : result.kernels) ++per_arch[kernel.arch];
  std::vector<std::string> arch_counts;
  for (const auto& [arch, count] : per_arch) arch_counts.push_back(arch + ": " + std::to_string(count));
  const std::string archs = fmt::format("{}", fmt::join(arch_counts, ", "));

  const std::size_t warnings = result.count(Severity::warning);
  std::string out = "lint " + result.file + "\n  cuobjdump: " + result.cuobjdump + "\n  " +
                    std::to_string(result.kernels.size()) + " kernel images (" + archs + "), " +
                    std::to_string(result.findings.size()) + (result.findings.size() == 1 ? " finding" : " findings");
  if (warnings > 0)
    out += " (" + std::to_string(result.count(Severity::error)) + " errors, " + std::to_string(warnings) +
           " warnings: a warning fails lint only under --strict)";
  out += "\n";
  for (const auto& finding : result.findings) {
    out += "\n" + finding.rule + (finding.severity == Severity::warning ? " (warning)" : "") + "  " + finding.arch +
           "  " + (finding.offset ? sass::format_offset(*finding.offset) : std::string("-")) + "  " +
           sass::demangle(finding.kernel) + "\n    " + finding.message + "\n";
  }
  return out;
}

namespace {

nlohmann::json counts_json(const sass::KernelCounts& k) {
  nlohmann::json counts = nlohmann::json::object();
  for (std::size_t c = 0; c < sass::count_classes().size(); ++c) counts[sass::count_classes()[c].id] = k.counts[c];
  return counts;
}

}  // namespace

nlohmann::json changes_to_json(const std::string& against_file, const std::vector<sass::CountChange>& changes) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& change : changes) {
    nlohmann::json c = {{"kernel", sass::demangle(change.name)}, {"mangled", change.name}, {"arch", change.arch}};
    for (const auto& [key, side] : {std::pair{"a", change.a}, std::pair{"b", change.b}}) {
      if (!side) {
        c[key] = nullptr;
        continue;
      }
      c[key] = {{"instructions", side->instructions},
                {"registers", side->registers},
                {"stack_bytes", side->stack_bytes},
                {"counts", counts_json(*side)}};
    }
    list.push_back(std::move(c));
  }
  return {{"file", against_file}, {"changed", list}};
}

nlohmann::json to_json(const LintResult& result) {
  std::map<std::pair<std::string, std::string>, const sass::KernelCounts*> counts;
  for (const auto& k : result.counts) counts.emplace(std::pair{k.name, k.arch}, &k);
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
    if (const auto it = counts.find({kernel.name, kernel.arch}); it != counts.end())
      k["counts"] = counts_json(*it->second);
    kernels.push_back(std::move(k));
  }

  nlohmann::json findings = nlohmann::json::array();
  for (const auto& finding : result.findings) findings.push_back(to_json(finding));

  return {{"file", result.file},
          {"cuobjdump", result.cuobjdump},
          {"clean", result.clean()},
          {"errors", result.count(Severity::error)},
          {"warnings", result.count(Severity::warning)},
          {"rules", rules},
          {"kernels", kernels},
          {"findings", findings}};
}

}  // namespace vsa::lint
