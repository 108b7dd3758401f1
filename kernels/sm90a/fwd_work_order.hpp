#pragma once
// The forward's work order: which items the persistent kernel takes in natural order and how
// the order kernel sorts the rest. Host-only, so the choice is unit-tested without a GPU.
//
// Why a choice at all (issue 22, kernels/sm90a/notes/runs.md runs 33, 33b, 34):
// - Longest-first over every item balances ragged rows, but every producer waits for the sort
//   before its first load, and the sort regroups items across heads, so at large S one head's
//   K and V no longer stay in L2.
// - A natural first wave (tickets below grid x consumers skip the sort) removes that wait: +5-8%
//   at S = 4096. At many waves it collapsed once on ragged rows (0.63 at 65536, run 33b).
// - Head segments (heads in natural order, longest first inside each) keep a head's K/V in L2:
//   +7-9% at 65536 (ragged rows, video window), but at 4096 the last heads' long rows end the
//   run late (0.78).
// The default rule takes the first wave up to kRuleWaves waves of work and head segments above.
#include <algorithm>
#include <cstdlib>

namespace vsa::sm90a::fwd {

enum class OrderKind { kRule, kLongestFirst, kFirstWave, kHeadSegments };

// Environment overrides for A/B runs (scripts/device/ab_switch.sh), first set wins:
// VSA_SM90A_FWD_LONGEST_FIRST=1 (every item sorted longest first; the default before run 34),
// VSA_SM90A_FWD_FIRST_WAVE=1, VSA_SM90A_FWD_HEAD_SEGMENTS=1. Read once per process.
[[nodiscard]] inline bool env_switch_on(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] == '1';
}
[[nodiscard]] inline OrderKind order_kind_from_env() {
  static const OrderKind kind = env_switch_on("VSA_SM90A_FWD_LONGEST_FIRST")   ? OrderKind::kLongestFirst
                                : env_switch_on("VSA_SM90A_FWD_FIRST_WAVE")    ? OrderKind::kFirstWave
                                : env_switch_on("VSA_SM90A_FWD_HEAD_SEGMENTS") ? OrderKind::kHeadSegments
                                                                               : OrderKind::kRule;
  return kind;
}

inline constexpr int kRuleWaves = 4;

struct WorkOrder {
  int natural_first = 0;       // tickets below it are items in natural order
  bool head_segments = false;  // the sort keeps heads in natural order, longest first inside each
};

// slots = grid x consumers: the items one wave takes.
[[nodiscard]] constexpr WorkOrder choose_work_order(OrderKind kind, int n_items, int slots) {
  if (kind == OrderKind::kRule)
    kind = n_items <= kRuleWaves * slots ? OrderKind::kFirstWave : OrderKind::kHeadSegments;
  switch (kind) {
    case OrderKind::kFirstWave: return {std::min(n_items, slots), false};
    case OrderKind::kHeadSegments: return {0, true};
    default: return {0, false};
  }
}

}  // namespace vsa::sm90a::fwd
