#include "telemetry/clock_sampler.hpp"

#include "telemetry/node_fingerprint.hpp"

namespace vsa {

std::function<nlohmann::json()> make_clock_sampler(const DeviceInfo& device) {
  if (!device.present()) return {};
  return [ordinal = device.ordinal]() -> nlohmann::json { return sample_clocks_json(ordinal); };
}

}  // namespace vsa
