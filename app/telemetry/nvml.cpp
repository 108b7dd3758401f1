#include "telemetry/nvml.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

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
  nvmlDeviceGetHandleByUUID_fn by_uuid = nullptr;
  nvmlDeviceGetMigMode_fn mig_mode = nullptr;
  nvmlDeviceGetUtilizationRates_fn utilization = nullptr;
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
  nvmlDeviceGetRemappedRows_fn remapped_rows = nullptr;
  nvmlDeviceGetRetiredPages_fn retired_pages = nullptr;
  nvmlDeviceGetRetiredPagesPendingStatus_fn retired_pending = nullptr;
  nvmlDeviceGetPcie_fn pcie_gen = nullptr, pcie_gen_max = nullptr, pcie_width = nullptr, pcie_width_max = nullptr;
  nvmlDeviceGetTemperatureThreshold_fn temperature_threshold = nullptr;
  nvmlDeviceGetViolationStatus_fn violation_status = nullptr;
  nvmlDeviceGetFieldValues_fn field_values = nullptr;
  nvmlDeviceGetComputeRunningProcesses_fn compute_processes = nullptr;
  nvmlEventSetCreate_fn event_set_create = nullptr;
  nvmlDeviceRegisterEvents_fn register_events = nullptr;
  nvmlEventSetWait_fn event_set_wait = nullptr;  // _v2, else the original
  nvmlEventSetFree_fn event_set_free = nullptr;
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
  // Health entry points: missing ones are stated as the gate's SKIP (health.cpp), not listed here.
  resolve("nvmlDeviceGetRemappedRows", s.remapped_rows, false);
  resolve("nvmlDeviceGetRetiredPages", s.retired_pages, false);
  resolve("nvmlDeviceGetRetiredPagesPendingStatus", s.retired_pending, false);
  resolve("nvmlDeviceGetCurrPcieLinkGeneration", s.pcie_gen, false);
  resolve("nvmlDeviceGetMaxPcieLinkGeneration", s.pcie_gen_max, false);
  resolve("nvmlDeviceGetCurrPcieLinkWidth", s.pcie_width, false);
  resolve("nvmlDeviceGetMaxPcieLinkWidth", s.pcie_width_max, false);
  resolve("nvmlDeviceGetTemperatureThreshold", s.temperature_threshold, false);
  resolve("nvmlDeviceGetViolationStatus", s.violation_status, false);
  resolve("nvmlDeviceGetFieldValues", s.field_values, false);
  resolve("nvmlDeviceGetComputeRunningProcesses_v3", s.compute_processes, false);
  resolve("nvmlDeviceGetHandleByUUID", s.by_uuid, false);
  resolve("nvmlDeviceGetMigMode", s.mig_mode, false);
  resolve("nvmlDeviceGetUtilizationRates", s.utilization, false);
  resolve("nvmlEventSetCreate", s.event_set_create, false);
  resolve("nvmlDeviceRegisterEvents", s.register_events, false);
  resolve("nvmlEventSetWait_v2", s.event_set_wait, false);
  if (s.event_set_wait == nullptr) resolve("nvmlEventSetWait", s.event_set_wait, false);
  resolve("nvmlEventSetFree", s.event_set_free, false);

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

