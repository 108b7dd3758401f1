#pragma once
// The speed floor of a GPU model (docs/qualify.md, "Speed floor"): per GPU model
// (name, SM count, SM clock limit), workload, backend and op, the least TFLOPS a node
// must reach, and the least mean SM clock it must hold under sustained load. Every
// floor is derived by `vsa-bench floors` from committed baseline reports and names
// them; none is typed by hand.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/node_check.hpp"
#include "report/report_files.hpp"

namespace vsa {

struct GpuModel {
  std::string name;
  int sm_count = 0;
  int sm_clock_max_mhz = 0;  // NVML's max SM clock: the part's clock limit
  bool operator==(const GpuModel&) const = default;
};
// From a report's device object; nullopt when a field is missing (no floor can apply).
[[nodiscard]] std::optional<GpuModel> gpu_model_of(const nlohmann::json& device);
[[nodiscard]] std::string to_string(const GpuModel& model);  // "NVIDIA H200, 132 SMs, 1980 MHz"

// The part of a case's spec that decides its speed: shape, pattern, vbs, scale, L2
// flush, and whether passes are sustained. Name, seed, pass counts, tolerances and
// backends do not change the problem (a topk row count does not depend on the seed).
[[nodiscard]] nlohmann::json workload_of(const nlohmann::json& spec);

inline constexpr const char* kMetricTflops = "tflops";
inline constexpr const char* kMetricSustainedClock = "sustained_sm_clock_mhz";  // mean SM clock held in a pass

struct FloorSample {
  std::string report;  // the baseline file, as given to `vsa-bench floors`
  std::string git_sha;
  std::string case_name;
  double value = 0;
  double spread = 0;  // the figure's own spread (TFLOPS: over its passes); 0 for one pass
};

struct Floor {
  GpuModel gpu;
  nlohmann::json workload;
  std::string backend, op, metric;
  double baseline_median = 0;  // median of the samples
  double baseline_spread = 0;  // max(each sample's spread, (max - min) / median over the samples)
  double floor = 0;            // baseline_median x (1 - margin - baseline_spread)
  std::vector<FloorSample> samples;
};

struct FloorTable {
  double margin = 0.10;  // how far below the baseline, beyond its spread, a node may fall
  std::vector<Floor> floors;
  nlohmann::json sources = nlohmann::json::array();  // the reports read: path, git_sha, gpu, finished_at
  std::vector<std::string> left_out;                 // "PATH: why", reports that are no baseline (not in the JSON)
};

inline constexpr double kDefaultFloorMargin = 0.10;

// Floors from baseline reports: every PASS timing of a GPU with a known model, without
// delay probes (they slow a kernel on purpose). A report is a baseline only when it is
// complete and its run exited 0: one that failed a node check (another process on the GPU,
// a throttle, a slow floor) or a case measured a node that did not qualify, and its figures
// would lower the floor every node is held to. Those go to left_out, with the reason. Throws std::invalid_argument for
// a margin outside [0, 1).
[[nodiscard]] FloorTable derive_floors(const std::vector<ReportFile>& baselines, double margin = kDefaultFloorMargin);

[[nodiscard]] nlohmann::json to_json(const FloorTable& table);
// Throws std::invalid_argument naming `origin` and the JSON path of a bad field.
[[nodiscard]] FloorTable floor_table_from_json(const nlohmann::json& j, const std::string& origin);
// suites/floors/floors.json, embedded in the binary.
[[nodiscard]] const FloorTable& builtin_floors();

// One check per PASS timing of the report (kind floor), one per sustained timing
// (kind clock_hold): FAIL below the floor with the figure and the floor, PASS at or
// above it, SKIP naming the GPU model when no floor matches (never a silent pass).
[[nodiscard]] std::vector<NodeCheck> floor_checks(const Report& report, const FloorTable& table);

// `run --require-floors`: fail closed on speed; a node whose speed nothing judged is not
// qualified. Every floor and clock-hold check that could not judge its timing (no floor for the
// GPU model or workload, no clock samples, a run with delay probes) turns from SKIP into FAIL,
// keeping its code and reason; a backend of a perf case that SKIPped (other than the case's
// reference) FAILs as untimed; and a run where no floor judged anything FAILs. All with
// VSA_E_NO_FLOOR.
void require_floors(const Report& report, std::vector<NodeCheck>& checks);
// The FAIL those rules add, also for a run without a GPU (run/node_qualification.cpp).
[[nodiscard]] NodeCheck required_floor_failure(std::string name, std::string why);

}  // namespace vsa
