#pragma once
// `vsa-bench fleet` (docs/design.md, "Comparing"): many reports, one per node and GPU,
// read as one fleet. One row per GPU with its verdict; per timed case (case,
// backend, op, GPU model) the fleet median and each GPU's ratio to it, with
// outliers flagged; nodes grouped by configuration (driver, GSP firmware, VBIOS,
// toolkit) with their verdict counts, so "only nodes on driver X fault" reads off
// one table.
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compare/fleet_stats.hpp"
#include "report/report_fields.hpp"
#include "report/report_files.hpp"

namespace vsa {

// A node verdict beyond the case verdicts: the report was never finished
// (interrupted run, node lost). It counts as a failed node.
inline constexpr const char* kIncomplete = "INCOMPLETE";
// Below this many GPUs in a row the quartiles say too little for Tukey's fences.
inline constexpr std::size_t kMinSamplesForFences = 4;

// A GPU outside the quartile fences is an outlier only when it is also this far from the
// median: in a tight fleet the fences close in to a few percent, and a 3% wobble is noise.
inline constexpr double kDefaultMinEffect = 0.05;

struct FleetOptions {
  double outlier_threshold = 0.10;        // slower than (1 - this) x the fleet median is an outlier
  double min_effect = kDefaultMinEffect;  // fence outliers must also differ from the median by this fraction
};

struct FleetNode {
  std::string path;
  ReportIdentity who;
  std::string scheduler_host;  // scheduler_host_of(report)
  ConfigKey config;
  std::string verdict;                // worst case verdict, or INCOMPLETE
  std::map<std::string, int> counts;  // case verdict -> cases
  std::vector<std::string> problems;  // "case backend: VERDICT reason", for FAIL / FAULT / HANG
  int outliers = 0;
  int slow = 0;  // outliers below the fleet (slow or low_fence) that the rest of their row outnumbers: what
                 // `--failed-hosts` drains
  std::optional<double> worst_ratio;  // lowest ratio to a fleet median (rows of 2+ GPUs)
  // Older reports of this GPU whose cases and node checks fill in the newest one's (a narrower
  // re-run beside the run it re-ran part of, same configuration and build): what each contributes.
  struct MergedFrom {
    std::string path;
    std::vector<std::string> cases, checks;
  };
  std::vector<MergedFrom> merged_from;
  // A merged-in case ("case"), or one backend's result of it ("case\tbackend") -> the report that holds it.
  std::map<std::string, std::string> case_paths;
  // The report that holds case `name` (its `backend`'s result, where given): the older one it was
  // merged from, else `path`.
  [[nodiscard]] const std::string& path_of_case(const std::string& name, const std::string& backend = "") const;
  [[nodiscard]] bool failed() const;  // FAIL, FAULT, HANG or INCOMPLETE
};

enum class Outlier {
  none,
  slow,        // ratio < 1 - outlier_threshold
  low_fence,   // below Q1 - 1.5 IQR, by more than its own spread
  high_fence,  // above Q3 + 1.5 IQR, by more than its own spread
};
// What fleet tables call a GPU: "label host UUID" (by UUID: under per-task binding every GPU is
// CUDA device 0), "label host gpuN" without a UUID.
[[nodiscard]] std::string fleet_gpu_name(const ReportIdentity& who);
// The host as the scheduler knows it: Slurm's node name (SLURMD_NODENAME) when a Slurm
// launcher placed the run, else the hostname.
[[nodiscard]] std::string scheduler_host_of(const Report& report);
// How the Markdown table names an outlier ("below IQR fence").
[[nodiscard]] const char* outlier_name(Outlier outlier);
// The JSON token (docs/schema/fleet.schema.json): "slow", "low_fence", "high_fence"; "" for none.
[[nodiscard]] const char* outlier_token(Outlier outlier);

struct FleetSample {
  std::size_t node = 0;
  double tflops = 0;
  double spread = 0;
  double ratio = 1;  // tflops / fleet median (of the fastest, in a row too small for fences)
  Outlier outlier = Outlier::none;
  std::optional<double> lse_factor;  // the backend's own lse form in that report (CaseResult), if any
};

struct FleetPerfRow {
  std::string case_name, op, backend, gpu_name;
  Quartiles stats;      // of the TFLOPS of every GPU in the row
  bool fences = false;  // enough samples for Tukey's fences
  std::vector<FleetSample> samples;
  // Set when the backend's lse form differs between the row's GPUs (a plugin converting its lse
  // inside the timed call on some nodes and declaring its form on others), as `compare` notes it:
  // the ratios stand, with the reason they may move. Also when another row has the same case,
  // op, backend and GPU model timed otherwise or with another spec: never pooled (compare gives
  // such figures no ratio), and the note says why the two rows are two.
  std::string note;
  std::string method;  // timing_method() of every sample in the row
  std::string spec;    // question_spec() of the case, as text, the same for every sample
};

// Where the sample lies against the fleet: the threshold rule for 2+ samples, the
// fences (with_fences) only beyond the sample's own measurement noise
// (tflops * spread) and beyond min_effect x the median, so a tight fleet does not flag a
// GPU for jitter.
[[nodiscard]] Outlier classify_sample(double tflops, double spread, const Quartiles& stats, bool with_fences,
                                      double threshold, double min_effect = 0);

struct ConfigGroup {
  std::vector<std::string> values;  // one per grouped field, "" unknown
  std::vector<std::size_t> nodes;
  std::map<std::string, int> verdicts;       // node verdict -> GPUs
  std::map<std::string, int> problem_cases;  // "case backend VERDICT" -> GPUs showing it
};
struct ConfigGrouping {
  std::vector<std::string> fields;  // titles of the grouped fields
  std::vector<ConfigGroup> groups;  // in order of first appearance
};

struct Fleet {
  FleetOptions options;
  std::vector<FleetNode> nodes;
  std::vector<FleetPerfRow> perf;
  ConfigGrouping by_config;              // driver, GSP firmware, VBIOS, CUDA toolkit together
  std::vector<ConfigGrouping> by_field;  // each varying field alone, when two or more vary
  std::vector<std::string> skipped;      // files passed over while reading (set by the caller)
  // Reports of a GPU (same UUID and suites) that another replaces: a newer one that covers all of
  // their cases, or an identical copy read earlier. A re-run node counts once. A narrower re-run
  // (`--case`) replaces nothing: finished, on the same configuration (driver, GSP firmware, VBIOS,
  // toolkit, plugins) and vsa-bench build, it merges with the report it re-ran part of into one
  // node (FleetNode::merged_from, fleet.cpp's merge_newest_first says which results count); else
  // the GPU shows once per report.
  std::vector<std::string> superseded;

  [[nodiscard]] int failed_nodes() const;
  [[nodiscard]] int outliers() const;
  // Hosts with a failed GPU or a slow outlier, sorted, each once: a Slurm hostlist ("a,b,c").
  // Only names that are a host name (letters, digits, '.', '_', '-'): a report's "a,b" or
  // "node[1-3]" would drain other nodes (listed by hosts_not_listable instead).
  [[nodiscard]] std::vector<std::string> failed_hosts() const;
  // Hosts failed_hosts leaves out because their name is not one: "PATH: NAME".
  [[nodiscard]] std::vector<std::string> hosts_not_listable() const;
  // kExitCheckFailed when a node failed; else kExitRegression for outliers when gating; else kExitOk.
  [[nodiscard]] int exit_code(bool gate) const;
};

// Throws std::invalid_argument when there is no report.
[[nodiscard]] Fleet analyse_fleet(const std::vector<ReportFile>& reports, const FleetOptions& options);

[[nodiscard]] std::string render_markdown(const Fleet& fleet);
[[nodiscard]] nlohmann::json to_json(const Fleet& fleet);

}  // namespace vsa
