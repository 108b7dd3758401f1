#pragma once
// Backend aliases in suites (docs/qualify.md, "One suite for Hopper and Blackwell"):
// "@fast" names the fast kernels of whatever GPU the case runs on, so one qualify
// suite tests sm90a on an H200 and sm100a on a B200. An alias is resolved per GPU,
// after device discovery, and the report records what it became.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/case_spec.hpp"
#include "vsa/registry.hpp"

namespace vsa {

inline constexpr std::string_view kFastAlias = "@fast";

// A kernel family and the one compute capability its arch-specific image runs on
// (sm_90a on 9.0, sm_100a on 10.0: "a" images do not carry forward, CUDA C++
// Programming Guide, "Feature Availability").
struct FastFamily {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  std::vector<std::string> backends;
};
[[nodiscard]] const std::vector<FastFamily>& fast_families();

[[nodiscard]] bool is_backend_alias(std::string_view name);
// Every backend an alias may stand for, on any GPU, in family order.
[[nodiscard]] std::vector<std::string> alias_candidates(std::string_view alias);

// What one alias of one case became on one GPU.
struct AliasExpansion {
  std::string alias;
  std::string case_name;
  std::vector<std::string> backends;
  std::string rule;  // why these: "cc 9.0: the sm90a family", "no GPU: ..."
};

// Replaces each alias in every case's backend list by the backends of the family that
// matches `device` (kept only where the case's shape allows them, and, with `only`
// non-empty, only those named there). A GPU no family matches (or no GPU) gets every
// candidate the shape allows, so each SKIPs with its own stated reason instead of the
// case testing nothing. A case of the alias alone that no candidate's shape allows keeps
// every candidate (within `only`), each to SKIP with its reason, rather than no backend.
// Backends named both directly and through an alias appear once.
std::vector<AliasExpansion> expand_backend_aliases(std::vector<CaseSpec>& cases, const DeviceInfo& device,
                                                   const Registry& registry, const std::vector<std::string>& only = {});
// The same without a device: every candidate the shape allows (to validate a suite, its
// probes and its memory before discovery).
void expand_backend_aliases_for_validation(std::vector<CaseSpec>& cases, const Registry& registry);

// For the report: one entry per distinct (alias, backends, rule), with the cases it covers.
[[nodiscard]] nlohmann::json backend_aliases_json(const std::vector<AliasExpansion>& expansions);

}  // namespace vsa
