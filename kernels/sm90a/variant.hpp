#pragma once
// Which code variant of a kernel a launch runs (fwd_launch.cuh, bwd_launch.cu): the normal
// kernel; the probe variant (a delay point at each hand-off, every mbarrier wait bounded by
// the hang watch, and the timeline's stamps); or the trace-only variant (the normal code plus
// the stamps: the forward's tile_config.hpp TraceOnly, the backward's kStamps without
// kProbes). Plain C++ so the host decides and unit tests pin the rule: a timeline recorded on
// the forward's probe variant described a kernel up to 19% slower than the one timed
// (notes/runs.md, run 56).
namespace vsa::sm90a {

enum class Variant { kNormal, kProbe, kTraceOnly };

struct VariantAsk {
  bool trace = false;         // ForwardArgs::trace / BackwardArgs::trace set: record the timeline
  bool probes = false;        // any delay probe set
  bool hang_watch = false;    // the hang watch on
  bool three_groups = false;  // forward: the three-group layout (fwd_layout.hpp)
  bool pair_tiles = false;    // forward: the pair-tile A/B variant
};

[[nodiscard]] constexpr Variant variant_for(const VariantAsk& a) {
  if (a.probes || a.hang_watch) return Variant::kProbe;
  if (!a.trace) return Variant::kNormal;
  // The backward and the forward's two-group layout with single items have a trace-only
  // kernel; the forward's other layouts record on their probe variant (one more instantiation
  // each, for a tool no run of theirs needed).
  return a.three_groups || a.pair_tiles ? Variant::kProbe : Variant::kTraceOnly;
}

// The backward kernel's template flags for a variant (bwd_kernel.cuh: backward_kernel<kAccumulateDq,
// kProbes, kStamps>): the probe variant also stamps; the trace-only one stamps without probes.
struct BackwardFlags {
  bool probes = false;
  bool stamps = false;
};
[[nodiscard]] constexpr BackwardFlags backward_flags(Variant v) {
  switch (v) {
    case Variant::kProbe:
      return {true, true};
    case Variant::kTraceOnly:
      return {false, true};
    case Variant::kNormal:
      break;
  }
  return {};
}

}  // namespace vsa::sm90a
