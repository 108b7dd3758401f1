// `vsa-bench render REPORT.json [--out FILE] [--format markdown|nvbench]`: a report's Markdown
// rendering from its JSON, the same text `run` writes beside it (report/report.hpp), for a
// report whose .md was lost on the way back from a node; or reports as NVBench JSON
// (report/nvbench_json.hpp), for nvbench_compare. Exit 0, 2 an unreadable report (named) or
// reports that cannot share one NVBench file.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "commands/report_input.hpp"
#include "model/exit_codes.hpp"
#include "report/nvbench_json.hpp"
#include "report/report.hpp"
#include "report/report_files.hpp"
#include "run/output_paths.hpp"
#include "suite/suite.hpp"
#include "util/files.hpp"

namespace vsa::cli {

namespace {

struct RenderOptions {
  std::vector<std::string> reports;
  std::string out;  // empty: standard output
  std::string format = "markdown";
};

int run_render(const RenderOptions& o) {
  if (o.format == "markdown" && o.reports.size() != 1) {
    std::cerr << "vsa-bench render: Markdown renders one report; " << o.reports.size()
              << " given (--format nvbench takes several, one per GPU)\n";
    return kExitUsage;
  }
  try {
    check_output_file("--out", o.out);
    for (const auto& r : o.reports) check_distinct_outputs({{"--out", o.out}, {"the report", r}});  // not onto an input
  } catch (const SuiteError& e) {
    std::cerr << "vsa-bench render: " << e.what() << "\n";
    return kExitUsage;
  }
  std::string text;
  if (o.format == "markdown") {
    const std::string& path = o.reports.front();
    const ReportFile file = load_report_file(path);
    try {
      text = render_markdown(file.report);
    } catch (const nlohmann::json::exception& e) {
      std::cerr << "vsa-bench render: " << path << ": does not follow docs/schema/report.schema.json (" << e.what()
                << "); check it with scripts/check_schema.py\n";
      return kExitUsage;
    }
  } else {
    std::vector<Report> reports;
    nlohmann::json tool;
    for (const auto& path : o.reports) {
      ReportFile file = load_report_file(path);
      if (tool.is_null()) tool = file.tool;  // the producer: the first report's binary
      reports.push_back(std::move(file.report));
    }
    try {
      text = render_nvbench(reports, tool);
    } catch (const NvbenchExportError& e) {
      std::cerr << "vsa-bench render: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  if (o.out.empty())
    std::cout << text;
  else
    write_file_atomic(o.out, text);
  return kExitOk;
}

}  // namespace

void register_render(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RenderOptions>();
  auto* cmd =
      app.add_subcommand("render",
                         "A report's Markdown rendering from its JSON (the .md that `run` writes beside it), or "
                         "reports as NVBench JSON for nvbench_compare; to stdout or --out");
  cmd->add_option("report", options->reports, "report JSON file(s): one for markdown, one per GPU for nvbench")
      ->required();
  cmd->add_option("--out", options->out, "write here (atomically) instead of stdout");
  cmd->add_option("--format", options->format,
                  "markdown: the report's .md; nvbench: NVBench JSON (docs/report-schema.md, \"NVBench export\")")
      ->check(CLI::IsMember({"markdown", "nvbench"}))
      ->capture_default_str();
  cmd->footer(
      "Exit codes: 0 rendered, 2 bad usage, an unreadable report (named), or two reports on one CUDA ordinal for "
      "nvbench.");
  cmd->callback(
      [options, &exit_code] { exit_code = run_reading_reports("render", [&] { return run_render(*options); }); });
}

}  // namespace vsa::cli
