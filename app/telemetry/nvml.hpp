#pragma once
// NVML, opened at run time with dlopen("libnvidia-ml.so.1") and never linked, so
// the binary runs where NVML is missing and loses only fields where one entry
// point is missing (an older driver): each symbol is resolved on its own and a
// getter whose symbol or call fails answers nullopt.
//
// RAII: the constructor calls nvmlInit_v2, the destructor nvmlShutdown and dlclose.
// NVML does not create a CUDA context, so a parent process that forks workers can
// hold one of these (CUDA itself is not fork-safe). Create it in the process that
// uses it: a handle does not survive fork + exec.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/clock_sample.hpp"

namespace vsa {

// One NVML device; valid while the Nvml that returned it lives.
struct NvmlDevice {
  void* handle = nullptr;
};

struct GspFirmwareMode {
  bool enabled = false;          // GSP firmware offload is running
  bool default_enabled = false;  // what the driver uses when not overridden
};

struct EccMode {
  bool current = false;
  bool pending = false;  // takes effect after the next reset
};

enum class ClockDomain { sm, memory, graphics };

// A health getter's answer: the value, or why there is none. The reason tells a missing
// entry point ("nvmlDeviceGetRemappedRows is missing from this NVML") and a GPU that
// cannot say ("... Not Supported (3)") apart, so a gate can state its SKIP.
template <typename T>
struct NvmlAnswer {
  std::optional<T> value;
  std::string why;  // set when !value
};

// Where one clock sample reads. Clocks, power and temperature are the physical GPU's. The compute
// processes are those that share our SMs: the GPU's own list, or under MIG our instance's list
// (the GPU's would also name other instances' processes, which share none of our SMs);
// nullopt when that cannot be read, which leaves the sample's process list unknown.
struct NvmlSampleTarget {
  NvmlDevice gpu;
  std::optional<NvmlDevice> processes;
  std::string why;  // when processes is nullopt: why (ClockSample::compute_pids_why)

  // A GPU read whole: right only where MIG is off (tests, and sample_target's answer then).
  static NvmlSampleTarget whole(NvmlDevice device) { return {device, device, ""}; }
};

// A process with a compute context on a GPU, as the driver lists it.
struct GpuProcess {
  unsigned pid = 0;                   // as the caller's pid namespace numbers it (see compute_processes)
  unsigned long long used_bytes = 0;  // its GPU memory
};

struct RemappedRows {
  unsigned correctable = 0, uncorrectable = 0;  // rows remapped for each cause
  bool pending = false;                         // a remap waits for a GPU reset
  bool failure = false;                         // a remap has failed on this board
};

struct PcieLink {
  unsigned generation = 0;
  unsigned width = 0;  // lanes
};

// One wait on an Xid event set: an event (its Xid), nothing within the timeout, or an error.
struct XidWait {
  enum class What { event, timeout, error } what = What::timeout;
  std::uint64_t xid = 0;
  std::string why;  // for error
};
enum class InforomObject { oem, ecc, power };

// A field of nvmlDeviceGetFieldValues: its id and the name errors give it.
struct NvmlField {
  unsigned id;
  const char* name;
};

// nvmlTemperatureThresholds_t: where the GPU shuts down, begins hardware slowdown, begins
// software slowdown for its memory temperature, may be throttled below base clock.
enum class TemperatureThreshold { shutdown, slowdown, memory_max, gpu_max };

class Nvml {
 public:
  // Resolves a symbol name to its address, or nullptr. Tests pass fakes.
  using SymbolLookup = std::function<void*(const char* symbol)>;

  Nvml();                                         // libnvidia-ml.so.1
  explicit Nvml(const std::string& library);      // another soname or path
  Nvml(SymbolLookup lookup, std::string origin);  // entry points from `lookup`; origin names them in messages
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // Loaded and initialised. When false, error() says why and every getter is nullopt.
  [[nodiscard]] bool available() const { return m_initialized; }
  [[nodiscard]] const std::string& error() const { return m_error; }
  // Entry points this NVML lacks (each loses a field), e.g. on a driver older than 510.
  [[nodiscard]] const std::vector<std::string>& missing_symbols() const { return m_missing; }

