// `vsa-bench compare A.json B.json [...] [--baseline A.json] [--threshold 5%] [--format md|json]`:
// reports side by side (compare/compare.hpp). Exit 0, 2 bad input (names the file),
// 3 a regression with the gate on (--baseline or --threshold), 4 missing data or a timing too noisy to
// gate, with the gate on.
#include "compare/compare.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "commands/output_format.hpp"
#include "commands/report_input.hpp"
#include "model/exit_codes.hpp"
#include "report/markdown_table.hpp"
#include "report/report_files.hpp"

namespace vsa::cli {

namespace {

struct CompareCommandOptions {
  std::vector<std::string> reports;
  std::string baseline;
  std::string threshold;
  std::string format = "md";
};

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return a == b || std::filesystem::equivalent(a, b, ec);
}

int run_compare(const CompareCommandOptions& o) {
  CompareOptions options;
  options.gate = !o.baseline.empty() || !o.threshold.empty();
  if (!o.threshold.empty()) {
    try {
      options.threshold = parse_fraction(o.threshold);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--threshold", e.what());
    }
  }
  std::vector<ReportFile> reports;
  if (!o.baseline.empty()) reports.push_back(load_report_file(o.baseline));
  int baseline_again = 0;  // the baseline named among the reports too: compared once
  for (auto& r : load_report_paths(o.reports).reports) {
    if (!o.baseline.empty() && same_file(r.path, o.baseline))
      ++baseline_again;
    else
      reports.push_back(std::move(r));
  }
  if (reports.size() < 2) {
    std::string why;
    if (baseline_again > 0) why += "; the baseline " + o.baseline + " is also among the reports, and counts once";
    for (const auto& path : o.reports)
      if (std::filesystem::is_directory(path) && load_report_paths({path}).reports.empty())
        why += "; " + path + " holds no vsa-bench report";
    if (!o.baseline.empty())
      throw CLI::ValidationError(
          "reports",
          "compare --baseline " + o.baseline + " needs at least one other report to compare with it, found none" + why);
    throw CLI::ValidationError("reports", "compare needs two reports or more (or one and --baseline), found " +
                                              std::to_string(reports.size()) + why);
  }
  const Comparison comparison = compare_reports(reports, options);
  if (o.format == "json")
    std::cout << to_json(comparison).dump(2) << "\n";
  else
    std::cout << render_markdown(comparison);
  return comparison.exit_code();
}

}  // namespace

void register_compare(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CompareCommandOptions>();
  auto* cmd = app.add_subcommand(
      "compare",
      "Reports side by side: configuration (driver, GSP, VBIOS, InfoROM, CUDA, toolkit, kernel images) with "
      "differences marked, verdicts, TFLOPS with ratios to the baseline, backend speedups; with --baseline or "
      "--threshold, a regression gate");
  cmd->add_option("reports", options->reports,
                  "report JSON files or directories of them; the first is the baseline unless --baseline is given");
  cmd->add_option("--baseline", options->baseline, "the reference report; turns on the regression gate");
  cmd->add_option(
         "--threshold", options->threshold,
         "allowed TFLOPS drop against the baseline, 5% or 0.05 (default 5%); turns on the regression gate. Under "
         "about 2% it flags run-to-run noise on short cases (docs/design.md)")
      ->type_name("PERCENT");
  add_format_option(*cmd, options->format, {"md", "json"}, "md: Markdown tables");
  cmd->footer(
      "A case regressed when its TFLOPS fell below baseline x (1 - threshold) and the gap also exceeds both runs' "
      "recorded spreads added up; a case whose spreads add up to the threshold or more is too noisy to gate "
      "(VSA_E_TOO_NOISY).\nExit codes: 0 compared (no regression), 2 bad usage or an unreadable report "
      "(named), 3 a regression with the gate on, 4 the gate found no regression but could not judge everything: a "
      "baseline timing is missing "
      "from a report (the case, or its timing; each named), or too noisy to gate.");
  cmd->callback(
      [options, &exit_code] { exit_code = run_reading_reports("compare", [&] { return run_compare(*options); }); });
}

}  // namespace vsa::cli
