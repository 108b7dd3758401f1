// `vsa-bench info [--format text|json] [--no-cuda] [--label TEXT]`: what this node is, as every
// report records it. Answers with whatever it can learn (no GPU, no NVML: it says so
// in the notes) and exits 0.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "build_info.hpp"
#include "commands/commands.hpp"
#include "commands/output_format.hpp"
#include "model/exit_codes.hpp"
#include "suite/suite.hpp"
#include "telemetry/fingerprint.hpp"
#include "util/printable.hpp"

namespace vsa::cli {
namespace {

struct InfoOptions {
  std::string format;  // text | json
  bool no_cuda = false;
  std::string label;
};

int run_info(const InfoOptions& options) {
  // The rule of `run --label`: the same label on both, and never bytes JSON cannot hold (a
  // non-UTF-8 label was nlohmann's error and exit 4).
  if (!options.label.empty() && file_name_part(options.label) != options.label)
    throw SuiteError("--label \"" + printable(options.label) +
                     "\": use letters, digits, '.', '_' and '-' only, not starting with '.' (as `run --label`)");
  const std::optional<std::string> label = options.label.empty() ? std::nullopt : std::optional(options.label);
  const Fingerprint fingerprint = collect_fingerprint(!options.no_cuda, label);
  if (options.format == "json") {
    nlohmann::json document = fingerprint;
    document["build"] = build_info_json();
    std::cout << document.dump(2) << "\n";
  } else {
    std::cout << "vsa-bench " << build::kVersion << " (git " << build::git_sha() << ", " << build::kBuildType << "; "
              << build::kCxxCompiler << "; " << build::kCudaCompiler << ")\n\n"
              << format_fingerprint_text(fingerprint);
  }
  return kExitOk;
}

}  // namespace

void register_info(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* info = app.add_subcommand("info", "Describe this node and its GPUs (driver, VBIOS, GSP firmware, ...)");
  add_format_option(*info, options->format, {"text", "json"},
                    "json: the node and device fingerprints a report embeds (`build` here is a report's `tool`)");
  info->add_flag("--no-cuda", options->no_cuda, "Query NVML only; never initialise CUDA in this process");
  info->add_option("--label", options->label, "Rack or group label recorded as node.label");
  info->footer(
      "Examples: vsa-bench info; vsa-bench info --json --label rack12 (the fingerprints every report embeds).\n"
      "Exit codes: 0 (what cannot be read, e.g. NVML without a driver, is said in the output); 2 bad usage.");
  info->callback([options, &exit_code] { exit_code = run_info(*options); });
}

}  // namespace vsa::cli
