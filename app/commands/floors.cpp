// `vsa-bench floors REPORT.json|DIR... [--margin 10%]`: the speed-floor table of
// `qualify` from baseline reports (docs/qualify.md), as JSON on stdout:
//   vsa-bench floors results/baselines/h200-qualify*.json > suites/floors/floors.json
// Exit 0, 2 bad input (names the file), 1 when no report yields a floor.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "commands/report_input.hpp"
#include "model/exit_codes.hpp"
#include "qualify/floors.hpp"
#include "report/markdown_table.hpp"
#include "report/report_files.hpp"

namespace vsa::cli {

namespace {

struct FloorsOptions {
  std::vector<std::string> paths;
  std::string margin = "10%";
};

int run_floors(const FloorsOptions& o) {
  double margin = 0;
  try {
    margin = parse_fraction(o.margin);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--margin", e.what());
  }
  if (!(margin >= 0 && margin < 1)) throw CLI::ValidationError("--margin", o.margin + " is not in [0%, 100%)");
  const ReportCollection collection = load_report_paths(o.paths);
  for (const auto& s : collection.skipped) std::cerr << "vsa-bench floors: skipped " << s << "\n";
  if (collection.reports.empty()) return no_report_found("floors", o.paths);  // bad input, not a failed check
  const FloorTable table = derive_floors(collection.reports, margin);
  for (const auto& s : table.left_out) std::cerr << "vsa-bench floors: left out " << s << "\n";
  if (table.floors.empty()) {
    std::cerr << "vsa-bench floors: no PASS timing of a known GPU model in these reports\n";
    return kExitCheckFailed;
  }
  std::cout << to_json(table).dump(2) << "\n";
  return kExitOk;
}

}  // namespace

void register_floors(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<FloorsOptions>();
  auto* cmd = app.add_subcommand(
      "floors",
      "The speed-floor table of qualify from baseline reports: per GPU model, workload, backend and op, "
      "floor = baseline median x (1 - margin - baseline spread) for TFLOPS and for the mean SM clock held in "
      "sustained passes (docs/qualify.md); JSON on stdout");
  cmd->add_option("paths", options->paths, "baseline report files or directories (searched for report JSON)")
      ->required();
  cmd->add_option("--margin", options->margin,
                  "how far below the baseline median, beyond the baseline's own spread, a node may fall (10% or 0.1)")
      ->type_name("PERCENT")
      ->capture_default_str();
  cmd->footer(
      "Every floor names the reports and cases it came from; commit those reports with the table. A report "
      "whose run did not finish or did not exit 0 (a failed node check or case: the node did not qualify) is "
      "left out, named on stderr. "
      "Exit codes: 0 written, 1 no floor could be derived, 2 an unreadable report (named).");
  cmd->callback(
      [options, &exit_code] { exit_code = run_reading_reports("floors", [&] { return run_floors(*options); }); });
}

}  // namespace vsa::cli
