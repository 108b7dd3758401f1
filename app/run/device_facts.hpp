#pragma once
// What a process that may use CUDA (a worker, or `run --no-isolate`) tells the supervisor about
// one GPU: the CUDA half of its fingerprint (telemetry/fingerprint.hpp; the supervisor adds the
// NVML half by PCI bus id) and the properties a backend's supports() and the memory check read
// (node_qualification.hpp, device_info_of). One function, so that both paths give the same facts.
#include <nlohmann/json.hpp>

#include "vsa/backend.hpp"

namespace vsa {

[[nodiscard]] nlohmann::json device_facts(const DeviceInfo& device);

}  // namespace vsa
