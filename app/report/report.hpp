#pragma once
// The per-(node, GPU, run) report (docs/design.md, "Reports"): schema-versioned JSON
// plus a Markdown rendering, both written atomically after every case so a
// killed run loses nothing that finished.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/case_result.hpp"
#include "model/node_check.hpp"

namespace vsa {

// 2: timings carry sampling, off_clock_passes and pass_range, and `spread` is the width of
// the median's interval (engine/pass_sampling.hpp); schema 1 reports are still read.
inline constexpr int kReportSchemaVersion = 2;

struct Report {
  // What wrote it (report_tool_json()'s shape): null for a report this binary is writing, the
  // file's own for one read back, so rendering or rewriting it later keeps its author.
  nlohmann::json tool = nullptr;
  std::vector<std::string> argv;
  std::string label;
  std::string started_at, finished_at;  // ISO 8601 UTC
  nlohmann::json node;                  // fingerprint: node part
  nlohmann::json device;                // fingerprint: this GPU (null: CPU-only run)
  nlohmann::json devices_note;          // why there is no GPU, when there is none
  nlohmann::json suites = nlohmann::json::array();
  nlohmann::json backends = nlohmann::json::array();  // name, images, kernels, supported
  nlohmann::json probes = nlohmann::json::object();   // delay probes in force
  // Plugin libraries loaded (docs/plugins.md): path, size, sha256, abi_version, plugin_name,
  // build_info and their backends, as the worker that loaded them described them.
  nlohmann::json plugins = nlohmann::json::array();
  std::vector<CaseResult> cases;
  // Node checks (docs/qualify.md): speed floor, clock hold, NVML health gates; empty when not run.
  std::vector<NodeCheck> checks;
  nlohmann::json health = nullptr;                           // NVML health facts before/after the run
  nlohmann::json backend_aliases = nlohmann::json::array();  // what "@fast" expanded to on this GPU
  // The names of the cases the run set out to run, in order: what an interrupted report
  // lacks, and what `--resume` must run again (run/resume.hpp). Empty in older reports.
  std::vector<std::string> planned_cases;
  // One {"argv", "started_at"} per `--resume` that continued this report (argv stays the first run's).
  nlohmann::json resumed = nlohmann::json::array();
  bool complete = false;  // false while running or when interrupted
  int exit_code = 0;
  // `vsa-bench sanitize`'s annotation (selftest/sanitize.hpp): the tool, its command, exit status
  // and findings; null for a run not under compute-sanitizer.
  nlohmann::json sanitizer = nullptr;
};

[[nodiscard]] nlohmann::json to_json(const Report& report);
// The report's "tool" object: this binary's version, git sha, build type, compilers, toolkit.
[[nodiscard]] nlohmann::json report_tool_json();
// Reads a report written by to_json (for --resume, compare, fleet, repro).
[[nodiscard]] Report report_from_json(const nlohmann::json& j);
[[nodiscard]] nlohmann::json summary_counts(const std::vector<CaseResult>& cases);
[[nodiscard]] nlohmann::json check_counts(const std::vector<NodeCheck>& checks);
[[nodiscard]] std::string render_markdown(const Report& report);

// Writes PATH (JSON) and PATH with .md (Markdown) through temp files + rename.
void write_report(const Report& report, const std::string& json_path);
[[nodiscard]] std::string utc_now_iso8601();

}  // namespace vsa
