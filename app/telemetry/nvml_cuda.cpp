#include "telemetry/nvml_cuda.hpp"

#include <cuda_runtime_api.h>

namespace vsa {

std::optional<std::string> cuda_pci_bus_id(int cuda_ordinal) {
  char bus_id[64] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_ordinal) != cudaSuccess) return std::nullopt;
  return std::string(bus_id);
}

std::optional<NvmlDevice> nvml_device_for_cuda_ordinal(const Nvml& nvml, int cuda_ordinal) {
  if (!nvml.available()) return std::nullopt;
  const auto bus_id = cuda_pci_bus_id(cuda_ordinal);
  if (!bus_id) return std::nullopt;
  return nvml.device_by_pci_bus_id(*bus_id);
}

}  // namespace vsa
