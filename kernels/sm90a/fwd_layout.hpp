#pragma once
// Which CTA layout the forward runs (tile_config.hpp): two consumer groups with Q in registers
// and three K/V stages each (TileConfig), or three groups with Q split and two stages each
// (ThreeGroups). Plain C++ so the host decides and unit tests pin the rule.
#include <cstdint>
#include <string>

namespace vsa::sm90a::fwd {

enum class Layout { kTwoGroups, kThreeGroups };

// Measured on the H200 (notes/runs.md runs 41, 42 and 43; three groups against two, D = 128,
// 132 SMs, so 396 three-group slots a wave):
//   items   waves  k (blocks per item)                   three / two
//    512     1.3   8, 16 (4096, H = 8)                    0.72-0.74
//   1024     2.6   256 (65536, H = 1)                     0.98-1.0
//   2048     5.2   32, 64 (16384, H = 8); 256 (H = 2)     0.90-0.93; 0.91-1.0
//   2048     5.2   8 (4096, H = 32)                       0.95
//   3072     7.8   96 (24576, H = 8)                      1.05-1.16
//   4096    10.3   8, 16 (4096, H = 64)                   0.99-1.0
//   4096    10.3   32 (16384, H = 16)                     0.94-1.08 (four runs: 0.94-0.995)
//   4096    10.3   64 (16384, B = 2); 128 (32768)         1.03 (second call unclear); 1.02-1.04
//   6144+  15.5+   96, 192, 256, 512 (also B = 2)         1.04-1.07
//   8192    20.7   32, 64 (16384, H = 32)                 1.03-1.09; 1.03-1.06
// The wave count decides for items of 64 blocks and more: every loss has 5.2 waves or fewer,
// every gain 7.8 or more. The threshold of 7 waves lies between. Shorter items gain little or
// nothing with many waves (an item's start costs more with three groups: Q arrives in two
// dependent halves, each ring holds two stages, not three); k = 32 loses at 10.3 waves and gains
// at 20.7, two points too few to place its own threshold, so items under 64 blocks stay on the
// two-group kernel (about 5% left at k = 32 with 8192 items). The rule takes
// max_kv as the item length (the host cannot read q2k_num).
inline constexpr int kMinBlocksPerItem = 64;
inline constexpr int kLayoutWaves = 7;
inline constexpr int kThreeGroupSlotsPerSm = 3;
[[nodiscard]] constexpr Layout layout_by_rule(int max_kv, std::int64_t n_items, int sm_count) {
  const bool long_items = max_kv >= kMinBlocksPerItem;
  const bool enough_items = n_items >= std::int64_t(kLayoutWaves) * kThreeGroupSlotsPerSm * sm_count;
  return long_items && enough_items ? Layout::kThreeGroups : Layout::kTwoGroups;
}

// VSA_SM90A_FWD_THREE_GROUPS: unset, the rule; 1, three groups always; 0, two groups always
// (A/B runs). Anything else is refused, naming the value.
struct LayoutOverride {
  bool forced = false;
  Layout layout = Layout::kTwoGroups;
  std::string error;
};
[[nodiscard]] inline LayoutOverride parse_layout_env(const char* v) {
  if (v == nullptr || v[0] == '\0') return {};
  const std::string s(v);
  if (s == "1") return {true, Layout::kThreeGroups, {}};
  if (s == "0") return {true, Layout::kTwoGroups, {}};
  return {
      false, Layout::kTwoGroups,
      "VSA_SM90A_FWD_THREE_GROUPS='" + s + "': use 1 (three consumer groups), 0 (two) or leave it unset (the rule)"};
}

// The four-CTA layout (fwd_cta4_kernel.cuh: one item per CTA, four CTAs per SM, TK's occupancy)
// against the persistent layouts, measured on an H100 (132 SMs, 528 four-CTA slots a wave;
// notes/runs.md run 62; not yet measured on the H200):
//   items  blocks per item                       four / persistent
//    512   4 (4096, 6.25%)                        1.09-1.10
//    512   8 (4096 12.5%; 2048 with H = 16)       1.02-1.06 (two calls); 1.06
//    512   16 (4096, 25%)                         0.97-0.98
//   1024   4, 8 (8192)                            0.98-0.99
//   2048   8 (4096, H = 32)                       0.97
//   2048+  32-256 (16384, 65536)                  0.93-0.99
// It gains only where the whole launch is one wave of its slots and items are short: there the
// persistent kernel's fixed costs per item are not hidden behind another item, and four
// resident items per SM hide each other's. The rule takes max_kv as the item length.
inline constexpr int kFourCtasMaxBlocks = 8;
inline constexpr int kFourCtaSlotsPerSm = 4;
[[nodiscard]] constexpr bool four_ctas_by_rule(int max_kv, std::int64_t n_items, int sm_count) {
  return max_kv <= kFourCtasMaxBlocks && n_items <= std::int64_t(kFourCtaSlotsPerSm) * sm_count;
}

// VSA_SM90A_FWD_FOUR_CTAS: unset, the rule above; 1, four CTAs always; 0, never (A/B runs).
// Anything else is refused, naming the value.
struct FourCtasChoice {
  bool forced = false;
  bool on = false;
  std::string error;
};
[[nodiscard]] inline FourCtasChoice parse_four_ctas_env(const char* v) {
  if (v == nullptr || v[0] == '\0') return {};
  const std::string s(v);
  if (s == "1") return {true, true, {}};
  if (s == "0") return {true, false, {}};
  return {false, false,
          "VSA_SM90A_FWD_FOUR_CTAS='" + s +
              "': use 1 (four CTAs per SM, one item each), 0 (never) or leave it unset (the rule)"};
}

// Whether a forward call runs the four-CTA layout, from everything that bears on it. The layout
// has no trace variant and no work order of its own (one CTA per item, natural order), so the
// rule leaves it out of a call that asks for a timeline, an explicit order or another layout, and
// forcing it with any of those is refused, naming both: an A/B run must not time one kernel
// under two names, and a timeline must describe the kernel that is timed.
struct FourCtasAsk {
  FourCtasChoice env;                // VSA_SM90A_FWD_FOUR_CTAS
  bool other_layout_forced = false;  // VSA_SM90A_FWD_THREE_GROUPS set (either value)
  bool trace = false;                // the call records a timeline
  bool order_forced = false;         // an order variable (fwd_work_order.hpp) or pair tiles set
  int max_kv = 0;
  std::int64_t n_items = 0;
  int sm_count = 0;
};
struct FourCtasDecision {
  bool four = false;
  std::string error;
};
[[nodiscard]] inline FourCtasDecision decide_four_ctas(const FourCtasAsk& a) {
  if (!a.env.error.empty()) return {false, a.env.error};
  if (a.env.forced) {
    if (!a.env.on) return {};
    if (a.other_layout_forced)
      return {false, "VSA_SM90A_FWD_FOUR_CTAS=1 and VSA_SM90A_FWD_THREE_GROUPS ask for two layouts: set one"};
    if (a.order_forced)
      return {false,
              "VSA_SM90A_FWD_FOUR_CTAS=1 runs one CTA per item in natural order: an order variable "
              "(VSA_SM90A_FWD_LONGEST_FIRST, FIRST_WAVE, HEAD_SEGMENTS, PAIR_TILES) would change nothing; set one"};
    if (a.trace)
      return {false,
              "sm90a forward: the four-CTA layout (VSA_SM90A_FWD_FOUR_CTAS=1) records no timeline; unset it to trace"};
    return {true, {}};
  }
  if (a.other_layout_forced || a.order_forced || a.trace) return {};
  return {four_ctas_by_rule(a.max_kv, a.n_items, a.sm_count), {}};
}

}  // namespace vsa::sm90a::fwd
