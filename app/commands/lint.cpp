// `vsa-bench lint [--format text|json] [--strict] [--cuobjdump PATH] [FILE]`: disassembles kernels
// and checks them (lint/lint.hpp). Exit 0 no error finding (warnings allowed unless --strict),
// 1 an error finding, 2 bad input / no tool.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "commands/commands.hpp"
#include "commands/output_format.hpp"
#include "model/exit_codes.hpp"
#include "lint/lint.hpp"
#include "lint/render.hpp"
#include "run/plugin_inspection.hpp"

namespace vsa::cli {

namespace {

struct LintCommandOptions {
  std::string file;
  std::string cuobjdump;
  std::string against;
  std::string format;  // text | json
  bool counts = false;
  bool strict = false;
  std::vector<std::string> plugins;
};

// The rule table with the lint families a plugin's backends declare (vsa/plugin.h). Their
// kernels are someone else's: the performance rules (local-spill, wgmma-serialized) report
// warnings there, the correctness rules errors (app/lint/README.md, "Severity").
lint::RuleTable rules_for_plugin(const nlohmann::json& plugin) {
  lint::RuleTable rules = lint::default_rule_table();
  for (const auto& b : plugin.at("backends"))
    for (const auto& f : b.at("lint_families"))
      rules.families.push_back({f.at("label").get<std::string>(), f.at("mangled_prefix").get<std::string>(),
                                f.at("arch").get<std::string>(), f.at("mma_pattern").get<std::string>(),
                                f.at("mma_description").get<std::string>(), f.at("hot").get<bool>(),
                                f.at("mma_exempt").get<std::vector<std::string>>(), lint::Severity::warning});
  return rules;
}

// `lint --plugin`: each library's kernels, with its own families added to the rules.
int lint_plugins(const LintCommandOptions& options) {
  const PluginInspection inspection = inspect_plugins(options.plugins);
  nlohmann::json docs = nlohmann::json::array();
  bool passed = true;
  for (const auto& plugin : inspection.plugins) {
    lint::LintOptions lint_options;
    lint_options.file = plugin.at("path").get<std::string>();
    lint_options.cuobjdump = options.cuobjdump;
    lint_options.rules = rules_for_plugin(plugin);
    const auto result = lint::lint_file(lint_options);
    passed = passed && result.passed(options.strict);
    if (options.format == "json") {
      auto doc = lint::to_json(result);
      doc["plugin"] = plugin;
      docs.push_back(doc);
    } else {
      std::cout << "plugin " << plugin.at("plugin_name").get<std::string>() << " (" << lint_options.file
                << "): " << lint_options.rules.families.size() - lint::default_rule_table().families.size()
                << " lint families declared\n"
                << lint::format_text(result);
      if (options.counts) std::cout << "\nSASS counts (" << result.file << ")\n" << sass::format_counts(result.counts);
    }
  }
  if (options.format == "json") std::cout << nlohmann::json{{"plugins", docs}}.dump(2) << "\n";
  return passed ? kExitOk : kExitCheckFailed;
}

std::string rules_help() {
  std::string text = "Rules (each finding names rule, arch, instruction offset, kernel and a reason):\n";
  for (const auto& rule : lint::rule_descriptions()) text += "  " + rule.id + ": " + rule.meaning + "\n";
  text +=
      "Severity: the correctness rules (empty-body, missing-mma, arrive-before-wait) are errors; the "
      "performance rules (local-spill, wgmma-serialized) are errors on vsa-bench's own kernels and warnings "
      "on the families a plugin declares (someone else's working kernel).\n"
      "Exit codes: 0 no error (warnings allowed; --strict: no finding at all), 1 a failing finding, 2 bad "
      "input or cuobjdump missing.\n"
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
  cmd->add_flag("--strict", options->strict,
                "fail (exit 1) on warnings too: e.g. a plugin author who wants their own kernels' spills to fail CI");
  cmd->add_option("--plugin", options->plugins,
                  "lint this plugin library instead (repeatable): its kernels under the same rules, plus the lint "
                  "families its backends declare (vsa/plugin.h); JSON: {\"plugins\": [one result per library]}");
  cmd->add_option("--cuobjdump", options->cuobjdump,
                  "cuobjdump to use (default: $VSA_CUOBJDUMP, then PATH, $CUDA_HOME/bin, /usr/local/cuda/bin, "
                  "then the PyPI wheel nvidia-cuda-cuobjdump in site-packages)");
  cmd->footer(rules_help());
  cmd->callback([options, &exit_code] {
    lint::LintOptions lint_options;
    lint_options.file = options->file;
    lint_options.cuobjdump = options->cuobjdump;
    try {
      if (!options->plugins.empty()) {
        if (!options->file.empty() || !options->against.empty())
          throw CLI::ValidationError("--plugin", "lints the plugin libraries; give FILE or --against without it");
        exit_code = lint_plugins(*options);
        return;
      }
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
      exit_code = result.passed(options->strict) ? kExitOk : kExitCheckFailed;
    } catch (const sass::ToolError& error) {
      std::cerr << "vsa-bench lint: " << error.what() << "\n";
      exit_code = kExitUsage;
    }
  });
}

}  // namespace vsa::cli
