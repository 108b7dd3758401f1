#pragma once
// The report's view of the node and its GPUs, as JSON. Safe in the parent
// process: NVML and the OS only, never the CUDA runtime (workers are forked).
#include <string>

#include <nlohmann/json.hpp>

namespace vsa {

[[nodiscard]] nlohmann::json collect_node_json(const std::string& label);
// cuda_facts: what a worker reported for this CUDA ordinal (name, cc, pci_bus_id...).
[[nodiscard]] nlohmann::json collect_device_json(int cuda_ordinal, const nlohmann::json& cuda_facts);
// SM/memory clocks and clock-event (throttle) reasons now; null where NVML is missing.
[[nodiscard]] nlohmann::json sample_clocks_json(int cuda_ordinal);

}  // namespace vsa
