// Reports as NVBench JSON (report/nvbench_json.hpp): the layout NVBench's own readers walk
// (meta.version.json, devices by id, benchmarks -> axes + states -> summaries by tag, numbers
// as strings), the mapping of cases to benchmarks and axes, and the statistics over the kept
// pass medians, in seconds. A committed H200 report goes through it as well.
#include "report/nvbench_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "report/report_files.hpp"

namespace vsa {
namespace {

using ojson = nlohmann::ordered_json;

Timing timing(const std::string& op, std::vector<double> pass_ms, std::vector<double> clocks_mhz) {
  Timing t;
  t.op = op;
  t.pass_medians_ms = pass_ms;
  t.passes = int(pass_ms.size());
  t.iterations = 20;
  t.tflops = 500;
  t.spread = 0.01;
  t.sampling.stop = "converged";
  t.sampling.target_spread = 0.02;
  t.sampling.time_budget_s = 30;
  t.sampling.min_passes = 4;
  t.clocks = nlohmann::json::array();
  for (std::size_t i = 0; i < clocks_mhz.size(); ++i)
    t.clocks.push_back({{"pass", i}, {"after", {{"sm_clock_mhz", clocks_mhz[i]}, {"event_reasons", 0}}}});
  return t;
}

CaseResult perf_case(const std::string& name, int S, double density) {
  CaseResult c;
  c.name = name;
  c.spec = {{"mode", "perf"},
            {"B", 1},
            {"H", 8},
            {"S", S},
            {"D", 128},
            {"op", "both"},
            {"pattern", {{"kind", "random"}, {"density", density}}}};
  return c;
}

Report h200_report(int ordinal = 0) {
  Report r;
  r.argv = {"vsa-bench", "run", "perf"};
  r.started_at = "2026-12-02T00:00:0" + std::to_string(ordinal) + "Z";
  r.device = {{"name", "NVIDIA H200"},
              {"cuda_ordinal", ordinal},
              {"cc_major", 9},
              {"cc_minor", 0},
              {"sm_count", 132},
              {"sm_clock_peak_khz", 1980000},
              {"mem_clock_peak_khz", 3201000},
              {"memory_bus_width_bits", 6016},
              {"l2_cache_bytes", 62914560},
              {"ecc_enabled", true},
              {"uuid", "GPU-x"},
              {"temperature_c", 40}};
  for (const int S : {4096, 16384}) {
    CaseResult c = perf_case("perf/topk/S=" + std::to_string(S) + ",density=0.25", S, 0.25);
    BackendResult a;
    a.backend = "sm90a";
    a.verdict = kPass;
    // Pass 0 ran at 1980 MHz among 1590-1605: off-clock, left out of median and statistics.
    Timing fwd = timing("fwd", {3.60, 4.14, 4.16, 4.18, 4.17}, {1980, 1590, 1605, 1590, 1590});
    fwd.off_clock_passes = {{0, 1980, 1590, 1605}};
    fwd.median_ms = 4.165;
    Timing bwd = timing("bwd", {10, 11, 12}, {1980, 1980, 1980});
    bwd.median_ms = 11;
    a.timings = {fwd, bwd};
    BackendResult skipped;
    skipped.backend = "sm100a";
    skipped.verdict = kSkip;
    skipped.reason = "needs compute capability 10.0";
    c.backends = {a, skipped};
    r.cases.push_back(c);
  }
  CaseResult check;  // a correctness case: no timing, not a benchmark
  check.name = "perf/check-only";
  check.spec = {{"mode", "check"}, {"S", 640}};
  r.cases.push_back(check);
  return r;
}

const ojson* find_named(const ojson& list, const std::string& key, const std::string& name) {
  for (const auto& item : list)
    if (item.at(key) == name) return &item;
  return nullptr;
}

// As nvbench_compare reads a summary: the "value" entry of "data", a string, parsed as a float.
double summary_value(const ojson& state, const std::string& tag) {
  const ojson* s = find_named(state.at("summaries"), "tag", tag);
  if (s == nullptr) throw std::runtime_error("no summary " + tag);
  const ojson* v = find_named(s->at("data"), "name", "value");
  return std::stod(v->at("value").get<std::string>());
}

TEST(NvbenchJson, TheFileHasNvbenchsLayout) {
  const ojson j = to_nvbench_json({h200_report()}, {{"version", "0.1.0"}});
  EXPECT_EQ(j["meta"]["version"]["json"]["string"], "1.0.0");
  EXPECT_EQ(j["meta"]["argv"][2], "perf");
  ASSERT_EQ(j["devices"].size(), 1u);
  const ojson& d = j["devices"][0];
  EXPECT_EQ(d["id"], 0);
  EXPECT_EQ(d["name"], "NVIDIA H200");
  EXPECT_EQ(d["sm_version"], 900);
  EXPECT_EQ(d["sm_default_clock_rate"], 1980000000);                      // Hz, as NVBench
  EXPECT_EQ(d["global_memory_bus_bandwidth"], 2LL * 3201000000LL * 752);  // bytes/s: DDR x bus bytes
  EXPECT_FALSE(d.contains("uuid"));           // not an NVBench field: two H200s compare as NVBench's would
  EXPECT_FALSE(d.contains("temperature_c"));  // a moving figure would make every pair of runs differ

  ASSERT_EQ(j["benchmarks"].size(), 1u);  // the check-only case is not a benchmark
  const ojson& bench = j["benchmarks"][0];
  EXPECT_EQ(bench["name"], "perf/topk");
  EXPECT_EQ(bench["devices"], ojson::array({0}));
  std::vector<std::string> names;
  for (const auto& a : bench["axes"]) names.push_back(a["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"B", "H", "S", "D", "density", "backend", "op"}));
  const ojson* s_axis = find_named(bench["axes"], "name", "S");
  EXPECT_EQ((*s_axis)["type"], "int64");
  ASSERT_EQ((*s_axis)["values"].size(), 2u);
  EXPECT_EQ((*s_axis)["values"][1]["value"], 16384);
  EXPECT_EQ((*s_axis)["values"][1]["input_string"], "16384");
  EXPECT_EQ((*find_named(bench["axes"], "name", "density"))["type"], "float64");
  EXPECT_EQ(bench["states"].size(), 2u * 2u * 2u);  // cases x backends x ops
}

TEST(NvbenchJson, AStateIsOneCaseBackendOpAndItsKeptPassesInSeconds) {
  const ojson j = to_nvbench_json({h200_report()}, {});
  const ojson* st = find_named(j["benchmarks"][0]["states"], "name",
                               "Device=0 B=1 H=8 S=4096 D=128 density=0.25 backend=sm90a op=fwd");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ((*st)["device"], 0);
  EXPECT_EQ((*st)["is_skipped"], false);
  const ojson& density = (*st)["axis_values"][4];
  EXPECT_EQ(density["name"], "density");
  EXPECT_EQ(density["value"], "0.25");  // a string, as NVBench writes axis values
  // The off-clock pass (3.60 ms) is not in the sample: mean of 4.14, 4.16, 4.18, 4.17 ms.
  EXPECT_EQ(summary_value(*st, "nv/cold/sample_size"), 4);
  EXPECT_NEAR(summary_value(*st, "nv/cold/time/gpu/mean"), 4.1625e-3, 1e-12);
  EXPECT_NEAR(summary_value(*st, "nv/cold/time/gpu/min"), 4.14e-3, 1e-12);
  EXPECT_NEAR(summary_value(*st, "nv/cold/time/gpu/median"), 4.165e-3, 1e-12);  // our median
  const double stdev =
      std::sqrt(((0.0225 * 0.0225) + (0.0025 * 0.0025) + (0.0175 * 0.0175) + (0.0075 * 0.0075)) / 3) * 1e-3;
  EXPECT_NEAR(summary_value(*st, "nv/cold/time/gpu/stdev/absolute"), stdev, 1e-12);
  EXPECT_NEAR(summary_value(*st, "nv/cold/time/gpu/stdev/relative"), stdev / 4.1625e-3, 1e-9);
  EXPECT_NEAR(summary_value(*st, "nv/cold/time/gpu/q1"), 4.16e-3, 1e-12);  // rank round(0.25 x 3) = 1
  EXPECT_NEAR(summary_value(*st, "nv/cold/time/gpu/q3"), 4.17e-3, 1e-12);  // rank round(0.75 x 3) = 2
  EXPECT_NEAR(summary_value(*st, "nv/cold/sm_clock_rate/mean"), (1590 + 1605 + 1590 + 1590) / 4.0 * 1e6, 1e-3);
  EXPECT_EQ(summary_value(*st, "vsa/time/gpu/median_interval/relative"), 0.01);
  EXPECT_EQ(summary_value(*st, "vsa/tflops"), 500);
  EXPECT_EQ(summary_value(*st, "vsa/passes"), 5);
  EXPECT_EQ(summary_value(*st, "vsa/off_clock_passes"), 1);
  const ojson* stop = find_named((*st)["summaries"], "tag", "vsa/sampling/stop");
  EXPECT_EQ((*stop)["data"][0]["value"], "converged");
  EXPECT_EQ(find_named((*st)["summaries"], "tag", "vsa/noise/reason"), nullptr);  // within its target
}

TEST(NvbenchJson, ABackendWithoutATimingIsASkippedStateWithItsReason) {
  const ojson j = to_nvbench_json({h200_report()}, {});
  const ojson* st = find_named(j["benchmarks"][0]["states"], "name",
                               "Device=0 B=1 H=8 S=16384 D=128 density=0.25 backend=sm100a op=bwd");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ((*st)["is_skipped"], true);
  EXPECT_EQ((*st)["skip_reason"], "SKIP: needs compute capability 10.0");
  EXPECT_TRUE((*st)["summaries"].empty());
}

TEST(NvbenchJson, OnePassHasNoNoiseEstimate) {
  Report r = h200_report();
  r.cases[0].backends[0].timings[1] = timing("bwd", {10}, {1980});
  r.cases[0].backends[0].timings[1].median_ms = 10;
  const ojson j = to_nvbench_json({r}, {});
  const ojson* st = find_named(j["benchmarks"][0]["states"], "name",
                               "Device=0 B=1 H=8 S=4096 D=128 density=0.25 backend=sm90a op=bwd");
  // NVBench's sentinel for "not enough samples": infinity, written as "inf".
  EXPECT_TRUE(std::isinf(summary_value(*st, "nv/cold/time/gpu/stdev/relative")));
  EXPECT_EQ(find_named((*st)["summaries"], "tag", "nv/cold/time/gpu/iqr/relative"), nullptr);
  EXPECT_NE(find_named((*st)["summaries"], "tag", "vsa/noise/reason"), nullptr);  // "one kept pass"
}

TEST(NvbenchJson, BenchmarkNamesDropTheSweepSegment) {
  EXPECT_EQ(nvbench_benchmark_name("perf/topk/S=4096,density=0.25"), "perf/topk");
  EXPECT_EQ(nvbench_benchmark_name("perf/topk-long/density=0.125"), "perf/topk-long");
  EXPECT_EQ(nvbench_benchmark_name("qualify/fast/perf-16k"), "qualify/fast/perf-16k");
  EXPECT_EQ(nvbench_benchmark_name("x/S=4096,odd"), "x/S=4096,odd");  // not all key=value: not a sweep
  EXPECT_EQ(nvbench_benchmark_name("S=4096"), "S=4096");
}

TEST(NvbenchJson, CasesWhoseAxesDoNotLineUpBecomeABenchmarkEach) {
  Report r = h200_report();
  r.cases[1].name = "perf/topk/kind=ragged";  // same benchmark name, another swept key
  const ojson j = to_nvbench_json({r}, {});
  ASSERT_EQ(j["benchmarks"].size(), 2u);
  EXPECT_EQ(j["benchmarks"][0]["name"], "perf/topk/S=4096,density=0.25");
  EXPECT_EQ(j["benchmarks"][1]["name"], "perf/topk/kind=ragged");
  const ojson* kind = find_named(j["benchmarks"][1]["axes"], "name", "kind");
  ASSERT_NE(kind, nullptr);
  EXPECT_EQ((*kind)["type"], "string");
}

TEST(NvbenchJson, ReportsOfSeveralGpusShareAFileButNotADeviceId) {
  const ojson j = to_nvbench_json({h200_report(0), h200_report(1)}, {});
  EXPECT_EQ(j["devices"].size(), 2u);
  EXPECT_EQ(j["benchmarks"][0]["devices"], ojson::array({0, 1}));
  EXPECT_EQ(j["benchmarks"][0]["states"].size(), 16u);
  EXPECT_NE(find_named(j["benchmarks"][0]["states"], "name",
                       "Device=1 B=1 H=8 S=4096 D=128 density=0.25 backend=sm90a op=fwd"),
            nullptr);
  EXPECT_THROW((void)to_nvbench_json({h200_report(0), h200_report(0)}, {}), NvbenchExportError);
}

// The committed H200 perf baseline (report schema 1: fixed passes, no off-clock record).
TEST(NvbenchJson, TheCommittedH200BaselineExports) {
  const ReportFile file = load_report_file(std::string(VSA_REPO_BASELINE_DIR) + "/h200-sm90a-run27.json");
  const ojson j = to_nvbench_json({file.report}, file.tool);
  ASSERT_EQ(j["benchmarks"].size(), 2u);
  EXPECT_EQ(j["benchmarks"][0]["name"], "perf/topk");
  EXPECT_EQ(j["benchmarks"][0]["states"].size(), 6u * 2u * 2u);
  EXPECT_EQ(j["benchmarks"][1]["name"], "perf/topk-long");
  EXPECT_EQ(j["benchmarks"][1]["states"].size(), 2u * 2u * 2u);
  // perf/topk/S=65536,density=0.125 sm90a fwd, as committed: pass medians 3.600..., 4.137...,
  // 4.162..., 4.178... ms; median 4.150 ms.
  const CaseResult* c = nullptr;
  for (const auto& k : file.report.cases)
    if (k.name == "perf/topk/S=65536,density=0.125") c = &k;
  ASSERT_NE(c, nullptr);
  const Timing& t = c->backends[0].timings[0];
  double mean = 0;
  for (double ms : t.pass_medians_ms) mean += ms * 1e-3 / double(t.pass_medians_ms.size());
  const ojson* st = find_named(j["benchmarks"][0]["states"], "name",
                               "Device=0 B=1 H=8 S=65536 D=128 density=0.125 backend=sm90a op=fwd");
  ASSERT_NE(st, nullptr);
  EXPECT_NEAR(summary_value(*st, "nv/cold/time/gpu/mean"), mean, 1e-15);
  EXPECT_NEAR(summary_value(*st, "nv/cold/time/gpu/median"), t.median_ms * 1e-3, 1e-15);
  EXPECT_NEAR(summary_value(*st, "vsa/tflops"), t.tflops, 1e-9);
  // ±14% at 4 fixed passes: a stated reason.
  EXPECT_NE(find_named((*st)["summaries"], "tag", "vsa/noise/reason"), nullptr);
}

}  // namespace
}  // namespace vsa
