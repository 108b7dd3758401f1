#include "telemetry/nvml.hpp"

#include <dlfcn.h>

#include <cstring>
#include <type_traits>

#include "telemetry/nvml_api.hpp"

namespace vsa {

using namespace nvml_api;

// Every entry point vsa-bench uses; null where this NVML lacks it.
struct Nvml::Symbols {
  nvmlInit_v2_fn init = nullptr;
  nvmlShutdown_fn shutdown = nullptr;
  nvmlErrorString_fn error_string = nullptr;
  nvmlSystemGetDriverVersion_fn driver_version = nullptr;
  nvmlSystemGetCudaDriverVersion_v2_fn cuda_driver_version = nullptr;
  nvmlDeviceGetCount_v2_fn device_count = nullptr;
  nvmlDeviceGetHandleByIndex_v2_fn by_index = nullptr;
  nvmlDeviceGetHandleByPciBusId_v2_fn by_pci_bus_id = nullptr;
  nvmlDeviceGetIndex_fn index = nullptr;
  nvmlDeviceGetString_fn name = nullptr;
  nvmlDeviceGetString_fn uuid = nullptr;
  nvmlDeviceGetString_fn serial = nullptr;
  nvmlDeviceGetPciInfo_v3_fn pci_info = nullptr;
  nvmlDeviceGetString_fn vbios = nullptr;
  nvmlDeviceGetGspFirmwareVersion_fn gsp_version = nullptr;
  nvmlDeviceGetGspFirmwareMode_fn gsp_mode = nullptr;
  nvmlDeviceGetString_fn inforom_image = nullptr;
  nvmlDeviceGetInforomVersion_fn inforom_object = nullptr;
  nvmlDeviceGetEccMode_fn ecc_mode = nullptr;
  nvmlDeviceGetTotalEccErrors_fn ecc_errors = nullptr;
  nvmlDeviceGetUInt_fn power_limit = nullptr;
  nvmlDeviceGetUInt_fn power_usage = nullptr;
  nvmlDeviceGetClockInfo_fn clock = nullptr;
  nvmlDeviceGetClockInfo_fn max_clock = nullptr;
  nvmlDeviceGetEnableState_fn persistence = nullptr;
  nvmlDeviceGetTemperature_fn temperature = nullptr;
  nvmlDeviceGetMemoryInfo_fn memory = nullptr;
  nvmlDeviceGetReasons_fn event_reasons = nullptr;  // ClocksEvent, else ClocksThrottle
};

namespace {

nvmlDevice_t as_nvml(NvmlDevice device) { return static_cast<nvmlDevice_t>(device.handle); }

nvmlClockType_t clock_type(ClockDomain domain) {
  switch (domain) {
    case ClockDomain::sm:
      return NVML_CLOCK_SM;
    case ClockDomain::memory:
      return NVML_CLOCK_MEM;
    case ClockDomain::graphics:
      return NVML_CLOCK_GRAPHICS;
  }
  return NVML_CLOCK_SM;
}

nvmlInforomObject_t inforom_object(InforomObject object) {
  switch (object) {
    case InforomObject::oem:
      return NVML_INFOROM_OEM;
    case InforomObject::ecc:
      return NVML_INFOROM_ECC;
    case InforomObject::power:
      return NVML_INFOROM_POWER;
  }
  return NVML_INFOROM_OEM;
}

// Calls a getter that fills a char buffer of `size` bytes; NVML NUL-terminates on success.
template <typename Call>
std::optional<std::string> read_string(unsigned size, Call&& call) {
  std::string buffer(size, '\0');
  if (call(buffer.data(), size) != NVML_SUCCESS) return std::nullopt;
  buffer.resize(std::strlen(buffer.c_str()));
  return buffer;
}

template <typename Fn>
std::optional<std::string> device_string(Fn fn, NvmlDevice device, unsigned size) {
  if (fn == nullptr || device.handle == nullptr) return std::nullopt;
  return read_string(size, [&](char* text, unsigned length) { return fn(as_nvml(device), text, length); });
}

}  // namespace

Nvml::Nvml() : Nvml(std::string("libnvidia-ml.so.1")) {}

Nvml::Nvml(const std::string& library) : m_symbols(std::make_unique<Symbols>()) {
  // RTLD_LOCAL: NVML's symbols must not satisfy anything else in this process.
  m_library = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (m_library == nullptr) {
    const char* why = dlerror();
    m_error = "cannot load " + library + " (dlopen: " + (why ? why : "unknown error") + ")";
    return;
  }
  load([this](const char* symbol) { return dlsym(m_library, symbol); }, library);
}

Nvml::Nvml(SymbolLookup lookup, std::string origin) : m_symbols(std::make_unique<Symbols>()) { load(lookup, origin); }

Nvml::~Nvml() {
  if (m_initialized && m_symbols->shutdown != nullptr) m_symbols->shutdown();
  if (m_library != nullptr) dlclose(m_library);
}

void Nvml::load(const SymbolLookup& lookup, const std::string& origin) {
  auto& s = *m_symbols;
  // Resolves one symbol; a missing optional one is listed and its field stays unknown.
  auto resolve = [&](const char* symbol, auto& fn, bool report_missing = true) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(lookup(symbol));
    if (fn == nullptr && report_missing) m_missing.emplace_back(symbol);
  };
  resolve("nvmlInit_v2", s.init);
  resolve("nvmlShutdown", s.shutdown);
  resolve("nvmlErrorString", s.error_string);
  resolve("nvmlSystemGetDriverVersion", s.driver_version);
  resolve("nvmlSystemGetCudaDriverVersion_v2", s.cuda_driver_version);
  resolve("nvmlDeviceGetCount_v2", s.device_count);
  resolve("nvmlDeviceGetHandleByIndex_v2", s.by_index);
  resolve("nvmlDeviceGetHandleByPciBusId_v2", s.by_pci_bus_id);
  resolve("nvmlDeviceGetIndex", s.index);
  resolve("nvmlDeviceGetName", s.name);
  resolve("nvmlDeviceGetUUID", s.uuid);
  resolve("nvmlDeviceGetSerial", s.serial);
  resolve("nvmlDeviceGetPciInfo_v3", s.pci_info);
  resolve("nvmlDeviceGetVbiosVersion", s.vbios);
  resolve("nvmlDeviceGetGspFirmwareVersion", s.gsp_version);
  resolve("nvmlDeviceGetGspFirmwareMode", s.gsp_mode);
  resolve("nvmlDeviceGetInforomImageVersion", s.inforom_image);
  resolve("nvmlDeviceGetInforomVersion", s.inforom_object);
  resolve("nvmlDeviceGetEccMode", s.ecc_mode);
  resolve("nvmlDeviceGetTotalEccErrors", s.ecc_errors);
  resolve("nvmlDeviceGetEnforcedPowerLimit", s.power_limit);
  resolve("nvmlDeviceGetPowerUsage", s.power_usage);
  resolve("nvmlDeviceGetClockInfo", s.clock);
  resolve("nvmlDeviceGetMaxClockInfo", s.max_clock);
  resolve("nvmlDeviceGetPersistenceMode", s.persistence);
  resolve("nvmlDeviceGetTemperature", s.temperature);
  resolve("nvmlDeviceGetMemoryInfo", s.memory);
  // Renamed in driver 535; the old name is kept by newer drivers but may go away.
  resolve("nvmlDeviceGetCurrentClocksEventReasons", s.event_reasons, false);
  if (s.event_reasons == nullptr) resolve("nvmlDeviceGetCurrentClocksThrottleReasons", s.event_reasons, false);
  if (s.event_reasons == nullptr) m_missing.emplace_back("nvmlDeviceGetCurrentClocksEventReasons");

