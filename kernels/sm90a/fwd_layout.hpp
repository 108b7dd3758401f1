#pragma once
// Which CTA layout the forward runs (tile_config.hpp): two consumer groups with Q in registers
// and three K/V stages each (TileConfig), or three groups with Q split and two stages each
// (ThreeGroups). Plain C++ so the host decides and unit tests pin the rule.
#include <cstdint>
#include <string>

namespace vsa::sm90a::fwd {

enum class Layout { kTwoGroups, kThreeGroups };

// Measured on the H200 (notes/runs.md runs 41-42, three groups against two, B = 1 D = 128):
//   blocks per item (k):  8-16: 0.72   32: 0.90   64: 0.92 | 98 (video): 1.02-1.05
//                         128: 1.03-1.06   192: 1.04   256: 1.04-1.06   512: 1.05-1.06
//   items at k = 256:     1024: 0.98   2048: 0.91-0.93 | 8192: 1.04-1.06;  k = 128: 4096 items: 1.04+
// Every measured loss has few waves: 16384 at H = 8 and 65536 at H = 2 are both 2048 items
// (5.2 waves of 396 slots) and both lose 7-9%; every gain has 10 or more. An item's start also
// costs more with three groups (Q arrives in two dependent halves through one buffer, each
// ring holds two stages, not three), so short items are kept on two groups too: max_kv >= 96
// is a guard, since no case with short items and many waves was measured (the video window,
// k = 98 with 8192 items, gained). The rule takes max_kv as the item length (the host cannot
// read q2k_num).
inline constexpr int kMinBlocksPerItem = 96;
inline constexpr int kLayoutWaves = 8;
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

}  // namespace vsa::sm90a::fwd
