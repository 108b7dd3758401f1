// `vsa-bench render REPORT.json [--out FILE.md]`: a report's Markdown rendering from its
// JSON, the same text `run` writes beside it (report/report.hpp), for a report whose .md
// was lost on the way back from a node. Exit 0, 2 an unreadable report (named).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "commands/commands.hpp"
#include "commands/report_input.hpp"
#include "model/exit_codes.hpp"
#include "report/report.hpp"
#include "report/report_files.hpp"
#include "util/files.hpp"

namespace vsa::cli {

namespace {

struct RenderOptions {
  std::string report;
  std::string out;  // empty: standard output
};

int run_render(const RenderOptions& o) {
  const ReportFile file = load_report_file(o.report);
  const std::string markdown = render_markdown(file.report);
  if (o.out.empty())
    std::cout << markdown;
  else
    write_file_atomic(o.out, markdown);
  return kExitOk;
}

}  // namespace

void register_render(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RenderOptions>();
  auto* cmd = app.add_subcommand(
      "render",
      "A report's Markdown rendering from its JSON (the .md that `run` writes beside it), to stdout or --out");
  cmd->add_option("report", options->report, "a report JSON file")->required();
  cmd->add_option("--out", options->out, "write the Markdown here (atomically) instead of stdout");
  cmd->footer("Exit codes: 0 rendered, 2 bad usage or an unreadable report (named).");
  cmd->callback(
      [options, &exit_code] { exit_code = run_reading_reports("render", [&] { return run_render(*options); }); });
}

}  // namespace vsa::cli
