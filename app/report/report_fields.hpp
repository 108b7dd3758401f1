#pragma once
// Read-only views of a report shared by compare and fleet: who ran it, the
// configuration that can explain a difference (driver, firmware, toolkit, kernel
// images), verdicts with their worst error, and the TFLOPS samples. Values a node
// could not give are null in reports (json_optional.hpp); here null and missing
// both read as "" (unknown).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/report_files.hpp"

namespace vsa {

// A field of a JSON object as text: strings as they are, numbers and booleans
// printed, null / missing / not an object -> "".
[[nodiscard]] std::string json_text(const nlohmann::json& object, const char* key);
// CUDA's integer versions (13000) as "13.0"; "" when unknown.
[[nodiscard]] std::string cuda_version_text(const nlohmann::json& value);

// Who produced a report: what a table row or column legend needs.
struct ReportIdentity {
  std::string label;      // --label (report, else node.label)
  std::string hostname;   // node.hostname, else the launcher's node name
  std::string gpu_name;   // "" for a CPU-only run
  std::string gpu_index;  // CUDA ordinal, "cpu" for a CPU-only run
  std::string pci_bus_id;
  std::string uuid;
  std::string mig_uuid;  // under MIG, the instance's; "" otherwise
};
[[nodiscard]] ReportIdentity identity_of(const Report& report);
// The UUID that names a report's device: under MIG the instance's ("MIG-..."), since two
// instances of one GPU share the GPU's; else the GPU's; "" when the report has neither.
[[nodiscard]] std::string device_uuid_of(const nlohmann::json& device);
// "label host gpuN" without the empty parts.
[[nodiscard]] std::string short_name(const ReportIdentity& who);
// The non-empty ones of `parts`, joined by single spaces (names made of optional parts).
[[nodiscard]] std::string join_nonempty(const std::vector<std::string>& parts);

// One configuration item. Identity items (host, UUID, serial) differ between any
// two GPUs by nature: they are shown but never reported as a configuration difference.
struct ConfigValue {
  std::string key;    // stable id: "device.driver_version", "tool.git_sha", "images.sm90a"
  std::string title;  // for tables: "driver", "git sha", "images sm90a"
  bool identity = false;
  std::string value;  // "" when unknown
};
// In table order: identity, GPU, driver and firmware, CUDA, tool, kernel images per backend.
[[nodiscard]] std::vector<ConfigValue> configuration_of(const ReportFile& file);

// The fields fleet groups nodes by (driver, GSP firmware, VBIOS, toolkit, plugins).
struct ConfigKey {
  std::string driver, gsp_firmware, vbios, toolkit;
  std::string plugins;  // plugins_text(): "none" when the run loaded none
  auto operator<=>(const ConfigKey&) const = default;
};
[[nodiscard]] ConfigKey config_key_of(const ReportFile& file);

// The plugin builds a run loaded, one "NAME sha256:12HEX" each, sorted, comma-separated;
// "none" without plugins: two racks on different builds of a kernel land in different groups.
[[nodiscard]] std::string plugins_text(const Report& report);

// The largest rel_max over a backend's output tensors; nullopt without metrics.
struct WorstError {
  std::string tensor;
  double rel_max = 0;
};
[[nodiscard]] std::optional<WorstError> worst_error(const BackendResult& backend);

// One timed (case, backend, op) of a report.
struct PerfSample {
  std::string case_name, backend, op;
  double tflops = 0;
  double median_ms = 0;
  double spread = 0;                 // (max - min) / median of the pass medians
  std::string clocks;                // clock_summary of the timing: "at 1395-1620 MHz, sw_power_cap", or empty
  int passes = 0;                    // kept passes (off-clock ones left out); 1: no spread was measured ("(1 pass)")
  std::string method;                // timing_method(): how it was timed, which decides the card's clock state
  std::optional<double> lse_factor;  // the backend's own lse form in this case (BackendResult), if any
  std::string shared;                // shared_gpu_text(): passes run beside another compute process, or empty
  std::string question;              // question_spec() of its case, as text: equal texts, the same question
};
// How a timing was taken, as far as it changes the clock the card ran at: bursts or sustained
// passes (min_pass_ms), warm or cold L2, a fixed pass count or adaptive sampling (which runs
// until the spread settles, so a long run on a hotter card). E.g. "bursts, fixed passes".
[[nodiscard]] std::string timing_method(const Timing& t);
// Every timing with a positive TFLOPS figure, in report order.
[[nodiscard]] std::vector<PerfSample> perf_samples(const Report& report);

// The case's spec without the fields that do not change the problem: the backend
// list (which --backends filters) and the delay probes (a run condition that compare
// lists under configuration; a run slowed by a probe must trip the regression gate).
// Equal specs make two TFLOPS comparable.
[[nodiscard]] nlohmann::json comparable_spec(const CaseResult& result);

// The question a case asks: its problem (mode, op, shape, block size, pattern, vbs, scale) and how
// a figure of it is timed (cold L2, sustained passes), without the conditions a re-run may change
// (seed, tolerance, timeouts, hang watch, schedules, validation). Equal ones make a newer report
// a re-run of an older one, and their figures one fleet row.
[[nodiscard]] nlohmann::json question_spec(const CaseResult& result);

}  // namespace vsa
