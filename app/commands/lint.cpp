// `vsa-bench lint [--format text|json] [--cuobjdump PATH] [FILE]`: disassembles kernels and
// checks them (lint/lint.hpp). Exit 0 clean, 1 findings, 2 bad input / no tool.
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "commands/commands.hpp"
#include "commands/output_format.hpp"
#include "model/exit_codes.hpp"
#include "lint/lint.hpp"
#include "lint/render.hpp"

namespace vsa::cli {

namespace {

struct LintCommandOptions {
  std::string file;
  std::string cuobjdump;
  std::string against;
  std::string format;  // text | json
  bool counts = false;
};

std::string rules_help() {
  std::string text = "Rules (each finding names rule, arch, instruction offset, kernel and a reason):\n";
  for (const auto& rule : lint::rule_descriptions()) text += "  " + rule.id + ": " + rule.meaning + "\n";
  text +=
      "Exit codes: 0 clean, 1 findings, 2 bad input or cuobjdump missing.\n"
      "Model and limits: app/lint/README.md.";
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
  add_format_option(*cmd, options->format, {"text", "json"},
                    "json: the result as JSON (file, kernels with resources and counts, findings)");
  cmd->add_flag("--counts", options->counts,
                "also print each kernel's SASS counts: MMA, wgmma waits, divergent regions (BSSY), barriers, "
                "memory instructions by space, spills, ...");
  cmd->add_option("--against", options->against,
                  "another build of the same kernels (the parent commit's binary): print only the kernels whose "
                  "counts differ, e.g. `divergent 26 -> 42 (+16)`; a change that moves no arithmetic should move "
                  "none of them")
      ->check(CLI::ExistingFile);
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
      std::vector<sass::KernelCounts> against;
      if (!options->against.empty()) against = lint::counts_of_file(result.cuobjdump, options->against);
      const auto changes = sass::compare_counts(against, result.counts);
      if (options->format == "json") {
        auto doc = lint::to_json(result);
        if (!options->against.empty()) doc["against"] = lint::changes_to_json(options->against, changes);
        std::cout << doc.dump(2) << "\n";
      } else {
        std::cout << lint::format_text(result);
        if (options->counts)
          std::cout << "\nSASS counts (" << result.file << ")\n" << sass::format_counts(result.counts);
        if (!options->against.empty())
          std::cout << "\nSASS counts against " << options->against << " (A) -> " << result.file << " (B)\n"
                    << sass::format_changes(changes);
      }
      exit_code = result.clean() ? kExitOk : kExitCheckFailed;
    } catch (const sass::ToolError& error) {
      std::cerr << "vsa-bench lint: " << error.what() << "\n";
      exit_code = kExitUsage;
    }
  });
}

}  // namespace vsa::cli
