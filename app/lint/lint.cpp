#include "lint/lint.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "lint/checks.hpp"

namespace vsa::lint {

namespace {

const KernelFamily* family_of(const std::string& name, const RuleTable& rules) {
  for (const auto& family : rules.families) {
    if (name.starts_with(family.mangled_prefix)) return &family;
  }
  return nullptr;
}

}  // namespace

std::size_t LintResult::count(Severity severity) const {
  return std::size_t(
      std::count_if(findings.begin(), findings.end(), [severity](const Finding& f) { return f.severity == severity; }));
}

LintResult lint_listing(const sass::Listing& listing, const RuleTable& rules) {
  LintResult result;
  std::set<std::pair<std::string, std::string>> summarised;
  for (const auto& kernel : listing.kernels) {
    const auto* family = family_of(kernel.name, rules);
    if (summarised.emplace(kernel.name, kernel.arch).second) {
      result.kernels.push_back(
          {kernel.name, kernel.arch, kernel.instructions.size(), kernel.resources, family ? family->label : ""});
    }

    const bool empty = is_empty_body(kernel);
    check_empty_body(kernel, result.findings);
    // An empty body has no MMA by definition; one root cause, one finding.
    if (family && !empty) check_missing_mma(kernel, *family, result.findings);
    if (family && family->hot) check_local_spill(kernel, family->performance, result.findings);
    if (family && family->hot) check_wgmma_serialized(kernel, family->performance, result.findings);
    check_arrive_before_wait(kernel, rules.arrive, result.findings);
  }
  check_family_images(listing, rules, result.findings);
  result.counts = sass::kernel_counts(listing);

  // A kernel linked from several objects appears once per image: report it once.
  std::sort(result.findings.begin(), result.findings.end(), finding_less);
  result.findings.erase(std::unique(result.findings.begin(), result.findings.end()), result.findings.end());
  return result;
}

std::vector<sass::KernelCounts> counts_of_file(const std::string& cuobjdump, const std::string& file) {
  return sass::kernel_counts(sass::dump_sass(cuobjdump, file));
}

LintResult lint_file(const LintOptions& options) {
  const auto cuobjdump = sass::require_cuobjdump(options.cuobjdump);
  const auto file = options.file.empty() ? sass::current_executable() : options.file;
  auto result = lint_listing(sass::dump_sass(cuobjdump, file), options.rules);
  result.file = file;
  result.cuobjdump = cuobjdump;
  return result;
}

}  // namespace vsa::lint
