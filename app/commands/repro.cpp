// `vsa-bench repro REPORT.json --case NAME [--bundle OUT.json] [--out DIR]`:
// re-run one case of a report exactly, or write it as a one-case suite (run/repro.hpp).
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "commands/off_switch.hpp"
#include "commands/commands.hpp"
#include "run/repro.hpp"

namespace vsa::cli {

void register_repro(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<ReproOptions>();
  auto* cmd = app.add_subcommand(
      "repro",
      "Re-run one case of a report exactly as it ran (same seeds, shapes, pattern, probes, tolerances) in isolated "
      "workers, or with --bundle write it as a one-case suite that `vsa-bench run FILE` runs anywhere; the bundle "
      "names the node and GPU it came from.");
  cmd->add_option("report", opts->report, "A report written by `vsa-bench run`")->required();
  cmd->add_option("--case", opts->case_name, "The case's name (or text matching exactly one case)")->required();
  cmd->add_option("--bundle", opts->bundle, "Write the one-case suite here instead of running it");
  cmd->add_option("-o,--out", opts->out_dir, "Directory for the re-run's suite file and report")->capture_default_str();
  cmd->add_option("--devices", opts->devices, "all | none | comma list of CUDA ordinals")->capture_default_str();
  cmd->add_option("--plugin", opts->plugins,
                  "Use this plugin library instead of the ones the report recorded (repeatable), e.g. a rebuilt one");
  add_off_switch(*cmd, "--no-isolate", opts->isolate, "Run in this process (debugging; a fault ends the run)");
  add_off_switch(*cmd, "--quiet", opts->progress, "No per-case progress lines");
  cmd->footer(
      "Examples:\n"
      "  vsa-bench repro results/node-gpu0-T.json --case odd-nb    re-run one case of a report here\n"
      "  vsa-bench repro R.json --case odd-nb --bundle odd.json    a one-case suite: vsa-bench run odd.json\n"
      "Exit codes: as `run` for the re-run (0 passed, 1 failed, 4 faulted, hung or no usable GPU); 0 when\n"
      "--bundle is written; 2 bad usage, an unreadable report, or a case it lacks or names twice (named).");
  cmd->callback([&exit_code, opts] {
    opts->argv = process_argv();
    const ReproOutcome outcome = run_repro(*opts);
    std::fputs(outcome.text.c_str(), stdout);
    exit_code = outcome.exit_code;
  });
}

}  // namespace vsa::cli
