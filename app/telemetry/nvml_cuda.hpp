#pragma once
// Joins a CUDA device to its NVML device. CUDA ordinals follow CUDA_VISIBLE_DEVICES
// and CUDA_DEVICE_ORDER, NVML indices do not: the PCI bus id is the one key both
// agree on. Calls the CUDA runtime (no context is created), so only for processes
// that may use CUDA (see the fork note in fingerprint.hpp).
#include <functional>
#include <optional>
#include <string>

#include "telemetry/nvml.hpp"

namespace vsa {

// 16 UUID bytes as nvidia-smi spells them, after `prefix` ("GPU-" or "MIG-"), so a UUID from
// CUDA matches one from NVML: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
[[nodiscard]] std::string format_uuid(const char (&bytes)[16], const char* prefix);

// cudaDeviceGetPCIBusId, e.g. "0000:19:00.0"; nullopt when CUDA cannot say.
[[nodiscard]] std::optional<std::string> cuda_pci_bus_id(int cuda_ordinal);

// The NVML device behind a CUDA ordinal: the physical GPU, also under MIG.
[[nodiscard]] std::optional<NvmlDevice> nvml_device_for_cuda_ordinal(const Nvml& nvml, int cuda_ordinal);

// The CUDA device's UUID from cuDeviceGetUuid_v2, after `prefix`: under MIG the UUID of the MIG
// compute instance the device stands for (CUDA Driver API, "Device Management"), spelt
// "MIG-xxxxxxxx-..." by nvidia-smi; without MIG the GPU's, "GPU-...". Read through
// cudaGetDriverEntryPointByVersion, as libcuda is never linked; nullopt when the driver cannot say.
[[nodiscard]] std::optional<std::string> cuda_uuid_v2(int cuda_ordinal, const char* prefix);

// Where a timing's clock samples read for `gpu`: its clocks, and the processes of the instance
// the CUDA device stands for. Without MIG that is the GPU itself. Under MIG, the MIG device that
// `mig_uuid()` names (asked only then); where that cannot be resolved, or NVML cannot say whether
// MIG is on, the process list is left unknown rather than read from the whole GPU, whose list
// names other instances' processes (a shared-GPU check would fail a node for a neighbour that
// shares none of its SMs).
[[nodiscard]] NvmlSampleTarget sample_target(const Nvml& nvml, NvmlDevice gpu,
                                             const std::function<std::optional<std::string>()>& mig_uuid);

// sample_target for a CUDA ordinal; nullopt when NVML does not know the device.
[[nodiscard]] std::optional<NvmlSampleTarget> nvml_sample_target_for_cuda_ordinal(const Nvml& nvml, int cuda_ordinal);

}  // namespace vsa
