#pragma once
// Which CTA layout the forward runs (tile_config.hpp): two consumer groups with Q in registers
// and three K/V stages each (TileConfig), or three groups with Q split and two stages each
// (ThreeGroups). Plain C++ so the host decides and unit tests pin the rule.
//
// Measured on the H200 (notes/runs.md runs 41-42): three groups do 3-5% more at S = 65536,
// where one head's K and V (32 MiB) and the head beside it no longer fit the 60 MiB L2, so
// blocks come from HBM and a third chain per SM hides that latency; they do 7-10% less at
// S = 16384 (8 MiB a head, served from L2) and 27% less at 4096, where two stages per group
// and a split Q's item start cost more than the third chain gives. The threshold below sits
// between those sizes (at 61,440 tokens on an H200); sizes between were not all measured.
#include <cstdint>
#include <string>

namespace vsa::sm90a::fwd {

enum class Layout { kTwoGroups, kThreeGroups };

// The rule: three groups when two heads' K and V (the heads running side by side under the
// work order) exceed the L2, and the items fill at least kLayoutWaves waves of the
// three-group grid (a short launch's tail would eat the gain; H = 1 at 65536 is 1024 items
// against 396 slots, not measured).
inline constexpr int kLayoutWaves = 4;
inline constexpr int kThreeGroupSlotsPerSm = 3;
[[nodiscard]] constexpr Layout layout_by_rule(std::int64_t seq, int head_dim, std::int64_t l2_bytes,
                                              std::int64_t n_items, int sm_count) {
  const std::int64_t head_kv_bytes = 2 * seq * head_dim * 2;  // K and V of one head, bf16
  const bool past_l2 = l2_bytes > 0 && 2 * head_kv_bytes > l2_bytes;
  const bool enough_items = n_items >= std::int64_t(kLayoutWaves) * kThreeGroupSlotsPerSm * sm_count;
  return past_l2 && enough_items ? Layout::kThreeGroups : Layout::kTwoGroups;
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
