#pragma once
// One lint finding: which rule, where (kernel, arch image, instruction offset), why.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "lint/severity.hpp"

namespace vsa::lint {

struct Finding {
  std::string rule;                     // kRule* (lint/rule_table.hpp)
  std::string kernel;                   // mangled name
  std::string arch;                     // "sm_90a"
  std::optional<std::uint32_t> offset;  // the instruction the finding points at; none for whole-kernel findings
  std::string message;
  Severity severity = Severity::error;

  friend bool operator==(const Finding&, const Finding&) = default;
};

// Orders by arch, kernel, offset, rule: stable output for diffs and tests.
[[nodiscard]] bool finding_less(const Finding& a, const Finding& b);

// {"rule", "severity" ("error" | "warning"), "kernel" (demangled), "mangled", "arch",
//  "offset" ("0x01d0" or null), "message"}
[[nodiscard]] nlohmann::json to_json(const Finding& finding);

}  // namespace vsa::lint