  if (s.init == nullptr || s.shutdown == nullptr) {
    m_error = origin + " lacks nvmlInit_v2 / nvmlShutdown";
    return;
  }
  const nvmlReturn_t status = s.init();
  if (status != NVML_SUCCESS) {
    m_error = "nvmlInit_v2 failed: " + error_text(status);
    return;
  }
  m_initialized = true;
}

std::string Nvml::error_text(int code) const {
  const char* text = m_symbols->error_string ? m_symbols->error_string(code) : nullptr;
  return std::string(text ? text : "NVML error") + " (" + std::to_string(code) + ")";
}

std::optional<std::string> Nvml::driver_version() const {
  const auto fn = m_symbols->driver_version;
  if (!m_initialized || fn == nullptr) return std::nullopt;
  return read_string(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE, [&](char* text, unsigned size) { return fn(text, size); });
}

std::optional<int> Nvml::cuda_driver_version() const {
  int version = 0;
  if (!m_initialized || m_symbols->cuda_driver_version == nullptr ||
      m_symbols->cuda_driver_version(&version) != NVML_SUCCESS)
    return std::nullopt;
  return version;
}

std::optional<unsigned> Nvml::device_count() const {
  unsigned count = 0;
  if (!m_initialized || m_symbols->device_count == nullptr || m_symbols->device_count(&count) != NVML_SUCCESS)
    return std::nullopt;
  return count;
}

