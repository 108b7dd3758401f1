// `vsa-bench selftest [--format text|json]`: every planted fault through the real machinery,
// one row each, "detected" or "MISSED" (selftest/selftest.hpp).
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "commands/off_switch.hpp"
#include "commands/commands.hpp"
#include "commands/output_format.hpp"
#include "selftest/selftest.hpp"

namespace vsa::cli {

void register_selftest(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<SelftestOptions>();
  auto format = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "selftest",
      "Run the deliberately faulty kernels and show each check catching its fault: out-of-bounds write (FAULT), "
      "a barrier that never completes (HANG), a cross-warp race exposed by a delay probe (stability), NaN and "
      "unwritten outputs, an empty kernel image and an arrive before wait (lint), a stream-unsafe cache (two-stream "
      "check), a worker that aborts or hangs. Exit 0 when every row that ran is detected; rows that need a GPU "
      "(or cuobjdump) read SKIP without one.");
  add_format_option(*cmd, *format, {"text", "json"}, "json: the rows as JSON");
  cmd->add_option("--devices", opts->devices,
                  "GPU the planted kernels run on: all (the first; a host without one reads SKIP rows), none, or a "
                  "CUDA ordinal, which must then be usable (exit 4 otherwise, as run --devices N)")
      ->capture_default_str();
  cmd->add_option("-o,--out", opts->out_dir, "Keep the planted-fault suite and its report here (default: discarded)");
  cmd->add_option("--hang-timeout", opts->hang_timeout_s, "Seconds the HANG rows wait")
      ->check(CLI::Range(0.1, 604800.0))
      ->capture_default_str();
  cmd->add_option("--race-runs", opts->race_runs, "Stability runs of the overlap-race rows")
      ->check(CLI::Range(2, 100000))
      ->capture_default_str();
  cmd->add_option("--probe-ns", opts->probe_ns, "Delay of probe selftest.overlap in the race row")
      ->capture_default_str();
  cmd->add_option("--cuobjdump", opts->cuobjdump, "cuobjdump for the lint rows (default: searched as `lint` does)");
  add_off_switch(*cmd, "--quiet", opts->progress, "No per-case progress lines");
  cmd->footer(
      "Exit codes: 0 every check caught its planted fault (a row this machine cannot run says why); 1 a check "
      "missed its fault; 2 bad usage; 4 the selftest could not finish, or the GPU --devices named is not usable.");
  cmd->callback([&exit_code, opts, format] {
    opts->argv = process_argv();
    const SelftestResult result = run_selftest(*opts);
    std::fputs(*format == "json" ? (to_json(result).dump(2) + "\n").c_str() : format_selftest_table(result).c_str(),
               stdout);
    exit_code = result.exit_code();
  });
}

}  // namespace vsa::cli
