#pragma once
// The images each backend's kernels load from, per GPU. The driver picks a cubin (or JITs the
// PTX) by the device's architecture, so the answer belongs to a GPU, not to the process: on a
// node with two GPU models, the report of each GPU names what its own kernels ran as. Asked
// once per compute capability, on the first GPU of it: GPUs of one capability load the same
// images, and each question on a new GPU costs that GPU a context.
#include <functional>

#include <nlohmann/json.hpp>

#include "vsa/backend.hpp"
#include "vsa/registry.hpp"

namespace vsa {

// {"<ordinal>": images_on(first ordinal of that GPU's compute capability)} for every device;
// a device whose question answered null is left out (its reader falls back, images_for_target).
[[nodiscard]] nlohmann::json images_per_capability(const std::vector<DeviceInfo>& devices,
                                                   const std::function<nlohmann::json(int ordinal)>& images_on);

// What the registry's backends answer on the current device ({"backend": [images]}; with no GPU,
// the build's targets). Uses CUDA where a backend asks it (cuda-ref does).
[[nodiscard]] nlohmann::json registry_images(const Registry& registry);

// What the registry's backends answer on GPU `ordinal` ({"backend": [images]}), or null when
// CUDA cannot select it. Uses CUDA; restores the calling thread's current device.
[[nodiscard]] nlohmann::json registry_images_on(const Registry& registry, int ordinal);

// The images a report of `target` (a GPU ordinal, or -1: the CPU) records: its GPU's own answer
// when there is one, else `fallback` (what the process answered on its current device).
[[nodiscard]] const nlohmann::json& images_for_target(const nlohmann::json& per_device, const nlohmann::json& fallback,
                                                      int target);

}  // namespace vsa
