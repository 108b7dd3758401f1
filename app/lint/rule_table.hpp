#pragma once
// The lint rule table: which kernels belong to which fast-kernel family, what each
// family must contain, and which SASS forms count as loads, waits and releases.
// Kept as data so a new family (or a test) changes a table, not the checks.
#include <string>
#include <vector>

#include "lint/severity.hpp"

namespace vsa::lint {

// Rule ids, as they appear in findings.
inline constexpr const char* kRuleEmptyBody = "empty-body";
inline constexpr const char* kRuleMissingMma = "missing-mma";
inline constexpr const char* kRuleLocalSpill = "local-spill";
inline constexpr const char* kRuleArriveBeforeWait = "arrive-before-wait";
inline constexpr const char* kRuleWgmmaSerialized = "wgmma-serialized";

struct RuleDescription {
  std::string id;
  std::string meaning;
};
// One line per rule: the CLI help and the JSON report use the same text.
[[nodiscard]] std::vector<RuleDescription> rule_descriptions();

struct KernelFamily {
  std::string label;                    // "vsa::sm90a", for messages
  std::string mangled_prefix;           // kernels whose mangled name starts with this belong to the family
  std::string arch;                     // the image every family kernel must have ("sm_90a")
  std::string mma_pattern;              // ECMAScript regex on the base opcode; empty = no MMA required
  std::string mma_description;          // "HGMMA (wgmma.mma_async)", for messages
  bool hot = true;                      // local-memory traffic is a finding
  std::vector<std::string> mma_exempt;  // substrings of mangled names of helper kernels without MMA
  // The weight of the performance rules (local-spill, wgmma-serialized) on this family's kernels:
  // error for our own families, warning for the families a plugin declares.
  Severity performance = Severity::error;
};

// A named barrier that only orders instruction issue between warp groups (a ping-pong
// turn) and never hands a buffer over: `BAR.ARV id` with this immediate id, in a kernel
// whose mangled name starts with the prefix, releases nothing.
struct SchedulingBarrier {
  std::string mangled_prefix;
  int id = 0;
};

// The asynchronous reads an arrive must not overtake (lint_arrive_before_wait.cpp cites the
// PTX ISA for each). Generic loads (LDS, LDSM, LDG, ...) are not among them: the arrive's
// release semantics order them.
struct ArriveRule {
  std::vector<std::string> arrive_opcodes;  // opcode prefixes of releasing arrives
  std::vector<SchedulingBarrier> scheduling_barriers;
  bool tensor_loads = true;  // LDTM*    (tcgen05.ld; waited by tcgen05.wait::ld)
  bool async_mma = true;     // HGMMA    (wgmma reads shared memory until wgmma.wait_group)
  bool tcgen05_mma = true;   // UTC*MMA  (tcgen05.mma reads shared memory; tracked once tcgen05.commit, UTCBAR)
};

struct RuleTable {
  std::vector<KernelFamily> families;
  ArriveRule arrive;
};

// vsa::sm90a -> HGMMA on sm_90a; vsa::sm100a -> tcgen05 MMA (UTC*MMA) on sm_100a;
// both hot. Arrives: SYNCS.ARRIVE* (mbarrier.arrive in all its forms) and BAR.ARV,
// except the sm90a backward's ping-pong turn barriers (kernels/sm90a/bwd_config.cuh).
[[nodiscard]] RuleTable default_rule_table();

}  // namespace vsa::lint