std::optional<NvmlDevice> Nvml::device_by_index(unsigned index) const {
  nvmlDevice_t device = nullptr;
  if (!m_initialized || m_symbols->by_index == nullptr || m_symbols->by_index(index, &device) != NVML_SUCCESS)
    return std::nullopt;
  return NvmlDevice{device};
}

std::optional<NvmlDevice> Nvml::device_by_pci_bus_id(const std::string& bus_id) const {
  nvmlDevice_t device = nullptr;
  if (!m_initialized || m_symbols->by_pci_bus_id == nullptr ||
      m_symbols->by_pci_bus_id(bus_id.c_str(), &device) != NVML_SUCCESS)
    return std::nullopt;
  return NvmlDevice{device};
}

std::optional<unsigned> Nvml::index(NvmlDevice device) const {
  unsigned value = 0;
  if (m_symbols->index == nullptr || device.handle == nullptr ||
      m_symbols->index(as_nvml(device), &value) != NVML_SUCCESS)
    return std::nullopt;
  return value;
}

std::optional<std::string> Nvml::name(NvmlDevice device) const {
  return device_string(m_symbols->name, device, NVML_DEVICE_NAME_V2_BUFFER_SIZE);
}

std::optional<std::string> Nvml::uuid(NvmlDevice device) const {
  return device_string(m_symbols->uuid, device, NVML_DEVICE_UUID_V2_BUFFER_SIZE);
}

std::optional<std::string> Nvml::serial(NvmlDevice device) const {
  return device_string(m_symbols->serial, device, NVML_DEVICE_SERIAL_BUFFER_SIZE);
}

std::optional<std::string> Nvml::pci_bus_id(NvmlDevice device) const {
  nvmlPciInfo_t info{};
  if (m_symbols->pci_info == nullptr || device.handle == nullptr ||
      m_symbols->pci_info(as_nvml(device), &info) != NVML_SUCCESS)
    return std::nullopt;
  info.busId[sizeof info.busId - 1] = '\0';
  return std::string(info.busId);
}

std::optional<std::string> Nvml::vbios_version(NvmlDevice device) const {
  return device_string(m_symbols->vbios, device, NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE);
}

std::optional<std::string> Nvml::gsp_firmware_version(NvmlDevice device) const {
  const auto fn = m_symbols->gsp_version;
  if (fn == nullptr || device.handle == nullptr) return std::nullopt;
  // This getter takes no length: the buffer must hold NVML_GSP_FIRMWARE_VERSION_BUF_SIZE.
  return read_string(NVML_GSP_FIRMWARE_VERSION_BUF_SIZE,
                     [&](char* text, unsigned) { return fn(as_nvml(device), text); });
}

std::optional<GspFirmwareMode> Nvml::gsp_firmware_mode(NvmlDevice device) const {
  unsigned enabled = 0;
  unsigned default_mode = 0;
  if (m_symbols->gsp_mode == nullptr || device.handle == nullptr ||
      m_symbols->gsp_mode(as_nvml(device), &enabled, &default_mode) != NVML_SUCCESS)
    return std::nullopt;
  return GspFirmwareMode{enabled != 0, default_mode != 0};
}

std::optional<std::string> Nvml::inforom_image_version(NvmlDevice device) const {
  return device_string(m_symbols->inforom_image, device, NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE);
}

std::optional<std::string> Nvml::inforom_version(NvmlDevice device, InforomObject object) const {
  const auto fn = m_symbols->inforom_object;
  if (fn == nullptr || device.handle == nullptr) return std::nullopt;
  return read_string(NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE, [&](char* text, unsigned size) {
    return fn(as_nvml(device), inforom_object(object), text, size);
  });
}

std::optional<EccMode> Nvml::ecc_mode(NvmlDevice device) const {
  nvmlEnableState_t current = NVML_FEATURE_DISABLED;
  nvmlEnableState_t pending = NVML_FEATURE_DISABLED;
  if (m_symbols->ecc_mode == nullptr || device.handle == nullptr ||
      m_symbols->ecc_mode(as_nvml(device), &current, &pending) != NVML_SUCCESS)
    return std::nullopt;
  return EccMode{current == NVML_FEATURE_ENABLED, pending == NVML_FEATURE_ENABLED};
}

