#pragma once
// Delay-probe settings as the harness keeps them (issue 18, finding 4): a case's `probes`
// map goes from a key to nanoseconds, where the key is a probe point's name, optionally
// with a warp mask: "bwd.read_st" (every warp) or "bwd.read_st@warps:2-3" (warps 2 and 3
// only). Reports and `repro` carry the map as it is, so they carry the mask.
//
// --probe takes NAME=NANOSECONDS or NAME=NANOSECONDS@warps:LIST, where LIST is
// comma-separated warps or ranges A-B of CTA warps 0..31 ("4-7", "0,2,5-6").
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vsa {

struct ProbeKey {
  std::string point;        // probe point name, as the backend's probe_points() spells it
  std::uint32_t warps = 0;  // bit w: warp w sleeps; 0: every warp
};

struct ProbeArg {
  std::string key;  // the canonical key (point, or point@warps:LIST)
  std::uint32_t nanoseconds = 0;
};

// A `probes` key. Returns false with `error` naming the bad part of `key`.
[[nodiscard]] bool parse_probe_key(const std::string& key, ProbeKey& out, std::string& error);
// One --probe argument. Returns false with `error` naming the bad part of `arg`.
[[nodiscard]] bool parse_probe_arg(const std::string& arg, ProbeArg& out, std::string& error);
// The canonical key of a point and mask ("fwd.read_s", "bwd.read_st@warps:2-3").
[[nodiscard]] std::string probe_key(const std::string& point, std::uint32_t warps);
// Why a backend with probe points `points` must not run `probes`: a nonzero masked probe of
// one of its points when its probes take no mask (`masks` false); running it on every warp
// would be another experiment than the one asked for. Empty when it may run.
[[nodiscard]] std::string probe_mask_refusal(const std::map<std::string, std::uint32_t>& probes,
                                             const std::vector<std::string>& points, bool masks);

}  // namespace vsa
