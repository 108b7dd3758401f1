#pragma once
// `run --resume REPORT`: what a run must share with the report it continues, so that the
// finished cases and the new ones are one run (issue 20: a different suite was marked
// complete with cases never run; another machine's resume nulled the GPU and the label).
// Refused (exit 2, naming what differs): another suite or case list, another node
// (hostname), another GPU (UUID; a CPU-only report resumes only CPU-only), another binary
// (the report's "tool" and "backends"), another --label. The report keeps its label,
// its argv and its start; each resume is listed in "resumed" with its own argv.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/case_spec.hpp"
#include "report/report_files.hpp"

namespace vsa {

// The run that wants to continue the report.
struct ResumingRun {
  nlohmann::json suites;        // as a report holds them (name, source, description)
  std::vector<CaseSpec> cases;  // what this run would run, in order
  std::string hostname;         // this node
  nlohmann::json tool;          // this binary (report_tool_json())
  nlohmann::json backends;      // this binary's backends, as a CPU report holds them
  // Per devices[i]: the same as that GPU's report holds them (its own kernel images); empty: `backends`.
  std::vector<nlohmann::json> device_backends;
  std::string label;                    // --label ("" when not given)
  std::vector<nlohmann::json> devices;  // the fingerprints of the GPUs this run may use (uuid, name, pci_bus_id)
};

struct ResumePlan {
  std::string refusal;    // "" when the report may be continued
  int device_index = -1;  // index into ResumingRun::devices of the report's GPU; -1: the CPU
};

[[nodiscard]] ResumePlan plan_resume(const ReportFile& report, const ResumingRun& run);

}  // namespace vsa
