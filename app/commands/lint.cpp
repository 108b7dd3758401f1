// `vsa-bench lint [--json] [--cuobjdump PATH] [FILE]`: disassembles kernels and
// checks them (harness/lint.hpp). Exit 0 clean, 1 findings, 2 bad input / no tool.
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "commands/commands.hpp"
#include "harness/exit_codes.hpp"
#include "harness/lint.hpp"
#include "harness/lint_report.hpp"

namespace vsa::cli {

namespace {

struct LintCommandOptions {
  std::string file;
  std::string cuobjdump;
  bool json = false;
};

std::string rules_help() {
  std::string text = "Rules (each finding names rule, arch, instruction offset, kernel and a reason):\n";
  for (const auto& rule : lint::rule_descriptions()) text += "  " + rule.id + ": " + rule.meaning + "\n";
  text +=
      "Exit codes: 0 clean, 1 findings, 2 bad input or cuobjdump missing.\n"
      "Model and limits: app/harness/LINT.md.";
  return text;
}

}  // namespace

void register_lint(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<LintCommandOptions>();
  auto* cmd = app.add_subcommand(
      "lint",
      "Disassemble kernels with cuobjdump and check their SASS: empty bodies, missing MMA instructions, "
      "local-memory spills in hot kernels, and barrier arrives that release a buffer before its loads are waited on");
  cmd->add_option("FILE", options->file,
                  "executable, object, cubin or fatbin to lint (default: this vsa-bench executable)");
  cmd->add_flag("--json", options->json, "print the result as JSON (file, kernels with resources, findings)");
  cmd->add_option("--cuobjdump", options->cuobjdump,
                  "cuobjdump to use (default: $VSA_CUOBJDUMP, then PATH, $CUDA_HOME/bin, /usr/local/cuda/bin, "
                  "then the PyPI wheel nvidia-cuda-cuobjdump in site-packages)");
  cmd->footer(rules_help());
  cmd->callback([options, &exit_code] {
    lint::LintOptions lint_options;
    lint_options.file = options->file;
    lint_options.cuobjdump = options->cuobjdump;
    try {
      const auto result = lint::lint_file(lint_options);
      if (options->json) {
        std::cout << lint::to_json(result).dump(2) << "\n";
      } else {
        std::cout << lint::format_text(result);
      }
      exit_code = result.clean() ? kExitOk : kExitCheckFailed;
    } catch (const sass::ToolError& error) {
      std::cerr << "vsa-bench lint: " << error.what() << "\n";
      exit_code = kExitUsage;
    }
  });
}

}  // namespace vsa::cli
