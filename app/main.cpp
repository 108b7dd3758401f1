// vsa-bench: CLI wiring only. Each subcommand lives in app/commands/, the work
// in the harness library. Exceptions map to the exit codes of docs/design.md.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <set>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "build_info.hpp"
#include "commands/commands.hpp"
#include "model/exit_codes.hpp"
#include "suite/suite.hpp"
#include "util/printable.hpp"
#include "util/process.hpp"

int main(int argc, char** argv) {
  vsa::keep_standard_fds_open();
  // Logs and errors on stderr: stdout carries tables and JSON that scripts parse.
  spdlog::set_default_logger(spdlog::stderr_color_mt("vsa-bench"));
  spdlog::set_pattern("%^[%l]%$ %v");
  spdlog::set_level(spdlog::level::info);
  CLI::App app{
      "vsa-bench: correctness, race and speed checks for VSA block-sparse attention kernels.\n"
      "Typical use:\n"
      "  vsa-bench info                      node and GPU fingerprint (driver, VBIOS, GSP firmware)\n"
      "  vsa-bench list backends             kernels in this binary and whether this GPU runs them\n"
      "  vsa-bench run                       the default qualification suite, one report per GPU\n"
      "  vsa-bench run correctness stability perf --out results/\n"
      "  vsa-bench lint                      check the binary's own SASS for empty bodies, spills, races\n"
      "  vsa-bench selftest                  show every check catching its planted fault\n"
      "  vsa-bench sanitize --tool racecheck  small cases (suites/sanitize.json) under compute-sanitizer\n"
      "  vsa-bench repro REPORT.json --case NAME [--bundle OUT.json]   re-run or export one case\n"
      "  vsa-bench dump --case NAME --out DIR   one case's tensors and reference outputs as .npy (peers)\n"
      "  vsa-bench render REPORT.json --out REPORT.md   a report's Markdown again, from its JSON\n"
      "Exit codes: 0 all passed (stated skips allowed), 1 a check failed, 2 bad usage or input,\n"
      "3 performance regression, 4 incomplete (a case faulted or hung; GPUs asked for or present that CUDA\n"
      "cannot use: the run fails closed; an export or report that could not be written; compare's gate, with no\n"
      "regression, lacking a baseline timing or too noisy to gate; any command that could not finish, e.g.\n"
      "on a full disk)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] {
    return std::string("vsa-bench ") + vsa::build::kVersion + " (git " + vsa::build::git_sha() + ", " +
           vsa::build::kBuildType + ", CUDA toolkit " + vsa::build::kCudaToolkit + ")";
  });
  // An option callback runs while the command line is processed, before any command's
  // callback, so -v covers the command's own logging.
  app.add_flag_callback(
      "-v,--verbose", [] { spdlog::set_level(spdlog::level::debug); }, "Debug logging (before or after the command)");
  // Options of the top level (-v) are accepted after the command too: `vsa-bench run smoke -v`.
  app.fallthrough();
  // Recorded in reports: as valid UTF-8 (a report write refuses anything else).
  for (int i = 0; i < argc; ++i) vsa::cli::process_argv().push_back(vsa::valid_utf8(argv[i]));
  int exit_code = vsa::kExitOk;
  vsa::cli::register_info(app, exit_code);
  vsa::cli::register_list(app, exit_code);
  vsa::cli::register_run(app, exit_code);
  vsa::cli::register_lint(app, exit_code);
  vsa::cli::register_selftest(app, exit_code);
  vsa::cli::register_sanitize(app, exit_code);
  vsa::cli::register_repro(app, exit_code);
  vsa::cli::register_dump(app, exit_code);
  vsa::cli::register_compare(app, exit_code);
  vsa::cli::register_fleet(app, exit_code);
  vsa::cli::register_floors(app, exit_code);
  vsa::cli::register_render(app, exit_code);
  vsa::cli::register_worker(app, exit_code);
  // The first word that is no option names the command; one that names none got only CLI11's
  // "A subcommand is required". This holds while no top-level option takes a value (-v, -h and
  // --version take none); -h or --version before the word answer first, as CLI11 would.
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "-h" || word == "--help" || word == "--version" || word == "--") break;
    if (word.empty() || word.front() == '-') continue;
    const auto all = app.get_subcommands([](const CLI::App*) { return true; });  // the hidden worker too
    const auto shown = app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
    if (std::none_of(all.begin(), all.end(), [&](const CLI::App* s) { return s->check_name(word); })) {
      std::string names;
      for (const CLI::App* s : shown) names += (names.empty() ? "" : ", ") + s->get_name();
      std::fprintf(stderr, "vsa-bench: unknown command \"%s\"; the commands are %s (vsa-bench --help)\n",
                   vsa::printable(word).c_str(), names.c_str());
      return vsa::kExitUsage;
    }
    break;
  }
  // Which command an error came from, for the message.
  const auto command = [&app]() -> std::string {
    const auto parsed = app.get_subcommands();
    return parsed.empty() ? std::string("vsa-bench") : "vsa-bench " + parsed.front()->get_name();
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? vsa::kExitOk : vsa::kExitUsage;
  } catch (const vsa::SuiteError& e) {
    spdlog::error("{}", e.what());
    return vsa::kExitUsage;
  } catch (const std::exception& e) {
    // Not bad input: the command could not finish (a write that failed, a full disk).
    spdlog::error("{}: {}", command(), e.what());
    return vsa::kExitIncomplete;
  }
  // A command whose result is its stdout (list, info, floors, compare, fleet, render), written into
  // a full disk, has not delivered it: incomplete, not a pass (fuzz review, 2026-12-07: `floors ...
  // > /dev/full` exited 0). Never over another exit code, and never for `run`, whose result is
  // its reports.
  static const std::set<std::string> kStdoutResult = {"list", "info", "floors", "compare", "fleet", "render"};
  const auto parsed = app.get_subcommands();
  const bool stdout_is_result = !parsed.empty() && kStdoutResult.count(parsed.front()->get_name()) > 0;
  std::cout.flush();
  if (stdout_is_result && exit_code == vsa::kExitOk &&
      (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))) {
    spdlog::error("{}: could not write its output to stdout", command());
    return vsa::kExitIncomplete;
  }
  return exit_code;
}
