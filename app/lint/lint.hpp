#pragma once
// `vsa-bench lint`: disassemble a file's kernels and check them against the rule
// table (lint/rule_table.hpp). The command is a thin wrapper over lint_file.
#include <optional>
#include <string>
#include <vector>

#include "lint/finding.hpp"
#include "lint/rule_table.hpp"
#include "sass/counts.hpp"
#include "sass/cuobjdump.hpp"
#include "sass/listing.hpp"

namespace vsa::lint {

struct KernelSummary {
  std::string name;  // mangled
  std::string arch;
  std::size_t instructions = 0;
  std::optional<sass::ResourceUsage> resources;
  std::string family;  // the rule-table family label; empty when none
};

struct LintResult {
  std::string file;
  std::string cuobjdump;
  std::vector<KernelSummary> kernels;      // one per (kernel, arch)
  std::vector<Finding> findings;           // sorted (finding_less), duplicates removed
  std::vector<sass::KernelCounts> counts;  // per (kernel, arch): `lint --counts`
  [[nodiscard]] bool clean() const { return findings.empty(); }
  [[nodiscard]] std::size_t count(Severity severity) const;
  // What the exit code says: no error; under `strict`, no warning either.
  [[nodiscard]] bool passed(bool strict) const { return count(Severity::error) == 0 && (!strict || clean()); }
};

struct LintOptions {
  std::string file;       // executable, object, cubin or fatbin; empty: the running executable
  std::string cuobjdump;  // empty: search (sass/cuobjdump.hpp)
  RuleTable rules = default_rule_table();
};

// Runs every rule over a parsed listing. No tools, no files: what the unit tests drive.
[[nodiscard]] LintResult lint_listing(const sass::Listing& listing, const RuleTable& rules);

// The SASS counts of another build's kernels (`lint --against`), with the same cuobjdump.
[[nodiscard]] std::vector<sass::KernelCounts> counts_of_file(const std::string& cuobjdump, const std::string& file);

// Locates cuobjdump, disassembles the file and lints it. Throws sass::ToolError for a
// missing tool or unreadable input (exit code 2 in the command).
[[nodiscard]] LintResult lint_file(const LintOptions& options);

}  // namespace vsa::lint