  [[nodiscard]] std::optional<std::string> driver_version() const;  // "580.159.04"
  [[nodiscard]] std::optional<int> cuda_driver_version() const;     // 13000 for CUDA 13.0
  [[nodiscard]] std::optional<unsigned> device_count() const;
  [[nodiscard]] std::optional<NvmlDevice> device_by_index(unsigned index) const;
  // Accepts CUDA's "0000:19:00.0" as well as NVML's "00000000:19:00.0".
  [[nodiscard]] std::optional<NvmlDevice> device_by_pci_bus_id(const std::string& bus_id) const;
  // A GPU's "GPU-..." UUID, or a MIG device's "MIG-..." one (its handle answers for that instance).
  [[nodiscard]] std::optional<NvmlDevice> device_by_uuid(const std::string& uuid) const;

  [[nodiscard]] std::optional<unsigned> index(NvmlDevice device) const;
  [[nodiscard]] std::optional<std::string> name(NvmlDevice device) const;
  [[nodiscard]] std::optional<std::string> uuid(NvmlDevice device) const;
  [[nodiscard]] std::optional<std::string> serial(NvmlDevice device) const;
  [[nodiscard]] std::optional<std::string> pci_bus_id(NvmlDevice device) const;
  [[nodiscard]] std::optional<std::string> vbios_version(NvmlDevice device) const;
  [[nodiscard]] std::optional<std::string> gsp_firmware_version(NvmlDevice device) const;
  [[nodiscard]] std::optional<GspFirmwareMode> gsp_firmware_mode(NvmlDevice device) const;
  [[nodiscard]] std::optional<std::string> inforom_image_version(NvmlDevice device) const;
  [[nodiscard]] std::optional<std::string> inforom_version(NvmlDevice device, InforomObject object) const;
  [[nodiscard]] std::optional<EccMode> ecc_mode(NvmlDevice device) const;
  // Uncorrected ECC errors since the last driver load (volatile) or over the board's life (aggregate).
  [[nodiscard]] std::optional<std::uint64_t> ecc_uncorrected_volatile(NvmlDevice device) const;
  [[nodiscard]] std::optional<std::uint64_t> ecc_uncorrected_aggregate(NvmlDevice device) const;
  [[nodiscard]] std::optional<double> power_limit_w(NvmlDevice device) const;  // enforced limit
  // NVML's power reading: on Ampere (except GA100) and newer, the mean over the last second.
  [[nodiscard]] std::optional<double> power_usage_w(NvmlDevice device) const;
  // The power drawn now (NVML_FI_DEV_POWER_INSTANT), what a pass shorter than a second drew.
  [[nodiscard]] NvmlAnswer<double> power_instant_w(NvmlDevice device) const;
  [[nodiscard]] std::optional<unsigned> clock_mhz(NvmlDevice device, ClockDomain domain) const;
  [[nodiscard]] std::optional<unsigned> max_clock_mhz(NvmlDevice device, ClockDomain domain) const;
  [[nodiscard]] std::optional<bool> persistence_mode(NvmlDevice device) const;
  [[nodiscard]] std::optional<unsigned> temperature_c(NvmlDevice device) const;
  [[nodiscard]] std::optional<std::uint64_t> memory_total_bytes(NvmlDevice device) const;
  // nvmlDeviceGetCurrentClocksEventReasons, or the older ...ClocksThrottleReasons.
  [[nodiscard]] std::optional<std::uint64_t> clock_event_reasons(NvmlDevice device) const;

