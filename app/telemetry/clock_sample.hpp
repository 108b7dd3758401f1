#pragma once
// What timing records from NVML around each measurement (docs/design.md, "Running"):
// the SM and memory clocks, temperature, power and the clocks-event ("throttle")
// reasons in force at that moment, so a slow sample taken under a power cap or a
// thermal slowdown is visible in the report instead of hiding in a median.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vsa {

struct ClockSample {
  std::optional<unsigned> sm_clock_mhz;
  std::optional<unsigned> mem_clock_mhz;
  std::optional<unsigned> temperature_c;
  std::optional<double> power_w;                      // NVML's reading: a one-second mean on Ampere and newer
  std::optional<double> power_instant_w;              // the power drawn at the sample (NVML_FI_DEV_POWER_INSTANT)
  std::optional<std::uint64_t> event_reasons;         // raw NVML bit mask; absent when NVML cannot say
  std::optional<unsigned> memory_temperature_c;       // HBM (NVML_FI_DEV_MEMORY_TEMP)
  std::optional<std::uint64_t> thermal_violation_ns;  // cumulative (nvmlDeviceGetViolationStatus, THERMAL)
  // The processes with a compute context on the GPU, as the driver lists their pids
  // (nvmlDeviceGetComputeRunningProcesses_v3): while a worker times a case, its own is one of
  // them, so more than one means another process shares the GPU (run 49: a neighbour
  // launching small kernels cost the S = 16384 backward 20%).
  std::optional<std::vector<unsigned>> compute_pids;
  // Why compute_pids is null, where the sampler knows: under MIG, that the worker's instance could
  // not be found; else the NVML call's error. Written only then, so a SKIP can say why.
  std::string compute_pids_why;

  [[nodiscard]] std::vector<std::string> reason_names() const;
  // True when a reason that holds clocks below what was asked for is active
  // (power cap, thermal or hardware slowdown, ...); idle and clock settings do not count.
  [[nodiscard]] bool slowed_down() const;
};

// Bit mask -> stable short names, lowest bit first: "gpu_idle", "applications_clocks",
// "sw_power_cap", "hw_slowdown", "sync_boost", "sw_thermal", "hw_thermal",
// "hw_power_brake", "display_clocks", "board_limit", "reliability"; a bit NVML may
// add later comes out as "unknown_0x...". An empty list means no reason is active.
[[nodiscard]] std::vector<std::string> decode_clock_event_reasons(std::uint64_t mask);

// The subset of reasons that are slowdowns (see ClockSample::slowed_down).
[[nodiscard]] bool is_slowdown(std::uint64_t mask);

// The "event_reasons" mask of a sample as JSON (a ClockSample, or the summary of a pass's
// samples): a non-negative integer, else nothing (null: NVML could not say).
[[nodiscard]] std::optional<std::uint64_t> event_reasons_of(const nlohmann::json& sample);

// Unknown fields are null; "reasons" is the decoded list (null when unknown).
void to_json(nlohmann::json& j, const ClockSample& sample);

}  // namespace vsa
