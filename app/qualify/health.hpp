#pragma once
// NVML health facts of one GPU (docs/qualify.md, "Health gates"): what a snapshot
// reads before and after a run, and what the monitor saw while it ran (critical Xid
// events, the best PCIe link under load). Each fact is a value or the reason NVML
// could not give it, so a gate states its SKIP instead of passing.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qualify/idle_utilization.hpp"
#include "telemetry/nvml.hpp"

namespace vsa {

struct HealthSnapshot {
  NvmlAnswer<RemappedRows> remapped_rows;
  NvmlAnswer<unsigned> retired_pages_sbe, retired_pages_dbe;  // multiple single-bit / double-bit causes
  NvmlAnswer<bool> retired_pages_pending;
  NvmlAnswer<std::uint64_t> ecc_corrected, ecc_uncorrected;  // volatile counts
  NvmlAnswer<PcieLink> pcie_link, pcie_link_max;
  // What health.throttle weighs a thermal slowdown against (docs/qualify.md, "Throttle").
  NvmlAnswer<unsigned> temperature_shutdown_c, temperature_slowdown_c, temperature_gpu_max_c, temperature_memory_max_c;
  NvmlAnswer<std::uint64_t> thermal_violation_ns;  // cumulative, since the driver loaded
};

[[nodiscard]] HealthSnapshot take_health_snapshot(const Nvml& nvml, NvmlDevice device);

struct HealthRecord {
  bool monitored = false;  // false: no NVML device for this GPU (why_not says why)
  std::string why_not;
  HealthSnapshot before, after;
  IdleUtilization idle;        // read before the first case (health.exclusive)
  IdleUtilization idle_after;  // read a settle period after the run's workers ended (the same)
  bool xid_watched = false;
  std::string xid_note;               // why Xids were not (or no longer) watched
  std::vector<std::uint64_t> xids;    // critical Xid errors seen during the run, in order
  std::optional<PcieLink> pcie_best;  // highest generation and width seen while the run went on
  int pcie_samples = 0;
  std::string pcie_note;  // why no sample was taken
  double seconds = 0;     // how long the monitor watched
};

[[nodiscard]] nlohmann::json to_json(const HealthRecord& record);

}  // namespace vsa
