// The device half of the fingerprint: NVML fields, and the CUDA runtime view where
// the caller allows CUDA in this process (see the fork note in fingerprint.hpp).
#include "telemetry/fingerprint.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <utility>

#include "telemetry/nvml.hpp"
#include "telemetry/nvml_cuda.hpp"

namespace vsa {
namespace {

std::string cuda_error_text(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ")";
}

void fill_system_from_nvml(const Nvml& nvml, DeviceFingerprint& fp) {
  fp.driver_version = nvml.driver_version();
  if (auto version = nvml.cuda_driver_version()) fp.cuda_driver_version = version;
}

void fill_from_nvml(const Nvml& nvml, NvmlDevice device, DeviceFingerprint& fp) {
  fill_system_from_nvml(nvml, fp);
  fp.nvml_index = nvml.index(device);
  // NVML's identity strings win over CUDA's: they are what nvidia-smi and the fleet tools show.
  if (auto value = nvml.name(device)) fp.name = value;
  if (auto value = nvml.uuid(device)) fp.uuid = value;
  if (auto value = nvml.pci_bus_id(device)) fp.pci_bus_id = value;
  fp.serial = nvml.serial(device);
  fp.vbios_version = nvml.vbios_version(device);
  fp.gsp_firmware_version = nvml.gsp_firmware_version(device);
  if (const auto mode = nvml.gsp_firmware_mode(device)) {
    fp.gsp_firmware_enabled = mode->enabled;
    fp.gsp_firmware_default_enabled = mode->default_enabled;
  }
  fp.inforom_image_version = nvml.inforom_image_version(device);
  fp.inforom_oem_version = nvml.inforom_version(device, InforomObject::oem);
  fp.inforom_ecc_version = nvml.inforom_version(device, InforomObject::ecc);
  fp.inforom_power_version = nvml.inforom_version(device, InforomObject::power);
  if (const auto ecc = nvml.ecc_mode(device)) {
    fp.ecc_enabled = ecc->current;
    fp.ecc_pending = ecc->pending;
  }
  fp.ecc_uncorrected_volatile = nvml.ecc_uncorrected_volatile(device);
  fp.ecc_uncorrected_aggregate = nvml.ecc_uncorrected_aggregate(device);
  fp.power_limit_w = nvml.power_limit_w(device);
  fp.sm_clock_mhz = nvml.clock_mhz(device, ClockDomain::sm);
  fp.sm_clock_max_mhz = nvml.max_clock_mhz(device, ClockDomain::sm);
  fp.mem_clock_mhz = nvml.clock_mhz(device, ClockDomain::memory);
  fp.mem_clock_max_mhz = nvml.max_clock_mhz(device, ClockDomain::memory);
  fp.persistence_mode = nvml.persistence_mode(device);
  fp.mig_enabled = nvml.mig_enabled(device).value;
  fp.temperature_c = nvml.temperature_c(device);
  fp.memory_total_bytes = nvml.memory_total_bytes(device);
}

std::optional<int> cuda_attribute(cudaDeviceAttr attribute, int ordinal) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attribute, ordinal) != cudaSuccess) return std::nullopt;
  return value;
}

void fill_from_cuda(int ordinal, DeviceFingerprint& fp, std::vector<std::string>& notes) {
  fp.cuda_ordinal = ordinal;
  int version = 0;
  if (cudaRuntimeGetVersion(&version) == cudaSuccess) fp.cuda_runtime_version = version;
  if (cudaDriverGetVersion(&version) == cudaSuccess) fp.cuda_driver_version = version;
  // Properties and attributes are read without creating a context.
  cudaDeviceProp prop{};
  if (const cudaError_t error = cudaGetDeviceProperties(&prop, ordinal); error != cudaSuccess) {
    notes.push_back("CUDA device " + std::to_string(ordinal) + ": cudaGetDeviceProperties returned " +
                    cuda_error_text(error));
    return;
  }
  fp.name = prop.name;
  fp.uuid = format_uuid(prop.uuid.bytes, "GPU-");
  fp.cc_major = prop.major;
  fp.cc_minor = prop.minor;
  fp.sm_count = prop.multiProcessorCount;
  fp.cuda_global_memory_bytes = prop.totalGlobalMem;
  fp.l2_cache_bytes = prop.l2CacheSize;
  fp.smem_per_block_optin_bytes = prop.sharedMemPerBlockOptin;
  fp.smem_per_sm_bytes = prop.sharedMemPerMultiprocessor;
  fp.memory_bus_width_bits = prop.memoryBusWidth;
  // CUDA 13 removed clockRate / memoryClockRate from cudaDeviceProp; the attributes remain.
  fp.sm_clock_peak_khz = cuda_attribute(cudaDevAttrClockRate, ordinal);
  fp.mem_clock_peak_khz = cuda_attribute(cudaDevAttrMemoryClockRate, ordinal);
  fp.pci_bus_id = cuda_pci_bus_id(ordinal);
  // Kept by add_nvml_fields only where NVML says MIG is on: without MIG this is the GPU's UUID.
  fp.mig_uuid = cuda_uuid_v2(ordinal, "MIG-");
}

