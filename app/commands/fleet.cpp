// `vsa-bench fleet DIR|FILES... [--format md|json] [--outlier-threshold 10%] [--gate]`:
// many reports read as one fleet (compare/fleet.hpp). Exit 0, 1 a GPU failed
// (FAIL, FAULT, HANG, or its report is incomplete), 2 bad input (names the file),
// 3 performance outliers with --gate.
#include "compare/fleet.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands/commands.hpp"
#include "commands/output_format.hpp"
#include "commands/report_input.hpp"
#include "model/exit_codes.hpp"
#include "report/markdown_table.hpp"
#include "report/report_files.hpp"
#include "util/printable.hpp"

namespace vsa::cli {

namespace {

struct FleetCommandOptions {
  std::vector<std::string> paths;
  std::string outlier_threshold = "10%";
  std::string min_effect = "5%";
  bool failed_hosts = false;
  std::string format = "md";
  bool gate = false;
};

int run_fleet(const FleetCommandOptions& o) {
  FleetOptions options;
  try {
    options.outlier_threshold = parse_fraction(o.outlier_threshold);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--outlier-threshold", e.what());
  }
  try {
    options.min_effect = parse_fraction(o.min_effect);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--min-effect", e.what());
  }
  ReportCollection collection = load_report_paths(o.paths);
  if (collection.reports.empty()) return no_report_found("fleet", o.paths);
  Fleet fleet = analyse_fleet(collection.reports, options);
  fleet.skipped = std::move(collection.skipped);
  if (o.failed_hosts) {
    // One line, a Slurm hostlist: scontrol update nodename=LIST state=drain reason=...
    std::cout << fmt::format("{}", fmt::join(fleet.failed_hosts(), ",")) << "\n";
    // A failed GPU whose report names no host cannot be in the list: say so, or a drain recipe
    // fed this line drains nothing and nobody hears of that GPU.
    for (const auto& n : fleet.nodes)
      if ((n.failed() || n.slow > 0) && n.scheduler_host.empty())
        std::cerr << "vsa-bench fleet: " << n.path
                  << " failed but names no host (node.hostname, node.launcher.node_name): not in this list\n";
    for (const auto& h : fleet.hosts_not_listable())
      std::cerr << "vsa-bench fleet: " << printable(h)
                << ": failed, but that is not a host name (letters, digits, '.', '_', '-'): not in this list\n";
  } else if (o.format == "json") {
    auto j = to_json(fleet);
    j["exit_code"] = fleet.exit_code(o.gate);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << render_markdown(fleet);
  }
  return fleet.exit_code(o.gate);
}

}  // namespace

void register_fleet(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<FleetCommandOptions>();
  auto* cmd = app.add_subcommand(
      "fleet",
      "Many reports (one per node and GPU) as one fleet: a row per GPU with its verdict, the fleet median per timed "
      "case with each GPU's ratio to it and outliers flagged, and GPUs grouped by driver, GSP firmware, VBIOS and "
      "toolkit with their verdict counts");
  cmd->add_option("paths", options->paths, "directories (searched recursively for report JSON) or report files")
      ->required();
  cmd->add_option("--outlier-threshold", options->outlier_threshold,
                  "a GPU slower than the fleet median by more than this is an outlier (10% or 0.1); in a row of two or "
                  "three GPUs, slower than the fastest")
      ->type_name("PERCENT")
      ->capture_default_str();
  cmd->add_option("--min-effect", options->min_effect,
                  "a GPU outside the IQR fences is an outlier only when it is also this far from the median (5% or "
                  "0.05): a tight fleet's fences are a few percent wide")
      ->type_name("PERCENT")
      ->capture_default_str();
  cmd->add_flag("--gate", options->gate, "exit 3 when a performance outlier is found");
  CLI::Option* failed_hosts =
      cmd->add_flag("--failed-hosts", options->failed_hosts,
                    "print only the hosts with a failed GPU or a slow outlier (where the other GPUs of its row "
                    "outnumber the slow ones), as a comma-separated Slurm hostlist "
                    "(Slurm's node name when a Slurm launcher placed the run): `scontrol update nodename=$(vsa-bench "
                    "fleet DIR --failed-hosts) state=drain reason=vsa-bench`; same exit code");
  add_format_option(*cmd, options->format, {"md", "json"}, "md: Markdown tables");
  // The host list is its own format: a --format or --json beside it was ignored.
  failed_hosts->excludes(cmd->get_option("--format"))->excludes(cmd->get_option("--json"));
  cmd->footer(
      "Outliers: below (1 - threshold) x the fleet median (in a row of two or three GPUs: x the fastest, and ratios "
      "are "
      "to it), or (with 4 or more GPUs) outside Q1 - 1.5 IQR .. "
      "Q3 + 1.5 IQR by more than the GPU's own recorded spread and by more than --min-effect of the median. Medians "
      "are per case, backend, op, GPU model and timing method (bursts or sustained, warm or cold L2, fixed or "
      "adaptive passes) and spec: figures timed otherwise are another row, never pooled.\n"
      "Re-runs: a GPU counts once per suite set. A newer report covering an older one's cases (same specs, and "
      "each case's backends) replaces it; a finished narrower re-run (`run --case`, `--backends`) with the same "
      "build, driver, firmware, VBIOS, toolkit and plugins merges with it (listed under Merged): each case, and "
      "each backend's result in it, from the newest report with one (a SKIP is none), and an older run's failed "
      "health check stays.\n"
      "Exit codes: 0 all GPUs passed, 1 a GPU failed (FAIL, FAULT, HANG, an incomplete report, a failed node check "
      "or compute-sanitizer's finding in a report `sanitize` annotated), 2 bad usage or an unreadable report "
      "(named), 3 outliers with --gate.");
  cmd->callback(
      [options, &exit_code] { exit_code = run_reading_reports("fleet", [&] { return run_fleet(*options); }); });
}

}  // namespace vsa::cli
