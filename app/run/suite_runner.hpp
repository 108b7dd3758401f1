#pragma once
// `vsa-bench run`: loads suites, validates them against the registry (bad input
// exits 2 before anything runs), finds the GPUs through a worker, runs every
// case in isolated workers (one per GPU, in parallel), writes one report per GPU.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vsa {

// --jobs: more workers than this would only queue on the cores (and file descriptors) of one node.
inline constexpr int kMaxJobs = 256;

struct RunOptions {
  std::vector<std::string> suites{"qualify"};
  std::string out_dir = "results";
  std::string label;
  std::string devices = "all";                  // all | none | comma list of CUDA ordinals
  std::vector<std::string> backends;            // when set: run only these backends
  std::vector<std::string> add_backends;        // --add-backend: run these too, on every selected case
  std::vector<std::string> plugins;             // --plugin PATH.so (with the suites' "plugins": docs/plugins.md)
  std::vector<std::string> cases;               // when set: run only cases whose name contains one of these
  std::map<std::string, std::uint32_t> probes;  // --probe NAME=NS, added to every case
  std::uint32_t hang_watch_ms = 0;              // --hang-watch-ms: set on every case (0: each case's own)
  std::optional<double> target_spread;          // --target-spread: every perf case's timing.target_spread
  std::optional<double> time_budget_s;          // --timing-budget: every perf case's timing.time_budget_s
  // --schedules / --schedule-seed: set on every case (unset: each case's own `schedules` and
  // `schedule_seed`); they matter to the backends that explore schedules only.
  std::optional<int> schedules;
  std::optional<std::uint64_t> schedule_seed;
  std::string resume;   // a report to continue (its finished cases are kept)
  bool isolate = true;  // false: run in-process (debugging)
  // --jobs: workers running the CPU target's cases side by side (1: one case at a time). GPU
  // targets always run one case at a time, so a case's timing has its GPU alone.
  int jobs = 1;
  bool require_gpu = false;        // no GPU -> exit 4
  std::optional<int> expect_gpus;  // CUDA must use exactly this many GPUs, else exit 4
  // GPUs asked for or present (PCI, NVML) but unusable by CUDA -> exit 4 (run/gpu_expectation.hpp).
  bool fail_closed = true;
  // The --devices that rule judges, when not `devices`: selftest runs its planted cases on one GPU
  // ("0") for --devices all, and must fail closed as `run --devices all` does, not as "0" would
  // on a host without GPUs.
  std::string fail_closed_devices;
  bool progress = true;
  // Node checks (docs/qualify.md): auto (when the qualify suite runs) | on | off, and the
  // speed-floor table (empty: the built-in suites/floors/floors.json).
  std::string node_checks = "auto";
  std::string floors_path;
  bool require_floors = false;  // a timing no floor judges FAILs (qualify/floors.hpp, require_floors)
  // health.throttle (docs/qualify.md, "Throttle"): reasons that do not fail it (names or an
  // NVML bit mask, as `dcgmi diag --clocksevent-mask`), and the share of the sustained time
  // sw_thermal may hold the clock before it fails.
  std::string throttle_ignore;
  double sw_thermal_max_fraction = 0.05;
  std::string junit_path, metrics_path, jsonl_path;  // standard outputs of the whole run (report/exports.hpp)
  std::string nvbench_path;                          // the run as NVBench JSON (report/nvbench_json.hpp)
  std::vector<std::string> argv;
};

struct RunSummary {
  int exit_code = 0;
  std::vector<std::string> report_paths;
  std::string table;  // short summary for the terminal
};

[[nodiscard]] RunSummary run_suites(const RunOptions& options);

}  // namespace vsa