std::vector<DeviceFingerprint> collect_nvml_devices(const Nvml& nvml) {
  std::vector<DeviceFingerprint> devices;
  const unsigned count = nvml.device_count().value_or(0);
  for (unsigned index = 0; index < count; ++index) {
    DeviceFingerprint fp;
    fp.nvml_index = index;
    if (const auto device = nvml.device_by_index(index)) fill_from_nvml(nvml, *device, fp);
    devices.push_back(std::move(fp));
  }
  return devices;
}

std::string visible_devices_text() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return visible ? std::string("CUDA_VISIBLE_DEVICES=") + visible : std::string("CUDA_VISIBLE_DEVICES unset");
}

void note_nvml_state(const Nvml& nvml, std::vector<std::string>& notes) {
  if (!nvml.available()) {
    notes.push_back("NVML not available: " + nvml.error());
    return;
  }
  if (nvml.missing_symbols().empty()) return;
  std::string text = "NVML lacks";
  for (const auto& symbol : nvml.missing_symbols()) text += " " + symbol;
  notes.push_back(text + " (older driver): those fields are null");
}

}  // namespace

DeviceFingerprint collect_cuda_device_fingerprint(int cuda_ordinal, std::vector<std::string>& notes) {
  DeviceFingerprint fp;
  fill_from_cuda(cuda_ordinal, fp, notes);
  return fp;
}

void add_nvml_fields(const Nvml& nvml, DeviceFingerprint& fp, std::vector<std::string>& notes) {
  // The CUDA side's MIG UUID names an instance only where NVML confirms MIG is on.
  const std::optional<std::string> mig_uuid = std::exchange(fp.mig_uuid, std::nullopt);
  if (!nvml.available()) return;
  // CUDA ordinals follow CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER, NVML indices do
  // not: the PCI bus id is the one key both agree on.
  const std::optional<NvmlDevice> device = fp.pci_bus_id ? nvml.device_by_pci_bus_id(*fp.pci_bus_id) : std::nullopt;
  if (device) {
    fill_from_nvml(nvml, *device, fp);
    if (fp.mig_enabled == true) {
      fp.mig_uuid = mig_uuid;
      if (!mig_uuid) notes.push_back("MIG is on, but CUDA did not give the instance's UUID (cuDeviceGetUuid_v2)");
    }
    return;
  }
  notes.push_back("CUDA device " + (fp.cuda_ordinal ? std::to_string(*fp.cuda_ordinal) : std::string("?")) + " (PCI " +
                  fp.pci_bus_id.value_or("unknown") + ") not found in NVML: NVML fields are null");
}

std::vector<DeviceFingerprint> collect_device_fingerprints(const Nvml& nvml, bool use_cuda,
                                                           std::vector<std::string>& notes) {
  note_nvml_state(nvml, notes);
  if (!use_cuda) {
    if (std::getenv("CUDA_VISIBLE_DEVICES") != nullptr)
      notes.push_back(visible_devices_text() +
                      ", but CUDA was not queried: every GPU NVML sees is listed, "
                      "without CUDA ordinals");
    if (!nvml.available()) notes.push_back("no GPU information: NVML is not available and CUDA was not queried");
    return collect_nvml_devices(nvml);
  }
  int count = 0;
  if (const cudaError_t error = cudaGetDeviceCount(&count); error != cudaSuccess || count == 0) {
    // The static runtime also answers cudaErrorInsufficientDriver when there is no libcuda at all.
    const std::string hint =
        error == cudaErrorInsufficientDriver ? " (no NVIDIA driver installed, or one older than the runtime)" : "";
    notes.push_back("no CUDA device: cudaGetDeviceCount returned " +
                    (error != cudaSuccess ? cuda_error_text(error) : std::string("0 devices")) + hint + "; " +
                    visible_devices_text());
    return collect_nvml_devices(nvml);
  }
  std::vector<DeviceFingerprint> devices;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    devices.push_back(collect_cuda_device_fingerprint(ordinal, notes));
    add_nvml_fields(nvml, devices.back(), notes);
  }
  if (const auto nvml_count = nvml.device_count(); nvml_count && *nvml_count != static_cast<unsigned>(count))
    notes.push_back("NVML sees " + std::to_string(*nvml_count) + " GPUs, CUDA " + std::to_string(count) + " (" +
                    visible_devices_text() + ")");
  return devices;
}

std::vector<DeviceFingerprint> collect_device_fingerprints(bool use_cuda, std::vector<std::string>& notes) {
  return collect_device_fingerprints(shared_nvml(), use_cuda, notes);
}

Fingerprint collect_fingerprint(bool use_cuda, const std::optional<std::string>& label) {
  Fingerprint fingerprint;
  fingerprint.node = collect_node_info();
  fingerprint.node.label = label;
  fingerprint.devices = collect_device_fingerprints(use_cuda, fingerprint.notes);
  return fingerprint;
}

}  // namespace vsa
