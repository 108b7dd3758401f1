#include "run/device_facts.hpp"

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "telemetry/fingerprint.hpp"

namespace vsa {

nlohmann::json device_facts(const DeviceInfo& d) {
  std::vector<std::string> notes;
  nlohmann::json j = collect_cuda_device_fingerprint(d.ordinal, notes);
  char pci[32] = {};
  cudaDeviceGetPCIBusId(pci, sizeof pci, d.ordinal);
  j.update(nlohmann::json{{"pci_bus_id", pci},
                          {"ordinal", d.ordinal},
                          {"name", d.name},
                          {"cc_major", d.cc_major},
                          {"cc_minor", d.cc_minor},
                          {"sm_count", d.sm_count},
                          {"smem_per_block_optin", d.smem_per_block_optin},
                          {"global_mem", d.global_mem}});
  return j;
}

}  // namespace vsa
