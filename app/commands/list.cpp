// `vsa-bench list [suites|backends|cases SUITE [--case TEXT]...] [--format text|json]`.
#include <cstdio>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands/commands.hpp"
#include "commands/output_format.hpp"
#include "engine/backend_listing.hpp"
#include "model/exit_codes.hpp"
#include "run/plugin_inspection.hpp"
#include "suite/suite.hpp"

namespace vsa::cli {

void register_list(CLI::App& app, int& exit_code) {
  auto what = std::make_shared<std::string>("all");
  auto suite = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>();
  auto plugins = std::make_shared<std::vector<std::string>>();
  auto cases = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("list",
                                 "List built-in suites, backends (with the SM images really in this binary and whether "
                                 "this machine's GPU can run them, and why not), or the cases a suite expands to.");
  cmd->add_option("what", *what, "suites | backends | cases | all")
      ->check(CLI::IsMember({"suites", "backends", "cases", "all"}))
      ->capture_default_str();
  cmd->add_option("suite", *suite, "With `cases`: the suite name or file");
  cmd->add_option("--case", *cases,
                  "With `cases`: only cases whose name contains this text (repeatable; the rule of `run --case`)");
  add_format_option(*cmd, *format, {"text", "json"}, "json: machine-readable");
  cmd->add_option("--plugin", *plugins,
                  "Also list the backends of this plugin library (repeatable; loaded in a worker process)");
  cmd->footer(
      "Examples: vsa-bench list backends; vsa-bench list cases perf --case S=16384; vsa-bench list --json.\n"
      "Exit codes: 0 listed; 2 bad usage, an unknown or malformed suite, or a plugin that does not load (named).");
  cmd->callback([&exit_code, what, suite, format, plugins, cases] {
    nlohmann::json out = nlohmann::json::object();
    if (*what == "suites" || *what == "all") out["suites"] = list_suites_json();
    if (*what == "backends" || *what == "all") {
      out["backends"] = list_backends_json();
      for (auto& b : list_plugin_backends(*plugins)) out["backends"].push_back(b);
    }
    if (!cases->empty() && *what != "cases") throw SuiteError("list: --case applies to `list cases SUITE` only");
    if (!suite->empty() && *what != "cases")
      throw SuiteError("list " + *what + ": a suite (" + *suite + ") applies to `list cases SUITE` only");
    if (*what == "cases") {
      if (suite->empty()) throw SuiteError("list cases: name a suite, e.g. `vsa-bench list cases smoke`");
      out["cases"] = list_cases_json(*suite, *cases);
    }
    const std::string text = *format == "json" ? out.dump(2) + "\n" : render_listing(out);
    std::fwrite(text.data(), 1, text.size(), stdout);  // all of it, whatever bytes it holds
    exit_code = kExitOk;
  });
}

}  // namespace vsa::cli