std::optional<NvmlDevice> Nvml::device_by_uuid(const std::string& uuid) const {
  nvmlDevice_t device = nullptr;
  if (!m_initialized || m_symbols->by_uuid == nullptr || m_symbols->by_uuid(uuid.c_str(), &device) != NVML_SUCCESS)
    return std::nullopt;
  return NvmlDevice{device};
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

namespace {
std::string missing(const char* symbol) { return std::string(symbol) + " is missing from this NVML"; }
}  // namespace

std::optional<std::string> Nvml::unanswerable(NvmlDevice device, bool has_entry_point, const char* symbol) const {
  // Why a health getter has no value before it calls NVML: not loaded, no device, or the entry
  // point missing from this driver's NVML.
  if (!m_initialized) return "NVML unavailable: " + m_error;
  if (device.handle == nullptr) return "no NVML device handle";
  if (!has_entry_point) return missing(symbol);
  return std::nullopt;
}

NvmlAnswer<RemappedRows> Nvml::remapped_rows(NvmlDevice device) const {
  // nvmlDeviceGetRemappedRows ("Device Queries", Ampere or newer): rows remapped per cause,
  // whether a remap waits for a reset, whether one ever failed. Not supported under active MIG.
  if (auto why = unanswerable(device, m_symbols->remapped_rows != nullptr, "nvmlDeviceGetRemappedRows"))
    return {std::nullopt, *why};
  unsigned corr = 0, unc = 0, pending = 0, failure = 0;
  const nvmlReturn_t status = m_symbols->remapped_rows(as_nvml(device), &corr, &unc, &pending, &failure);
  if (status != NVML_SUCCESS) return {std::nullopt, "nvmlDeviceGetRemappedRows: " + error_text(status)};
  return {RemappedRows{corr, unc, pending != 0, failure != 0}, ""};
}

NvmlAnswer<unsigned> Nvml::retired_pages(NvmlDevice device, bool double_bit) const {
  // nvmlDeviceGetRetiredPages ("Device Queries", Kepler or newer): the pages of one cause,
  // including pending ones. A too-small buffer still returns the count (INSUFFICIENT_SIZE).
  if (auto why = unanswerable(device, m_symbols->retired_pages != nullptr, "nvmlDeviceGetRetiredPages"))
    return {std::nullopt, *why};
  std::vector<unsigned long long> addresses(256);
  unsigned count = unsigned(addresses.size());
  const nvmlReturn_t status =
      m_symbols->retired_pages(as_nvml(device),
                               double_bit ? NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
                                          : NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
                               &count, addresses.data());
  if (status != NVML_SUCCESS && status != NVML_ERROR_INSUFFICIENT_SIZE)
    return {std::nullopt, "nvmlDeviceGetRetiredPages: " + error_text(status)};
  return {count, ""};
}

NvmlAnswer<bool> Nvml::retired_pages_pending(NvmlDevice device) const {
  // nvmlDeviceGetRetiredPagesPendingStatus: pages that need a reboot (driver reload) to retire.
  if (auto why = unanswerable(device, m_symbols->retired_pending != nullptr, "nvmlDeviceGetRetiredPagesPendingStatus"))
    return {std::nullopt, *why};
  nvmlEnableState_t pending = NVML_FEATURE_DISABLED;
  const nvmlReturn_t status = m_symbols->retired_pending(as_nvml(device), &pending);
  if (status != NVML_SUCCESS) return {std::nullopt, "nvmlDeviceGetRetiredPagesPendingStatus: " + error_text(status)};
  return {pending == NVML_FEATURE_ENABLED, ""};
}

NvmlAnswer<std::uint64_t> Nvml::ecc_volatile(NvmlDevice device, bool corrected) const {
  // nvmlDeviceGetTotalEccErrors with NVML_VOLATILE_ECC: counts since the driver loaded.
  if (auto why = unanswerable(device, m_symbols->ecc_errors != nullptr, "nvmlDeviceGetTotalEccErrors"))
    return {std::nullopt, *why};
  unsigned long long count = 0;
  const nvmlReturn_t status = m_symbols->ecc_errors(
      as_nvml(device), corrected ? NVML_MEMORY_ERROR_TYPE_CORRECTED : NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
      NVML_VOLATILE_ECC, &count);
  if (status != NVML_SUCCESS) return {std::nullopt, "nvmlDeviceGetTotalEccErrors: " + error_text(status)};
  return {static_cast<std::uint64_t>(count), ""};
}

namespace {
nvmlTemperatureThresholds_t threshold_type(TemperatureThreshold which) {
  switch (which) {
    case TemperatureThreshold::shutdown:
      return NVML_TEMPERATURE_THRESHOLD_SHUTDOWN;
    case TemperatureThreshold::slowdown:
      return NVML_TEMPERATURE_THRESHOLD_SLOWDOWN;
    case TemperatureThreshold::memory_max:
      return NVML_TEMPERATURE_THRESHOLD_MEM_MAX;
    case TemperatureThreshold::gpu_max:
      return NVML_TEMPERATURE_THRESHOLD_GPU_MAX;
  }
  return NVML_TEMPERATURE_THRESHOLD_GPU_MAX;
}
}  // namespace

NvmlAnswer<unsigned> Nvml::temperature_threshold(NvmlDevice device, TemperatureThreshold which) const {
  // nvmlDeviceGetTemperatureThreshold ("Device Queries", Kepler or newer). NVML notes that Ada
  // and newer parts prefer the NVML_FI_DEV_TEMPERATURE_*_TLIMIT fields; an answer of
  // NOT_SUPPORTED there is stated, not guessed.
  if (auto why = unanswerable(device, m_symbols->temperature_threshold != nullptr, "nvmlDeviceGetTemperatureThreshold"))
    return {std::nullopt, *why};
  unsigned celsius = 0;
  const nvmlReturn_t status = m_symbols->temperature_threshold(as_nvml(device), threshold_type(which), &celsius);
  if (status != NVML_SUCCESS) return {std::nullopt, "nvmlDeviceGetTemperatureThreshold: " + error_text(status)};
  return {celsius, ""};
}

namespace {

// The number a field that answered holds, in whichever type the driver chose.
NvmlAnswer<double> field_number(const nvmlFieldValue_t& field, const char* name) {
  switch (field.valueType) {
    case NVML_VALUE_TYPE_DOUBLE:
      return {field.value.dVal, ""};
    case NVML_VALUE_TYPE_UNSIGNED_INT:
      return {double(field.value.uiVal), ""};
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
      return {double(field.value.ulVal), ""};
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
      return {double(field.value.ullVal), ""};
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
      return {double(field.value.sllVal), ""};
    case NVML_VALUE_TYPE_SIGNED_INT:
      return {double(field.value.siVal), ""};
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
      return {double(field.value.usVal), ""};
    default:
      return {std::nullopt, std::string(name) + " has value type " + std::to_string(field.valueType)};
  }
}

NvmlAnswer<unsigned> as_celsius(const NvmlAnswer<double>& c) {
  if (!c.value) return {std::nullopt, c.why};
  return {unsigned(std::clamp(*c.value, 0.0, double(std::numeric_limits<unsigned>::max()))), ""};
}

NvmlAnswer<double> watts_of(const NvmlAnswer<double>& mw) {
  if (!mw.value) return {std::nullopt, mw.why};
  return {*mw.value / 1000.0, ""};
}

constexpr NvmlField kMemoryTemperature{NVML_FI_DEV_MEMORY_TEMP, "NVML_FI_DEV_MEMORY_TEMP"};
constexpr NvmlField kPowerInstant{NVML_FI_DEV_POWER_INSTANT, "NVML_FI_DEV_POWER_INSTANT"};

}  // namespace

std::vector<NvmlAnswer<double>> Nvml::field_values(NvmlDevice device, const std::vector<NvmlField>& fields) const {
  // nvmlDeviceGetFieldValues, several fields in one call: the call can succeed while a field
  // itself fails (its own nvmlReturn), so both are checked. scopeId 0 (zeroed): the GPU's own
  // reading, not a module's.
  if (auto why = unanswerable(device, m_symbols->field_values != nullptr, "nvmlDeviceGetFieldValues"))
    return std::vector<NvmlAnswer<double>>(fields.size(), {std::nullopt, *why});
  std::vector<nvmlFieldValue_t> values(fields.size());
  for (std::size_t i = 0; i < fields.size(); ++i) values[i].fieldId = fields[i].id;
  const nvmlReturn_t status = m_symbols->field_values(as_nvml(device), int(values.size()), values.data());
  if (status != NVML_SUCCESS)
    return std::vector<NvmlAnswer<double>>(fields.size(),
                                           {std::nullopt, "nvmlDeviceGetFieldValues: " + error_text(status)});
  std::vector<NvmlAnswer<double>> answers;
  for (std::size_t i = 0; i < fields.size(); ++i)
    answers.push_back(values[i].nvmlReturn == NVML_SUCCESS
                          ? field_number(values[i], fields[i].name)
                          : NvmlAnswer<double>{std::nullopt, std::string("nvmlDeviceGetFieldValues(") + fields[i].name +
                                                                 "): " + error_text(values[i].nvmlReturn)});
  return answers;
}

NvmlAnswer<unsigned> Nvml::memory_temperature(NvmlDevice device) const {
  return as_celsius(field_values(device, {kMemoryTemperature})[0]);
}

NvmlAnswer<double> Nvml::power_instant_w(NvmlDevice device) const {
  return watts_of(field_values(device, {kPowerInstant})[0]);
}

NvmlAnswer<std::uint64_t> Nvml::thermal_violation_ns(NvmlDevice device) const {
  // nvmlDeviceGetViolationStatus(NVML_PERF_POLICY_THERMAL): "how long did thermal violations
  // cause the GPU to be below application clocks", cumulative nanoseconds.
  if (auto why = unanswerable(device, m_symbols->violation_status != nullptr, "nvmlDeviceGetViolationStatus"))
    return {std::nullopt, *why};
  nvmlViolationTime_t time{};
  const nvmlReturn_t status = m_symbols->violation_status(as_nvml(device), NVML_PERF_POLICY_THERMAL, &time);
  if (status != NVML_SUCCESS)
    return {std::nullopt, "nvmlDeviceGetViolationStatus(NVML_PERF_POLICY_THERMAL): " + error_text(status)};
  return {static_cast<std::uint64_t>(time.violationTime), ""};
}

NvmlAnswer<bool> Nvml::mig_enabled(NvmlDevice device) const {
  // A missing entry point is an answer here, not a reason (below), so only the first two hold.
  if (auto why = unanswerable(device, /*has_entry_point=*/true, "nvmlDeviceGetMigMode")) return {std::nullopt, *why};
  // An NVML without the entry point predates MIG, so its GPUs cannot be in MIG mode.
  if (m_symbols->mig_mode == nullptr) return {false, ""};
  unsigned current = 0, pending = 0;
  const nvmlReturn_t status = m_symbols->mig_mode(as_nvml(device), &current, &pending);
  // A GPU without MIG (pre-Ampere, or a product that lacks it) answers NOT_SUPPORTED: not enabled.
  if (status == NVML_ERROR_NOT_SUPPORTED) return {false, ""};
  if (status != NVML_SUCCESS) return {std::nullopt, "nvmlDeviceGetMigMode: " + error_text(status)};
  return {current == NVML_DEVICE_MIG_ENABLE, ""};
}

NvmlAnswer<unsigned> Nvml::kernel_busy_percent(NvmlDevice device) const {
  if (auto why = unanswerable(device, m_symbols->utilization != nullptr, "nvmlDeviceGetUtilizationRates"))
    return {std::nullopt, *why};
  nvmlUtilization_t utilization{};
  const nvmlReturn_t status = m_symbols->utilization(as_nvml(device), &utilization);
  if (status != NVML_SUCCESS) return {std::nullopt, "nvmlDeviceGetUtilizationRates: " + error_text(status)};
  return {utilization.gpu, ""};
}

NvmlAnswer<std::vector<GpuProcess>> Nvml::compute_processes(NvmlDevice device) const {
  // nvmlDeviceGetComputeRunningProcesses_v3: the processes with a compute context on the device.
  // The list can grow between two calls, so a too-small buffer is grown and asked again.
  if (auto why =
          unanswerable(device, m_symbols->compute_processes != nullptr, "nvmlDeviceGetComputeRunningProcesses_v3"))
    return {std::nullopt, *why};
  std::vector<nvmlProcessInfo_t> infos(16);
  for (int attempt = 0; attempt < 4; ++attempt) {
    unsigned count = unsigned(infos.size());
    const nvmlReturn_t status = m_symbols->compute_processes(as_nvml(device), &count, infos.data());
    if (status == NVML_ERROR_INSUFFICIENT_SIZE) {
      infos.resize(std::size_t(count) + 8);
      continue;
    }
    if (status != NVML_SUCCESS) return {std::nullopt, "nvmlDeviceGetComputeRunningProcesses_v3: " + error_text(status)};
    std::vector<GpuProcess> out;
    for (unsigned i = 0; i < count && i < infos.size(); ++i) out.push_back({infos[i].pid, infos[i].usedGpuMemory});
    return {std::move(out), ""};
  }
  return {std::nullopt, "nvmlDeviceGetComputeRunningProcesses_v3: the list kept growing"};
}

namespace {
template <typename Error>
NvmlAnswer<PcieLink> read_link(nvmlDeviceGetPcie_fn gen, const char* gen_symbol, nvmlDeviceGetPcie_fn width,
                               const char* width_symbol, nvmlDevice_t device, Error&& error_text) {
  if (gen == nullptr) return {std::nullopt, missing(gen_symbol)};
  if (width == nullptr) return {std::nullopt, missing(width_symbol)};
  PcieLink link;
  if (const nvmlReturn_t s = gen(device, &link.generation); s != NVML_SUCCESS)
    return {std::nullopt, std::string(gen_symbol) + ": " + error_text(s)};
  if (const nvmlReturn_t s = width(device, &link.width); s != NVML_SUCCESS)
    return {std::nullopt, std::string(width_symbol) + ": " + error_text(s)};
  return {link, ""};
}
}  // namespace

NvmlAnswer<PcieLink> Nvml::pcie_link(NvmlDevice device) const {
  // nvmlDeviceGetCurrPcieLinkGeneration / ...Width ("Device Queries"): the link as trained now;
  // an idle GPU may train down to save power, so health.cpp samples it under load.
  if (auto why = unanswerable(device, m_symbols->pcie_gen != nullptr, "nvmlDeviceGetCurrPcieLinkGeneration"))
    return {std::nullopt, *why};
  return read_link(m_symbols->pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration", m_symbols->pcie_width,
                   "nvmlDeviceGetCurrPcieLinkWidth", as_nvml(device), [this](int c) { return error_text(c); });
}

NvmlAnswer<PcieLink> Nvml::pcie_link_max(NvmlDevice device) const {
  // nvmlDeviceGetMaxPcieLinkGeneration / ...Width: the most "possible with this device and system".
  if (auto why = unanswerable(device, m_symbols->pcie_gen_max != nullptr, "nvmlDeviceGetMaxPcieLinkGeneration"))
    return {std::nullopt, *why};
  return read_link(m_symbols->pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration", m_symbols->pcie_width_max,
                   "nvmlDeviceGetMaxPcieLinkWidth", as_nvml(device), [this](int c) { return error_text(c); });
}

NvmlAnswer<void*> Nvml::open_xid_events(NvmlDevice device) const {
  // "Event Handling Methods": nvmlEventSetCreate, then nvmlDeviceRegisterEvents with
  // nvmlEventTypeXidCriticalError (Linux only; events before the call are not recorded).
  // NOT_SUPPORTED leaves the set usable but empty: that is a SKIP, so the set is freed.
  if (auto why = unanswerable(device, m_symbols->event_set_create != nullptr, "nvmlEventSetCreate"))
    return {std::nullopt, *why};
  if (m_symbols->register_events == nullptr) return {std::nullopt, missing("nvmlDeviceRegisterEvents")};
  if (m_symbols->event_set_wait == nullptr) return {std::nullopt, missing("nvmlEventSetWait_v2")};
  if (m_symbols->event_set_free == nullptr) return {std::nullopt, missing("nvmlEventSetFree")};
  nvmlEventSet_t set = nullptr;
  if (const nvmlReturn_t s = m_symbols->event_set_create(&set); s != NVML_SUCCESS)
    return {std::nullopt, "nvmlEventSetCreate: " + error_text(s)};
  if (const nvmlReturn_t s = m_symbols->register_events(as_nvml(device), nvmlEventTypeXidCriticalError, set);
      s != NVML_SUCCESS) {
    m_symbols->event_set_free(set);
    return {std::nullopt, "nvmlDeviceRegisterEvents(nvmlEventTypeXidCriticalError): " + error_text(s)};
  }
  return {static_cast<void*>(set), ""};
}

XidWait Nvml::wait_xid(void* event_set, unsigned timeout_ms) const {
  // nvmlEventSetWait_v2: returns at once when an event is queued, else sleeps up to the timeout
  // (NVML_ERROR_TIMEOUT, also on an interrupt). eventData holds the Xid.
  XidWait wait;
  if (event_set == nullptr || m_symbols->event_set_wait == nullptr) {
    wait.what = XidWait::What::error;
    wait.why = "no event set";
    return wait;
  }
  nvmlEventData_t data{};
  const nvmlReturn_t status = m_symbols->event_set_wait(static_cast<nvmlEventSet_t>(event_set), &data, timeout_ms);
  if (status == NVML_ERROR_TIMEOUT) return wait;
  if (status != NVML_SUCCESS) {
    wait.what = XidWait::What::error;
    wait.why = "nvmlEventSetWait_v2: " + error_text(status);
    return wait;
  }
  if ((data.eventType & nvmlEventTypeXidCriticalError) == 0) return wait;  // only Xids were registered
  wait.what = XidWait::What::event;
  wait.xid = data.eventData;
  return wait;
}

void Nvml::close_xid_events(void* event_set) const {
  if (event_set != nullptr && m_symbols->event_set_free != nullptr)
    m_symbols->event_set_free(static_cast<nvmlEventSet_t>(event_set));
}

const Nvml& shared_nvml() {
  static const Nvml nvml;  // thread-safe initialisation
  return nvml;
}

ClockSample Nvml::sample(const NvmlSampleTarget& target) const {
  const NvmlDevice device = target.gpu;
  ClockSample sample;
  sample.sm_clock_mhz = clock_mhz(device, ClockDomain::sm);
  sample.mem_clock_mhz = clock_mhz(device, ClockDomain::memory);
  sample.temperature_c = temperature_c(device);
  sample.power_w = power_usage_w(device);
  sample.event_reasons = clock_event_reasons(device);
  const auto fields = field_values(device, {kMemoryTemperature, kPowerInstant});  // one call for both
  sample.memory_temperature_c = as_celsius(fields[0]).value;
  sample.power_instant_w = watts_of(fields[1]).value;
  sample.thermal_violation_ns = thermal_violation_ns(device).value;
  if (!target.processes) {
    sample.compute_pids_why = target.why;
  } else if (auto processes = compute_processes(*target.processes); processes.value) {
    sample.compute_pids.emplace();
    for (const auto& p : *processes.value) sample.compute_pids->push_back(p.pid);
  } else {
    sample.compute_pids_why = processes.why;
  }
  return sample;
}

}  // namespace vsa
