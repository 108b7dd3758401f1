#pragma once
// The individual lint rules. Each appends its findings to `out`; lint.cpp decides
// which kernels each rule sees (families, hot kernels) from the rule table.
#include <vector>

#include "lint/finding.hpp"
#include "lint/rule_table.hpp"
#include "sass/listing.hpp"

namespace vsa::lint {

// True when the kernel does nothing: only EXIT, BRA, NOP and the stack-pointer load
// every kernel starts with (LDC/MOV R1, c[0x0][...]).
[[nodiscard]] bool is_empty_body(const sass::Kernel& kernel);
void check_empty_body(const sass::Kernel& kernel, std::vector<Finding>& out);
// Family kernels present in some image but absent from the arch their family requires.
void check_family_images(const sass::Listing& listing, const RuleTable& rules, std::vector<Finding>& out);

// The kernel (in its family's arch image) contains no instruction matching the family's MMA pattern.
void check_missing_mma(const sass::Kernel& kernel, const KernelFamily& family, std::vector<Finding>& out);

// The two performance rules below report with the severity their family gives them
// (KernelFamily::performance: error for our kernels, warning for a plugin's).

// LDL/STL instructions or nonzero stack/local bytes; one finding per kernel image.
void check_local_spill(const sass::Kernel& kernel, Severity severity, std::vector<Finding>& out);

// Every HGMMA of the kernel completes (WARPGROUP.DEPBAR.LE gsb0, 0x0) before the next
// HGMMA issues, with at least kMinHgmma of them: ptxas serialised the wgmma pipeline.
inline constexpr int kWgmmaSerializedMinHgmma = 4;
void check_wgmma_serialized(const sass::Kernel& kernel, Severity severity, std::vector<Finding>& out);

// Outstanding asynchronous reads tracked through the control-flow graph (lint/README.md explains the model).
void check_arrive_before_wait(const sass::Kernel& kernel, const ArriveRule& rule, std::vector<Finding>& out);

}  // namespace vsa::lint
