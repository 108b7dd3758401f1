#include "telemetry/node_fingerprint.hpp"

#include <map>
#include <mutex>
#include <optional>

#include "telemetry/fingerprint.hpp"
#include "telemetry/nvml.hpp"
#include "telemetry/nvml_cuda.hpp"

namespace vsa {

nlohmann::json collect_node_json(const std::string& label) {
  NodeInfo node = collect_node_info();
  if (!label.empty()) node.label = label;
  return node;
}

nlohmann::json collect_device_json(int cuda_ordinal, const nlohmann::json& cuda_facts) {
  // The worker's facts use the fingerprint's key names, except these two.
  DeviceFingerprint fp = cuda_facts.is_object() ? cuda_facts.get<DeviceFingerprint>() : DeviceFingerprint{};
  if (!fp.smem_per_block_optin_bytes && cuda_facts.contains("smem_per_block_optin"))
    fp.smem_per_block_optin_bytes = cuda_facts["smem_per_block_optin"].get<std::uint64_t>();
  if (!fp.cuda_global_memory_bytes && cuda_facts.contains("global_mem"))
    fp.cuda_global_memory_bytes = cuda_facts["global_mem"].get<std::uint64_t>();
  fp.cuda_ordinal = cuda_ordinal;
  std::vector<std::string> notes;
  const Nvml& nvml = shared_nvml();
  if (!nvml.available()) notes.push_back("NVML not available: " + nvml.error());
  add_nvml_fields(nvml, fp, notes);  // by PCI bus id: no CUDA call in this (parent) process
  nlohmann::json j = fp;
  j["notes"] = notes;
  return j;
}

nlohmann::json sample_clocks_json(int cuda_ordinal) {
  // Runs where CUDA is allowed (worker, or --no-isolate). The ordinal -> NVML device
  // lookup (PCI bus id, and the MIG instance under MIG) is made once per ordinal.
  static std::mutex mutex;
  static std::map<int, std::optional<NvmlSampleTarget>> targets;
  const Nvml& nvml = shared_nvml();
  if (!nvml.available()) return nullptr;
  std::optional<NvmlSampleTarget> target;
  {
    const std::lock_guard lock(mutex);
    auto it = targets.find(cuda_ordinal);
    if (it == targets.end())
      it = targets.emplace(cuda_ordinal, nvml_sample_target_for_cuda_ordinal(nvml, cuda_ordinal)).first;
    target = it->second;
  }
  if (!target) return nullptr;
  return nvml.sample(*target);
}

}  // namespace vsa