namespace {
template <typename Fn>
std::optional<std::uint64_t> uncorrected(Fn fn, NvmlDevice device, nvmlEccCounterType_t counter) {
  unsigned long long count = 0;
  if (fn == nullptr || device.handle == nullptr ||
      fn(as_nvml(device), NVML_MEMORY_ERROR_TYPE_UNCORRECTED, counter, &count) != NVML_SUCCESS)
    return std::nullopt;
  return static_cast<std::uint64_t>(count);
}

template <typename Fn>
std::optional<double> milliwatts_as_watts(Fn fn, NvmlDevice device) {
  unsigned milliwatts = 0;
  if (fn == nullptr || device.handle == nullptr || fn(as_nvml(device), &milliwatts) != NVML_SUCCESS)
    return std::nullopt;
  return milliwatts / 1000.0;
}

template <typename Fn>
std::optional<unsigned> clock_of(Fn fn, NvmlDevice device, ClockDomain domain) {
  unsigned mhz = 0;
  if (fn == nullptr || device.handle == nullptr || fn(as_nvml(device), clock_type(domain), &mhz) != NVML_SUCCESS)
    return std::nullopt;
  return mhz;
}
}  // namespace

std::optional<std::uint64_t> Nvml::ecc_uncorrected_volatile(NvmlDevice device) const {
  return uncorrected(m_symbols->ecc_errors, device, NVML_VOLATILE_ECC);
}

std::optional<std::uint64_t> Nvml::ecc_uncorrected_aggregate(NvmlDevice device) const {
  return uncorrected(m_symbols->ecc_errors, device, NVML_AGGREGATE_ECC);
}

std::optional<double> Nvml::power_limit_w(NvmlDevice device) const {
  return milliwatts_as_watts(m_symbols->power_limit, device);
}

std::optional<double> Nvml::power_usage_w(NvmlDevice device) const {
  return milliwatts_as_watts(m_symbols->power_usage, device);
}

std::optional<unsigned> Nvml::clock_mhz(NvmlDevice device, ClockDomain domain) const {
  return clock_of(m_symbols->clock, device, domain);
}

std::optional<unsigned> Nvml::max_clock_mhz(NvmlDevice device, ClockDomain domain) const {
  return clock_of(m_symbols->max_clock, device, domain);
}

std::optional<bool> Nvml::persistence_mode(NvmlDevice device) const {
  nvmlEnableState_t mode = NVML_FEATURE_DISABLED;
  if (m_symbols->persistence == nullptr || device.handle == nullptr ||
      m_symbols->persistence(as_nvml(device), &mode) != NVML_SUCCESS)
    return std::nullopt;
  return mode == NVML_FEATURE_ENABLED;
}

std::optional<unsigned> Nvml::temperature_c(NvmlDevice device) const {
  unsigned celsius = 0;
  if (m_symbols->temperature == nullptr || device.handle == nullptr ||
      m_symbols->temperature(as_nvml(device), NVML_TEMPERATURE_GPU, &celsius) != NVML_SUCCESS)
    return std::nullopt;
  return celsius;
}

std::optional<std::uint64_t> Nvml::memory_total_bytes(NvmlDevice device) const {
  nvmlMemory_t memory{};
  if (m_symbols->memory == nullptr || device.handle == nullptr ||
      m_symbols->memory(as_nvml(device), &memory) != NVML_SUCCESS)
    return std::nullopt;
  return static_cast<std::uint64_t>(memory.total);
}

std::optional<std::uint64_t> Nvml::clock_event_reasons(NvmlDevice device) const {
  unsigned long long reasons = 0;
  if (m_symbols->event_reasons == nullptr || device.handle == nullptr ||
      m_symbols->event_reasons(as_nvml(device), &reasons) != NVML_SUCCESS)
    return std::nullopt;
  return static_cast<std::uint64_t>(reasons);
}

const Nvml& shared_nvml() {
  static const Nvml nvml;  // thread-safe initialisation
  return nvml;
}

ClockSample Nvml::sample(NvmlDevice device) const {
  ClockSample sample;
  sample.sm_clock_mhz = clock_mhz(device, ClockDomain::sm);
  sample.mem_clock_mhz = clock_mhz(device, ClockDomain::memory);
  sample.temperature_c = temperature_c(device);
  sample.power_w = power_usage_w(device);
  sample.event_reasons = clock_event_reasons(device);
  return sample;
}

}  // namespace vsa
