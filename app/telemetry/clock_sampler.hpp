#pragma once
// A function that samples one GPU's clocks and clock-event (throttle) reasons
// through NVML, for timing records. Returns an empty function's equivalent
// (null JSON) where NVML or the device is missing.
#include <functional>

#include <nlohmann/json.hpp>

#include "vsa/backend.hpp"

namespace vsa {

[[nodiscard]] std::function<nlohmann::json()> make_clock_sampler(const DeviceInfo& device);

}  // namespace vsa
