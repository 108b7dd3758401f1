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
#include <string>

namespace vsa::sm90a::fwd {

// kPairTiles (run 35, an A/B variant): pairs of query blocks in natural order, each pair's
// kv lists streamed once as a union (fwd_pair_order.hpp); nothing is sorted.
enum class OrderKind { kRule, kLongestFirst, kFirstWave, kHeadSegments, kPairTiles };

// Environment overrides for A/B runs (scripts/device/ab_switch.sh): VSA_SM90A_FWD_LONGEST_FIRST=1
// (every item sorted longest first; the default before run 34), VSA_SM90A_FWD_FIRST_WAVE=1,
// VSA_SM90A_FWD_HEAD_SEGMENTS=1, VSA_SM90A_FWD_PAIR_TILES=1. More than one, or a switch removed in run 34, is an error
// that names the variable: an A/B that sets a dead switch would otherwise compare the
// default with itself and report a ratio of 1.
struct OrderEnv {
  const char* longest_first = nullptr;
  const char* first_wave = nullptr;
  const char* head_segments = nullptr;
  const char* pair_tiles = nullptr;
  const char* natural_order = nullptr;  // removed in run 34
  const char* order_rule = nullptr;     // removed in run 34: the rule is the default
};
struct OrderChoice {
  OrderKind kind = OrderKind::kRule;
  std::string error;  // empty when the environment is usable
};
[[nodiscard]] inline bool env_on(const char* v) { return v != nullptr && v[0] == '1'; }
[[nodiscard]] inline OrderChoice parse_order_env(const OrderEnv& e) {
  if (e.natural_order != nullptr)
    return {OrderKind::kRule,
            "VSA_SM90A_FWD_NATURAL_ORDER was removed in run 34 (natural order lost 21% on "
            "ragged rows); unset it"};
  if (e.order_rule != nullptr)
    return {OrderKind::kRule,
            "VSA_SM90A_FWD_ORDER_RULE was removed in run 34: the rule is the default; unset it "
            "(VSA_SM90A_FWD_LONGEST_FIRST=1 gives the old order)"};
  const int set = int(env_on(e.longest_first)) + int(env_on(e.first_wave)) + int(env_on(e.head_segments)) +
                  int(env_on(e.pair_tiles));
  if (set > 1)
    return {OrderKind::kRule,
            "more than one of VSA_SM90A_FWD_LONGEST_FIRST, VSA_SM90A_FWD_FIRST_WAVE, "
            "VSA_SM90A_FWD_HEAD_SEGMENTS, VSA_SM90A_FWD_PAIR_TILES is 1; set at most one"};
  if (env_on(e.longest_first)) return {OrderKind::kLongestFirst, {}};
  if (env_on(e.first_wave)) return {OrderKind::kFirstWave, {}};
  if (env_on(e.head_segments)) return {OrderKind::kHeadSegments, {}};
  if (env_on(e.pair_tiles)) return {OrderKind::kPairTiles, {}};
  return {};
}
// Read once per process: an A/B sets the switches before the run starts.
[[nodiscard]] inline const OrderChoice& order_choice_from_env() {
  static const OrderChoice choice =
      parse_order_env({std::getenv("VSA_SM90A_FWD_LONGEST_FIRST"), std::getenv("VSA_SM90A_FWD_FIRST_WAVE"),
                       std::getenv("VSA_SM90A_FWD_HEAD_SEGMENTS"), std::getenv("VSA_SM90A_FWD_PAIR_TILES"),
                       std::getenv("VSA_SM90A_FWD_NATURAL_ORDER"), std::getenv("VSA_SM90A_FWD_ORDER_RULE")});
  return choice;
}

// The persistent grid: one CTA per SM, fewer when the items do not fill them.
[[nodiscard]] constexpr int forward_grid(int sm_count, int n_items, int consumers) {
  return std::max(1, std::min(sm_count, (n_items + consumers - 1) / consumers));
}

inline constexpr int kRuleWaves = 4;

// Never both a first wave and head segments: the sort's segment of item i is i / nb counted
// from its first sorted item, so after a first wave of 264 items (264 mod 64 = 8) the segments
// would straddle heads (the FW + HS column of run 33b measured exactly that variant).
//
// Known limit: head-segment keys span B x H x (max_kv + 1) values and the sort has 4096 bins
// (longest_first_sort.cuh), so above that the first heads share the top bin and run in chunk
// order, not longest first (still every item exactly once). Measured only at 4104 (ragged and
// topk-long at 65536, H = 8): +8% and 1.00 against longest first. Coarser keys are the fix.
struct WorkOrder {
  int natural_first = 0;       // tickets below it are items in natural order
  bool head_segments = false;  // the sort keeps heads in natural order, longest first inside each
};

// slots = grid x consumers: the items one wave takes.
[[nodiscard]] constexpr WorkOrder choose_work_order(OrderKind kind, int n_items, int slots) {
  if (kind == OrderKind::kRule) kind = n_items <= kRuleWaves * slots ? OrderKind::kFirstWave : OrderKind::kHeadSegments;
  switch (kind) {
    case OrderKind::kFirstWave:
      return {std::min(n_items, slots), false};
    case OrderKind::kHeadSegments:
      return {0, true};
    default:
      return {0, false};
  }
}
// The launch's call: a wave is grid CTAs x consumer slots.
[[nodiscard]] constexpr WorkOrder work_order_for(OrderKind kind, int n_items, int grid, int consumers) {
  return choose_work_order(kind, n_items, grid * consumers);
}

}  // namespace vsa::sm90a::fwd
