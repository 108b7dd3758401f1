#pragma once
// `vsa-bench repro`: one case of a report, exactly as it ran (its "spec" is the full
// case: seeds, shapes, pattern, probes, tolerances), either re-run here through the
// usual isolated workers or written out as a one-case suite to attach to a review.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vsa {

struct ReproOptions {
  std::string report;     // REPORT.json
  std::string case_name;  // exact case name, or text that matches exactly one case
  std::string bundle;     // write the one-case suite here instead of running it
  std::string out_dir = "results";
  std::string devices = "all";
  std::vector<std::string> plugins;  // --plugin: instead of the plugins the report recorded
  bool isolate = true;
  bool progress = true;
  std::vector<std::string> argv;
};

// {"name": "repro-...", "description": ..., "origin": {report, case, verdict, backends,
// tool, node, device, plugins}, "plugins": [the recorded plugin paths], "cases": [spec]}:
// origin.plugins keeps each plugin's size, SHA-256, ABI version and build info. Throws SuiteError for an unreadable
// report, a case that is missing or ambiguous, or a spec this build cannot parse.
[[nodiscard]] nlohmann::json make_repro_bundle(const std::string& report_path, const std::string& case_name);

struct ReproOutcome {
  int exit_code = 0;
  std::string text;  // what to print
};

// With options.bundle: writes the bundle (atomically) and says where. Without:
// writes the bundle into out_dir and runs it with run_suites.
[[nodiscard]] ReproOutcome run_repro(const ReproOptions& options);

}  // namespace vsa
