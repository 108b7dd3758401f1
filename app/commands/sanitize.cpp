// `vsa-bench sanitize --tool T [SUITE|FILE] [--case NAME] [--out DIR]`: the suite
// under compute-sanitizer, its findings stored in the run's report (selftest/sanitize.hpp).
#include <cstdio>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "commands/commands.hpp"
#include "model/exit_codes.hpp"
#include "selftest/sanitize.hpp"
#include "run/worker_process.hpp"

namespace vsa::cli {

void register_sanitize(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<SanitizeOptions>();
  auto* cmd = app.add_subcommand(
      "sanitize",
      "Run a suite in-process under compute-sanitizer (memcheck, racecheck, synccheck or initcheck) and record the "
      "tool's error counts and findings in the run's report (\"sanitizer\" object, Markdown section).");
  cmd->footer(
      "Exit codes: 0 clean, 1 errors or hazards (or a failed check), 2 no compute-sanitizer or bad input, 4 the run "
      "wrote no report or faulted, or compute-sanitizer was killed by a signal.");
  cmd->add_option("--tool", opts->tool, "compute-sanitizer tool")
      ->check(CLI::IsMember({"memcheck", "racecheck", "synccheck", "initcheck"}))
      ->capture_default_str();
  cmd->add_option("suite", opts->suite, "Built-in suite name or suite JSON file")->capture_default_str();
  cmd->add_option("--case", opts->cases, "Only cases whose name contains this text (repeatable)");
  cmd->add_option("--backends", opts->backends, "Only these of each case's backends (as `run --backends`)")
      ->delimiter(',');
  cmd->add_option("--add-backend", opts->add_backends,
                  "Also this backend on every case, e.g. a plugin's (as `run --add-backend`)")
      ->delimiter(',');
  cmd->add_option("--plugin", opts->plugins, "Load backends from a plugin library (repeatable; docs/plugins.md)");
  cmd->add_option("--devices", opts->devices, "all | none | comma list of CUDA ordinals")->capture_default_str();
  cmd->add_option("-o,--out", opts->out_dir, "Directory for the reports and the tool's log")->capture_default_str();
  cmd->add_option("--compute-sanitizer", opts->compute_sanitizer,
                  "compute-sanitizer to use (default: $VSA_COMPUTE_SANITIZER, PATH, $CUDA_HOME/bin, "
                  "/usr/local/cuda/bin)");
  cmd->callback([&exit_code, opts] {
    try {
      const SanitizeResult result = run_sanitize(*opts, self_executable());
      std::fputs(format_sanitize_text(*opts, result).c_str(), stdout);
      exit_code = result.exit_code();
    } catch (const SanitizerNotFound& e) {
      std::cerr << "vsa-bench sanitize: " << e.what() << "\n";
      exit_code = kExitUsage;
    }
  });
}

}  // namespace vsa::cli
