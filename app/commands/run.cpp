// `vsa-bench run [SUITE|FILE ...]`: options -> RunOptions -> harness.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "commands/off_switch.hpp"
#include "commands/commands.hpp"
#include "model/case_spec.hpp"
#include "model/probe_spec.hpp"
#include "report/markdown_table.hpp"
#include "run/suite_runner.hpp"

namespace vsa::cli {

std::vector<std::string>& process_argv() {
  static std::vector<std::string> argv;
  return argv;
}

void register_run(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<RunOptions>();
  auto suites = std::make_shared<std::vector<std::string>>();
  auto probes = std::make_shared<std::vector<std::string>>();
  auto* cmd =
      app.add_subcommand("run",
                         "Run suites (built-in names or JSON files; default: qualify). Each case runs in an "
                         "isolated worker; one report (JSON + Markdown) per GPU is rewritten after every case.");
  cmd->add_option("suites", *suites, "Built-in suite names (see `vsa-bench list suites`) or paths to suite JSON files");
  cmd->add_option("-o,--out", opts->out_dir, "Directory for reports")->capture_default_str();
  cmd->add_option("--label", opts->label,
                  "A name for this node or run (rack, job); goes into report names and fleet tables");
  cmd->add_option("--devices", opts->devices, "all | none (CPU only) | comma list of CUDA ordinals")
      ->capture_default_str();
  cmd->add_option("--backends", opts->backends,
                  "Run only these of each case's backends (by name); a name no selected case lists is an error")
      ->delimiter(',');
  cmd->add_option("--add-backend", opts->add_backends,
                  "Also run this backend on every selected case, after the suite's own (repeatable or comma "
                  "list; a backend name, not an alias such as @fast), e.g. a plugin's: --plugin k.so --add-backend "
                  "my-kernel. Cases whose shape it refuses SKIP it with its reason")
      ->delimiter(',');
  cmd->add_option("--case", opts->cases, "Run only cases whose name contains this text (repeatable)");
  cmd->add_option("--plugin", opts->plugins,
                  "Load backends from a plugin library (repeatable; docs/plugins.md); loaded in the workers, "
                  "checked before anything runs");
  cmd->add_option("--probe", *probes,
                  "Delay probe NAME=NANOSECONDS[@warps:LIST] added to every case, e.g. fwd.release_kv=2000 (sm90a); "
                  "a warp list only where the backend takes one, e.g. bwd.read_st=20000@warps:2-3 on sm100a "
                  "hardware (points per backend: `list backends --format json`)");
  cmd->add_option("--hang-watch-ms", opts->hang_watch_ms,
                  "Bound every mbarrier wait of the kernels that have them (their watched variant): a wait longer "
                  "than this ends the case FAULT naming the CTA, warp, role, barrier, parity and step")
      ->check(CLI::Range(1u, std::uint32_t(kMaxHangWatchMs)));
  auto target_spread = std::make_shared<std::string>();
  cmd->add_option("--target-spread", *target_spread,
                  "Perf cases: add timing passes until every backend's spread (the median's 95% interval) is at most "
                  "this, e.g. 2% or 0.02; 0 runs exactly timing.passes (default: each case's timing.target_spread, 2%)")
      ->type_name("PERCENT");
  cmd->add_option("--timing-budget", opts->time_budget_s,
                  "Perf cases: seconds of timing passes per case and op before adaptive sampling gives up (default: "
                  "each case's timing.time_budget_s, 30)")
      ->check(CLI::Range(0.0, kMaxTimeBudgetS));
  cmd->add_option("--schedules", opts->schedules,
                  "Schedules per op for the backends that explore them (the sm100a execution model), seeds "
                  "--schedule-seed, +1, ...; overrides each case's `schedules`")
      ->check(CLI::Range(1, kMaxSchedules));
  cmd->add_option("--schedule-seed", opts->schedule_seed,
                  "The first schedule seed (0: round robin, async operations completed at once); overrides each "
                  "case's `schedule_seed`. A report names the seed of each finding; `repro` replays it")
      ->check(CLI::Validator(
          [](std::string& text) {  // CLI11 would wrap "-1" to 2^64 - 1: only plain decimal uint64
            std::uint64_t v = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            return ec == std::errc() && end == text.data() + text.size() && !text.empty()
                       ? std::string()
                       : "must be an integer in [0, 18446744073709551615], got \"" + text + "\"";
          },
          "UINT64"));
  cmd->add_option("--resume", opts->resume, "Continue an interrupted run: keep the finished cases of this report");
  add_off_switch(*cmd, "--no-isolate", opts->isolate, "Run cases in this process (debugging; a fault ends the run)");
  cmd->add_option("--jobs,-j", opts->jobs,
                  "CPU cases (--devices none, or a host without GPU) in N worker processes side by side, e.g. the "
                  "model suite on a many-core node; the report lists cases in suite order. GPU cases always run one "
                  "at a time")
      ->check(CLI::Range(1, kMaxJobs))
      ->capture_default_str();
  cmd->add_flag("--require-gpu", opts->require_gpu,
                "Exit 4 when no GPU is found instead of skipping GPU cases (also the default where PCI or NVML shows "
                "NVIDIA GPUs)");
  cmd->add_option("--expect-gpus", opts->expect_gpus,
                  "Exit 4 unless CUDA can use exactly N GPUs (node qualification: a missing GPU fails the node)")
      ->check(CLI::Range(0, 1 << 16));
  cmd->add_option("--node-checks", opts->node_checks,
                  "Speed floor per GPU model and NVML health gates (docs/qualify.md): auto (when the qualify suite "
                  "runs), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  cmd->add_option("--floors", opts->floors_path,
                  "Speed-floor table made by `vsa-bench floors` (default: the built-in suites/floors/floors.json)");
  cmd->add_flag("--require-floors", opts->require_floors,
                "Fail closed on speed: a timing no floor judges (a GPU model or workload the table lacks, a sustained "
                "pass without clock samples) FAILs VSA_E_NO_FLOOR instead of SKIP; for fleets whose every GPU model "
                "has floors (docs/qualify.md)");
  cmd->add_option("--throttle-ignore", opts->throttle_ignore,
                  "Clock-event reasons health.throttle does not fail on, like `dcgmi diag --clocksevent-mask`: a "
                  "comma list of hw_slowdown, sw_thermal, hw_thermal, hw_power_brake, or the sum of their NVML bits "
                  "(8, 32, 64, 128), e.g. sw_thermal or 32 (docs/qualify.md, \"Throttle\")")
      ->type_name("REASONS");
  auto sw_thermal_max = std::make_shared<std::string>();
  cmd->add_option("--sw-thermal-max", *sw_thermal_max,
                  "health.throttle: the share of the sustained time sw_thermal may hold the clock before the node "
                  "fails, e.g. 5% or 0.05 (default 5%); it fails at any share when a sustained floor failed")
      ->type_name("PERCENT");
  cmd->add_option("--junit", opts->junit_path, "Also write JUnit XML: one testcase per case and backend");
  cmd->add_option("--metrics", opts->metrics_path,
                  "Also write a Prometheus textfile (node-exporter textfile collector): verdict, TFLOPS, SM clock, "
                  "last-run time per GPU UUID, case and backend");
  cmd->add_option("--jsonl", opts->jsonl_path, "Also write JSON Lines: one row per measurement");
  cmd->add_option("--nvbench", opts->nvbench_path,
                  "Also write the timings as NVBench JSON, for nvbench_compare and NVBench's other readers "
                  "(docs/report-schema.md, \"NVBench export\")");
  add_off_switch(*cmd, "--quiet", opts->progress, "No per-case progress lines");
  cmd->footer(
      "Examples:\n"
      "  vsa-bench run                                  the default suite, qualify, on every GPU\n"
      "  vsa-bench run correctness stability --out results/\n"
      "  vsa-bench run perf --case S=16384 --backends sm90a --target-spread 1%\n"
      "  vsa-bench run stability --probe fwd.release_kv=2000   widen a hand-off window (sm90a)\n"
      "  vsa-bench run my-suite.json --devices none     CPU backends only\n"
      "Exit codes: 0 every case passed (stated skips allowed); 1 a case failed (a mismatch, an unstable\n"
      "output or a speed floor); 2 bad usage, or a suite, --resume or output path refused (named; nothing\n"
      "runs); 4 incomplete: a case faulted or hung, GPUs asked for or present that CUDA cannot use (the run\n"
      "fails closed), or a report or export that could not be written.");
  cmd->callback([&exit_code, opts, suites, probes, target_spread, sw_thermal_max] {
    if (!suites->empty()) opts->suites = *suites;
    if (!sw_thermal_max->empty()) {
      try {
        opts->sw_thermal_max_fraction = parse_fraction(*sw_thermal_max);
      } catch (const std::invalid_argument& e) {
        throw CLI::ValidationError("--sw-thermal-max", e.what());
      }
    }
    if (!target_spread->empty()) {
      try {
        opts->target_spread = parse_fraction(*target_spread);
      } catch (const std::invalid_argument& e) {
        throw CLI::ValidationError("--target-spread", e.what());
      }
    }
    for (const auto& p : *probes) {
      ProbeArg arg;
      std::string error;
      if (!parse_probe_arg(p, arg, error)) throw CLI::ValidationError("--probe", error);
      opts->probes[arg.key] = arg.nanoseconds;
    }
    opts->argv = process_argv();
    const RunSummary summary = run_suites(*opts);
    std::fputs(summary.table.c_str(), stdout);
    exit_code = summary.exit_code;
  });
}

}  // namespace vsa::cli
