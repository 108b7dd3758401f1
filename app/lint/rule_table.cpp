#include "lint/rule_table.hpp"

namespace vsa::lint {

std::vector<RuleDescription> rule_descriptions() {
  return {
      {kRuleEmptyBody,
       "a kernel whose SASS is only EXIT/BRA/NOP (its guarded body compiled away for this arch), or a "
       "family kernel with no image for the arch its family requires (the build dropped the arch)"},
      {kRuleMissingMma,
       "a fast kernel without its matrix instructions: vsa::sm90a kernels must contain HGMMA on sm_90a, "
       "vsa::sm100a kernels a tcgen05 MMA (UTCHMMA/UTCQMMA/UTCIMMA...) on sm_100a"},
      {kRuleLocalSpill,
       "a hot (fast-family) kernel that touches local memory: LDL/STL instructions or a nonzero "
       "stack/local size in the resource usage (register spills); performance: an error on vsa-bench's "
       "kernels, a warning on a plugin's"},
      {kRuleArriveBeforeWait,
       "a barrier arrive (SYNCS.ARRIVE*, BAR.ARV) that may issue, on some path through the kernel's control "
       "flow, while an asynchronous read is outstanding: a tcgen05.ld (LDTM) not yet waited by tcgen05.wait::ld, "
       "an HGMMA group not yet retired by wgmma.wait_group, or a tcgen05.mma (UTC*MMA) not yet committed "
       "(UTCBAR); the buffer can be handed back before it has been read. Generic loads (LDS, LDG, ...) are "
       "ordered by the arrive's release semantics and are not findings"},
      {kRuleWgmmaSerialized,
       "a hot kernel with 4 or more HGMMA in which every HGMMA is waited on (WARPGROUP.DEPBAR.LE gsb0, 0x0) "
       "before the next one issues: ptxas serialised the wgmma pipeline (sometimes silently), usually because "
       "of a branch or call between a wgmma and its wait; the kernel runs correctly but far slower; performance: "
       "an error on vsa-bench's kernels, a warning on a plugin's"},
  };
}

RuleTable default_rule_table() {
  RuleTable table;
  table.families = {
      // Helpers without MMA by design: order_longest_first (fwd_order_kernels.cuh, device-side
      // work sort), reset_ticket_counter (the same file: the forward's counter reset when
      // the work is taken in natural order), backward_preprocess (Delta, dQ tile zeroing, the backward's sort) and
      // dq_postprocess_kernel (fp32 dQ partials -> bf16).
      {"vsa::sm90a",
       "_ZN3vsa5sm90a",
       "sm_90a",
       "HGMMA",
       "HGMMA (wgmma.mma_async)",
       true,
       {"order_longest_first", "reset_ticket_counter", "backward_preprocess", "dq_postprocess"}},
      {"vsa::sm100a",
       "_ZN3vsa6sm100a",
       "sm_100a",
       "UTC[A-Z]*MMA",
       "a tcgen05 MMA (UTCHMMA/UTCQMMA/UTCIMMA...)",
       true,
       {}},
  };
  table.arrive.arrive_opcodes = {"SYNCS.ARRIVE", "BAR.ARV"};
  // No scheduling barriers: since the sm90a backward's consumers run their own items (NOTES
  // run 27) no kernel hands a turn over with BAR.ARV, so every arrive counts as a release.
  // (A kernel that orders its GEMM issue by turns lists its turn ids here.)
  table.arrive.scheduling_barriers = {};
  return table;
}

}  // namespace vsa::lint
