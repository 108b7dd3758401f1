#pragma once
// Joins a CUDA device to its NVML device. CUDA ordinals follow CUDA_VISIBLE_DEVICES
// and CUDA_DEVICE_ORDER, NVML indices do not: the PCI bus id is the one key both
// agree on. Calls the CUDA runtime (no context is created), so only for processes
// that may use CUDA (see the fork note in fingerprint.hpp).
#include <optional>
#include <string>

#include "telemetry/nvml.hpp"

namespace vsa {

// cudaDeviceGetPCIBusId, e.g. "0000:19:00.0"; nullopt when CUDA cannot say.
[[nodiscard]] std::optional<std::string> cuda_pci_bus_id(int cuda_ordinal);

// The NVML device behind a CUDA ordinal, e.g. for the timing sampler.
[[nodiscard]] std::optional<NvmlDevice> nvml_device_for_cuda_ordinal(const Nvml& nvml, int cuda_ordinal);

}  // namespace vsa
