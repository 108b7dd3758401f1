// `vsa-bench dump --case NAME [SUITE|FILE ...] --out DIR`: one case's tensors, index
// lists and CPU-reference outputs as .npy files plus case.json (dump/case_dump.hpp).
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>
#include <cmath>

#include "commands/off_switch.hpp"
#include "commands/commands.hpp"
#include "dump/case_dump.hpp"
#include "model/exit_codes.hpp"

namespace vsa::cli {

void register_dump(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<DumpOptions>();
  auto* cmd = app.add_subcommand(
      "dump",
      "Write one case's inputs (q, k, v, do as bf16 bits in uint16), index lists (q2k, k2q, vbs) and the CPU "
      "reference's outputs (o, lse, dq, dk, dv in float32) as .npy files plus case.json, for peer kernels and "
      "notebooks. Needs no GPU; the inputs equal those the GPU generator gives.");
  cmd->add_option("suites", opts->suites, "Suites to look in (built-in names or JSON files; default: every built-in)");
  cmd->add_option("--case", opts->case_name, "The case's name (or text matching exactly one case)")->required();
  cmd->add_option("-o,--out", opts->out_dir, "Directory for the .npy files and case.json")->required();
  add_off_switch(*cmd, "--no-reference", opts->reference,
                 "Inputs and index lists only: no CPU reference outputs (for cases too large for the CPU)");
  cmd->add_option("--reference-limit", opts->reference_limit_flops,
                  "Refuse a case whose CPU reference needs more docs/spec.md FLOPs (forward + backward) than this")
      ->capture_default_str()
      // CLI::PositiveNumber's message prints DBL_MAX in full (300 digits).
      ->check(CLI::Validator(
          [](const std::string& text) {
            double v = 0;
            return CLI::detail::lexical_cast(text, v) && v > 0 && std::isfinite(v)
                       ? std::string()
                       : "\"" + text + "\" is not a positive number of FLOPs (e.g. 1e12)";
          },
          "FLOPS > 0"));
  // Errors throw and main maps them (SuiteError: exit 2, any other: 4); success is exit 0.
  cmd->footer(
      "Example: vsa-bench dump perf --case \"S=4096,density=0.25\" --out /tmp/case   (numpy.load('/tmp/case/q.npy'))\n"
      "Exit codes: 0 written; 2 bad usage, no case or several matching --case, or a reference over\n"
      "--reference-limit (named); 4 a file that could not be written.");
  cmd->callback([&exit_code, opts] {
    opts->argv = process_argv();
    std::fputs(dump_case(*opts).c_str(), stdout);
    exit_code = kExitOk;
  });
}

}  // namespace vsa::cli
