#include "telemetry/nvml_cuda.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <cstdio>

namespace vsa {

std::string format_uuid(const char (&bytes)[16], const char* prefix) {
  const auto* b = reinterpret_cast<const unsigned char*>(bytes);
  char text[64];
  std::snprintf(text, sizeof text, "%s%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", prefix,
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

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

namespace {

// A driver entry point of at least `version`; null where the driver lacks it.
void* driver_entry(const char* symbol, unsigned version) {
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(symbol, &entry, version, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return nullptr;
  return entry;
}

}  // namespace

std::optional<std::string> cuda_uuid_v2(int cuda_ordinal, const char* prefix) {
  // Version 11040 asks for cuDeviceGetUuid_v2, the form that answers with the MIG UUID.
  const auto get = reinterpret_cast<PFN_cuDeviceGet_v2000>(driver_entry("cuDeviceGet", 2000));
  const auto get_uuid = reinterpret_cast<PFN_cuDeviceGetUuid_v11040>(driver_entry("cuDeviceGetUuid", 11040));
  CUdevice device{};
  CUuuid uuid{};
  if (get == nullptr || get_uuid == nullptr || get(&device, cuda_ordinal) != CUDA_SUCCESS ||
      get_uuid(&uuid, device) != CUDA_SUCCESS)
    return std::nullopt;
  return format_uuid(uuid.bytes, prefix);
}

NvmlSampleTarget sample_target(const Nvml& nvml, NvmlDevice gpu,
                               const std::function<std::optional<std::string>()>& mig_uuid) {
  const NvmlAnswer<bool> mig = nvml.mig_enabled(gpu);
  if (!mig.value) return {gpu, std::nullopt, "whether MIG is on is unknown (" + mig.why + ")"};
  if (!*mig.value) return NvmlSampleTarget::whole(gpu);
  const std::optional<std::string> uuid = mig_uuid ? mig_uuid() : std::nullopt;
  if (!uuid) return {gpu, std::nullopt, "MIG is on and the CUDA device's MIG UUID is unknown (cuDeviceGetUuid_v2)"};
  const std::optional<NvmlDevice> instance = nvml.device_by_uuid(*uuid);
  if (!instance)
    return {gpu, std::nullopt, "MIG is on and NVML has no MIG device " + *uuid + " (nvmlDeviceGetHandleByUUID)"};
  return {gpu, instance, ""};
}

std::optional<NvmlSampleTarget> nvml_sample_target_for_cuda_ordinal(const Nvml& nvml, int cuda_ordinal) {
  const std::optional<NvmlDevice> gpu = nvml_device_for_cuda_ordinal(nvml, cuda_ordinal);
  if (!gpu) return std::nullopt;
  return sample_target(nvml, *gpu, [cuda_ordinal] { return cuda_uuid_v2(cuda_ordinal, "MIG-"); });
}

}  // namespace vsa