  // Health (docs/qualify.md, "Health gates").
  [[nodiscard]] NvmlAnswer<RemappedRows> remapped_rows(NvmlDevice device) const;
  // Pages retired for double-bit errors (double_bit) or for repeated single-bit errors.
  [[nodiscard]] NvmlAnswer<unsigned> retired_pages(NvmlDevice device, bool double_bit) const;
  [[nodiscard]] NvmlAnswer<bool> retired_pages_pending(NvmlDevice device) const;
  // ECC error counts since the driver loaded (volatile).
  [[nodiscard]] NvmlAnswer<std::uint64_t> ecc_volatile(NvmlDevice device, bool corrected) const;
  // Thermal evidence for the throttle gate (docs/qualify.md, "Throttle"): a threshold in degrees C,
  // the memory (HBM) temperature, and NVML's cumulative thermal violation time (how long thermal
  // policy held the GPU below application clocks since the driver loaded), in nanoseconds.
  [[nodiscard]] NvmlAnswer<unsigned> temperature_threshold(NvmlDevice device, TemperatureThreshold which) const;
  [[nodiscard]] NvmlAnswer<unsigned> memory_temperature(NvmlDevice device) const;
  [[nodiscard]] NvmlAnswer<std::uint64_t> thermal_violation_ns(NvmlDevice device) const;
  [[nodiscard]] NvmlAnswer<PcieLink> pcie_link(NvmlDevice device) const;      // current generation and width
  [[nodiscard]] NvmlAnswer<PcieLink> pcie_link_max(NvmlDevice device) const;  // the most this GPU and slot allow
  // The percent of NVML's last sample period (1 s to 1/6 s, by product) in which any kernel ran
  // on the GPU, whoever launched it (nvmlDeviceGetUtilizationRates().gpu; not under MIG).
  [[nodiscard]] NvmlAnswer<unsigned> kernel_busy_percent(NvmlDevice device) const;
  // Whether MIG is enabled now (nvmlDeviceGetMigMode's current mode); false on a GPU or an NVML
  // that has no MIG, nullopt (with why) when the call fails.
  [[nodiscard]] NvmlAnswer<bool> mig_enabled(NvmlDevice device) const;
  // The processes with a compute context on the device (ours included, while we hold one). The
  // driver lists those its caller's pid namespace can see, numbered as that namespace numbers
  // them: in a container without the host's pid namespace a neighbour in another one is not
  // listed (NVIDIA's open kernel modules skip a client whose pid has no number in the caller's
  // namespace; older drivers, as NVIDIA described them in 2021, gave every process its host
  // pid). For a MIG GPU's own handle it lists, given the privileges to ask, every instance's
  // processes; a MIG device handle (device_by_uuid) lists its instance's.
  [[nodiscard]] NvmlAnswer<std::vector<GpuProcess>> compute_processes(NvmlDevice device) const;
  // An event set recording this GPU's critical Xid errors from now on; free it with close_xid_events.
  [[nodiscard]] NvmlAnswer<void*> open_xid_events(NvmlDevice device) const;
  [[nodiscard]] XidWait wait_xid(void* event_set, unsigned timeout_ms) const;
  void close_xid_events(void* event_set) const;

  // Eight NVML calls (five took about 32 us per sample on an H200, driver 580): cheap around each timed pass.
  // The target comes from sample_target (telemetry/nvml_cuda.hpp): a GPU's own handle for the
  // processes is right only without MIG.
  [[nodiscard]] ClockSample sample(const NvmlSampleTarget& target) const;

 private:
  struct Symbols;
  void load(const SymbolLookup& lookup, const std::string& origin);
  [[nodiscard]] std::string error_text(int code) const;
  // Why a getter cannot ask NVML at all (not loaded, no device, no such entry point), or nothing.
  [[nodiscard]] std::optional<std::string> unanswerable(NvmlDevice device, bool has_entry_point,
                                                        const char* symbol) const;
  // nvmlDeviceGetFieldValues for several fields in one call, each in whatever value type the
  // driver answers in, or why not.
  [[nodiscard]] std::vector<NvmlAnswer<double>> field_values(NvmlDevice device,
                                                             const std::vector<NvmlField>& fields) const;

  void* m_library = nullptr;  // dlopen handle; null when symbols came from a lookup
  std::unique_ptr<Symbols> m_symbols;
  bool m_initialized = false;
  std::string m_error;
  std::vector<std::string> m_missing;
};

// The process-wide NVML, opened on first use and shut down at exit: the fingerprint
// and the timing sampler share it instead of initialising NVML per call.
[[nodiscard]] const Nvml& shared_nvml();

}  // namespace vsa
