// The speed floor of qualify (qualify/floors.hpp): derived from baseline reports by a
// stated rule, FAIL below it with the figure and the floor, a stated SKIP (never a pass)
// for a GPU model without one, and the committed table traces to committed reports.
#include "qualify/floors.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <vector>

#include "model/exit_codes.hpp"
#include "qualify/check_codes.hpp"
#include "qualify/node_checks.hpp"
#include "synthetic_reports.hpp"

namespace vsa {
namespace {

using nlohmann::json;
using testing::add_timing;
using testing::synthetic_report;

const json kSpec = {{"name", "qualify/fast/perf-16k"},
                    {"mode", "perf"},
                    {"op", "both"},
                    {"B", 1},
                    {"H", 8},
                    {"S", 16384},
                    {"D", 128},
                    {"blk", 64},
                    {"pattern", {{"kind", "topk"}, {"density", 0.25}}},
                    {"vbs", {{"kind", "full"}}},
                    {"scale", 1.0},
                    {"seed", 3},
                    {"probes", json::object()},
                    {"timing", {{"passes", 2}, {"l2_flush", false}, {"min_pass_ms", 0}}}};

ReportFile timed(const std::string& host, double tflops, double spread, const json& spec = kSpec) {
  auto f = synthetic_report({.host = host});
  f.report.device["sm_clock_max_mhz"] = 1980;
  f.path = host + ".json";
  add_timing(f.report, spec["name"], "sm90a", "fwd", tflops, spread);
  f.report.cases.back().spec = spec;
  return f;
}

TEST(Floors, DerivedFromTheBaselineMedianLessMarginAndSpread) {
  const FloorTable t = derive_floors({timed("a", 600, 0.01), timed("b", 590, 0.02), timed("c", 610, 0.005)}, 0.10);
  ASSERT_EQ(t.floors.size(), 1u);
  const Floor& f = t.floors[0];
  EXPECT_EQ(f.gpu, (GpuModel{"NVIDIA H200", 132, 1980}));
  EXPECT_DOUBLE_EQ(f.baseline_median, 600);
  EXPECT_DOUBLE_EQ(f.baseline_spread, 20.0 / 600);  // between samples beats each one's own
  EXPECT_DOUBLE_EQ(f.floor, 600 * (1 - 0.10 - 20.0 / 600));
  EXPECT_EQ(f.samples.size(), 3u);
  EXPECT_EQ(f.samples[1].report, "b.json");
  EXPECT_THROW((void)derive_floors({}, 1.0), std::invalid_argument);
}

// A baseline timed beside another process's CUDA context (report/shared_gpu.hpp) is not the
// GPU model's speed: it gives no sample.
TEST(Floors, ASharedBaselineTimingIsNotASample) {
  ReportFile shared = timed("shared", 480, 0.004);
  shared.report.cases.back().backends.back().timings.back().clocks = {
      {{"pass", 0}, {"before", {{"compute_pids", {101, 202}}}}, {"after", {{"compute_pids", {101, 202}}}}}};
  const FloorTable t = derive_floors({timed("a", 600, 0.0), shared}, 0.10);
  ASSERT_EQ(t.floors.size(), 1u);
  ASSERT_EQ(t.floors[0].samples.size(), 1u);
  EXPECT_EQ(t.floors[0].samples[0].report, "a.json");
  EXPECT_DOUBLE_EQ(t.floors[0].baseline_median, 600);
}

// A node that did not qualify is no baseline: a run that failed a node check (here another
// process on the GPU, seen by the idle reading, which leaves the timings themselves unmarked)
// or did not finish gives no sample, and is named with the reason.
TEST(Floors, AReportThatDidNotQualifyOrFinishIsLeftOutWithItsReason) {
  ReportFile neighbour = timed("neighbour", 310, 0.004);
  neighbour.report.exit_code = 1;
  NodeCheck shared;
  shared.name = "health.exclusive";
  shared.verdict = kFail;
  shared.code = "VSA_E_SHARED_GPU";
  neighbour.report.checks.push_back(shared);
  ReportFile cut = timed("cut", 300, 0.0);
  cut.report.complete = false;
  const FloorTable t = derive_floors({timed("a", 600, 0.0), neighbour, cut}, 0.10);
  ASSERT_EQ(t.floors.size(), 1u);
  ASSERT_EQ(t.floors[0].samples.size(), 1u);
  EXPECT_EQ(t.floors[0].samples[0].report, "a.json");
  ASSERT_EQ(t.left_out.size(), 2u);
  EXPECT_EQ(t.left_out[0], "neighbour.json: its run exited 1, not 0 (health.exclusive VSA_E_SHARED_GPU)");
  EXPECT_EQ(t.left_out[1], "cut.json: incomplete (the run did not finish)");
  EXPECT_EQ(t.sources.size(), 1u);
}

// A run given twice (a file and the folder that holds it) would pull the median towards itself;
// a report whose GPU model is unknown cannot say which floor it is a sample of. Both are named.
TEST(Floors, ARunGivenTwiceCountsOnceAndAnUnknownGpuModelIsNamed) {
  ReportFile copy = timed("a", 600, 0.0);
  copy.path = "results/a.json";
  ReportFile unknown = timed("u", 100, 0.0);
  unknown.report.device["sm_clock_max_mhz"] = nullptr;  // NVML missing on that node
  const FloorTable t = derive_floors({timed("a", 600, 0.0), copy, timed("b", 580, 0.0), unknown}, 0.10);
  ASSERT_EQ(t.floors.size(), 1u);
  EXPECT_EQ(t.floors[0].samples.size(), 2u);
  EXPECT_DOUBLE_EQ(t.floors[0].baseline_median, 590);
  ASSERT_EQ(t.left_out.size(), 2u);
  EXPECT_EQ(t.left_out[0], "results/a.json: the same run as a.json, counted once");
  EXPECT_EQ(t.left_out[1], "u.json: its GPU model is unknown (device name, sm_count or sm_clock_max_mhz missing)");
  EXPECT_EQ(t.sources.size(), 2u);
  // Two GPUs of one run without UUIDs (NVML missing): the same node and times, two GPUs.
  ReportFile gpu0 = timed("n", 600, 0.0), gpu1 = timed("n", 580, 0.0);
  for (ReportFile* g : {&gpu0, &gpu1}) g->report.device.erase("uuid");
  gpu1.report.device["cuda_ordinal"] = 1;
  gpu1.report.device["pci_bus_id"] = "00000000:11:00.0";
  gpu1.path = "n-gpu1.json";
  EXPECT_EQ(derive_floors({gpu0, gpu1}, 0.10).floors[0].samples.size(), 2u);
}

TEST(Floors, BelowTheFloorFailsWithTheFigureAndTheFloor) {
  const FloorTable t = derive_floors({timed("base", 600, 0.0)}, 0.10);  // floor 540
  auto slow = timed("slow", 450, 0.01);
  const auto checks = floor_checks(slow.report, t);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].verdict, kFail);
  EXPECT_EQ(checks[0].code, kCodeSlowNode);
  EXPECT_NE(checks[0].reason.find("450 TFLOPS is below the floor 540"), std::string::npos) << checks[0].reason;
  EXPECT_NE(checks[0].reason.find("base.json"), std::string::npos) << checks[0].reason;
  auto fine = timed("fine", 560, 0.01);
  EXPECT_EQ(floor_checks(fine.report, t)[0].verdict, kPass);
  EXPECT_EQ(floor_checks(fine.report, t)[0].code, kCodeCheckOk);
}

TEST(Floors, AnotherGpuModelOrWorkloadIsAStatedSkipNotAPass) {
  const FloorTable t = derive_floors({timed("base", 600, 0.0)}, 0.10);
  auto other = timed("h100", 100, 0.01);
  other.report.device["name"] = "NVIDIA H100 80GB HBM3";
  auto c = floor_checks(other.report, t);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].verdict, kSkip);
  EXPECT_EQ(c[0].code, kCodeNoFloor);
  EXPECT_NE(c[0].reason.find("no floor for NVIDIA H100 80GB HBM3, 132 SMs, 1980 MHz"), std::string::npos)
      << c[0].reason;
  auto capped = timed("capped", 100, 0.01);  // same name, a lower clock limit: another model
  capped.report.device["sm_clock_max_mhz"] = 1600;
  EXPECT_EQ(floor_checks(capped.report, t)[0].verdict, kSkip);
  json bigger = kSpec;
  bigger["S"] = 65536;
  EXPECT_EQ(floor_checks(timed("x", 100, 0.01, bigger).report, t)[0].verdict, kSkip);
  json seeded = kSpec;  // the seed does not change the workload
  seeded["seed"] = 99;
  EXPECT_EQ(floor_checks(timed("y", 100, 0.01, seeded).report, t)[0].verdict, kFail);
}

// --require-floors: the same unjudged timing FAILs, keeping its code and saying why; a judged
// one is untouched.
TEST(Floors, RequiredFloorsFailWhatNoFloorJudged) {
  const FloorTable t = derive_floors({timed("base", 600, 0.0)}, 0.10);
  auto other = timed("h100", 100, 0.01);
  other.report.device["name"] = "NVIDIA H100 80GB HBM3";
  auto c = floor_checks(other.report, t);
  auto fine = floor_checks(timed("fine", 560, 0.01).report, t);
  c.insert(c.end(), fine.begin(), fine.end());
  require_floors(other.report, c);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].verdict, kFail);
  EXPECT_EQ(c[0].code, kCodeNoFloor);
  EXPECT_EQ(c[0].reason.rfind("--require-floors: nothing judged this timing's speed: no floor for NVIDIA H100", 0), 0u)
      << c[0].reason;
  EXPECT_EQ(c[1].verdict, kPass);
  // Through node_checks, as `run --require-floors` calls it; off, the same check is a SKIP.
  const auto required = node_checks(other.report, t, HealthRecord{}, {}, true);
  ASSERT_FALSE(required.empty());
  EXPECT_EQ(required[0].verdict, kFail);
  EXPECT_EQ(node_checks(other.report, t, HealthRecord{}, {}, false)[0].verdict, kSkip);
  EXPECT_EQ(exit_code_with_checks(0, required), kExitCheckFailed);
}

// --require-floors leaves no way to pass on speed nothing judged: a timed backend that SKIPped
// FAILs, and so does a run where no floor judged anything; a SKIPped reference does not.
TEST(Floors, RequiredFloorsFailASkippedBackendAndARunWithNothingJudged) {
  const FloorTable t = derive_floors({timed("base", 600, 0.0)}, 0.10);
  auto r = timed("node", 560, 0.01);
  CaseResult& c = r.report.cases.back();
  c.reference = "cuda-ref";
  testing::backend_named(c, "sm90a-det").verdict = kSkip;
  testing::backend_named(c, "sm90a-det").reason = "not built";
  testing::backend_named(c, "cuda-ref").verdict = kSkip;
  auto checks = floor_checks(r.report, t);
  require_floors(r.report, checks);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].verdict, kPass);  // sm90a, judged
  EXPECT_EQ(checks[1].verdict, kFail);
  EXPECT_EQ(checks[1].name, "floor qualify/fast/perf-16k sm90a-det");
  EXPECT_EQ(checks[1].reason, "--require-floors: sm90a-det SKIPped (not built), so nothing judged its speed");
  std::vector<NodeCheck> none;
  auto untimed = timed("untimed", 560, 0.01);
  untimed.report.cases.back().spec["mode"] = "correctness";
  require_floors(untimed.report, none);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].name, "floor (any)");
  EXPECT_EQ(none[0].verdict, kFail);
}

TEST(Floors, SustainedPassMustHoldTheClock) {
  json spec = kSpec;
  spec["name"] = "qualify/fast/sustained-16k";
  spec["timing"]["min_pass_ms"] = 3000;
  auto with_clock = [&](const std::string& host, double tflops, double mean_mhz) {
    auto f = timed(host, tflops, 0, spec);
    f.report.cases.back().backends.back().timings.back().clocks = json::array(
        {{{"pass", 0}, {"during", {{"sm_clock_mhz", {{"min", mean_mhz - 50}, {"mean", mean_mhz}, {"max", 1980}}}}}}});
    return f;
  };
  const FloorTable t = derive_floors({with_clock("b1", 510, 1570), with_clock("b2", 505, 1530)}, 0.10);
  ASSERT_EQ(t.floors.size(), 2u);
  auto hot = with_clock("hot", 505, 1200);  // its TFLOPS still meet the floor
  const auto checks = floor_checks(hot.report, t);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].kind, "floor");
  EXPECT_EQ(checks[0].verdict, kPass);
  EXPECT_EQ(checks[1].kind, "clock_hold");
  EXPECT_EQ(checks[1].verdict, kFail);
  EXPECT_EQ(checks[1].code, kCodeClockHold);
  EXPECT_NE(checks[1].reason.find("1200 MHz"), std::string::npos) << checks[1].reason;
  EXPECT_EQ(floor_checks(with_clock("ok", 505, 1500).report, t)[1].verdict, kPass);
}

// Review of 2026-12-06: a baseline's sustained pass braked to 1200 MHz and marked off-clock
// was left out of its TFLOPS median but not of the clock floor, which fell from 1431 to 1080
// MHz. The floor reads the passes the median came from; a node is judged on all of its passes.
TEST(Floors, AnOffClockBaselinePassDoesNotLowerTheClockFloor) {
  json spec = kSpec;
  spec["name"] = "qualify/fast/sustained-16k";
  spec["timing"]["min_pass_ms"] = 3000;
  auto with_clocks = [&](const std::string& host, const std::vector<double>& means, std::optional<int> off) {
    auto f = timed(host, 510, 0, spec);
    Timing& t = f.report.cases.back().backends.back().timings.back();
    t.clocks = json::array();
    for (std::size_t i = 0; i < means.size(); ++i)
      t.clocks.push_back({{"pass", i}, {"during", {{"sm_clock_mhz", {{"mean", means[i]}}}}}});
    if (off) t.off_clock_passes.push_back({*off, means[std::size_t(*off)], 1570, 1590});
    return f;
  };
  const FloorTable t = derive_floors({with_clocks("b1", {1590, 1200, 1570}, 1)}, 0.10);
  const Floor* clock = nullptr;
  for (const auto& f : t.floors)
    if (f.metric == "sustained_sm_clock_mhz") clock = &f;
  ASSERT_NE(clock, nullptr);
  EXPECT_DOUBLE_EQ(clock->baseline_median, 1570);  // the weakest kept pass, not the braked one
  const auto checks = floor_checks(with_clocks("node", {1590, 1200, 1570}, 1).report, t);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[1].kind, "clock_hold");
  EXPECT_EQ(checks[1].verdict, kFail) << "a node's braked pass still fails its clock hold";
}

// Review of 2026-12-06: a baseline spread of 95% derived floors of 0, which pass every node and
// count as judged under --require-floors; and a loaded table's floor was taken as written.
TEST(Floors, AFloorOfZeroIsNoFloorAndALoadedFloorMustFollowFromItsSamples) {
  const FloorTable noisy = derive_floors({timed("a", 600, 0.95)}, 0.10);
  EXPECT_TRUE(noisy.floors.empty());
  ASSERT_EQ(noisy.left_out.size(), 1u);
  EXPECT_NE(noisy.left_out[0].find("no floor, the baseline spread 95% leaves nothing above 0 at margin 10%"),
            std::string::npos)
      << noisy.left_out[0];
  const FloorTable t = derive_floors({timed("a", 600, 0.01)}, 0.10);
  json lowered = to_json(t);
  lowered["floors"][0]["floor"] = 1.0;
  try {
    (void)floor_table_from_json(lowered, "t.json");
    FAIL() << "accepted a hand-lowered floor";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("t.json: $.floors[0]: floor 1 (median 600, spread 1%) is not what its samples "
                                         "give at margin 10%: floor 534"),
              std::string::npos)
        << e.what();
  }
  json zero = to_json(t);
  zero["margin"] = 0.0;
  zero["floors"][0]["samples"][0]["spread"] = 1.0;
  zero["floors"][0]["baseline_spread"] = 1.0;
  zero["floors"][0]["floor"] = 0.0;
  EXPECT_THROW((void)floor_table_from_json(zero, "t.json"), std::invalid_argument);
}

// A timing check says what it judged in fields, not only in its name (a case name may hold
// spaces): floor and clock hold alike, and a --require-floors failure for an untimed backend.
// The fields travel in the report's JSON; a health gate has none.
TEST(Floors, TimingChecksNameTheirCaseBackendAndOpInFields) {
  json spec = kSpec;
  spec["name"] = "sustained 16k, two words";
  spec["timing"]["min_pass_ms"] = 3000;
  auto r = timed("node", 560, 0.01, spec);
  r.report.cases.back().backends.back().timings.back().clocks =
      json::array({{{"pass", 0}, {"during", {{"sm_clock_mhz", {{"min", 1900}, {"mean", 1950}, {"max", 1980}}}}}}});
  CaseResult& c = r.report.cases.back();
  c.reference = "cuda-ref";
  testing::backend_named(c, "sm90a-det").verdict = kSkip;
  auto checks = floor_checks(r.report, derive_floors({}, 0.10));
  require_floors(r.report, checks);
  ASSERT_EQ(checks.size(), 4u);  // no floor judged anything: "floor (any)" last, naming no timing
  EXPECT_EQ(checks[3].name, "floor (any)");
  EXPECT_EQ(checks[3].case_name + checks[3].backend + checks[3].op, "");
  checks.pop_back();
  for (const auto& k : checks) {
    EXPECT_EQ(k.case_name, "sustained 16k, two words") << k.name;
    EXPECT_EQ(k.name.rfind(k.kind + " " + k.case_name + " " + k.backend, 0), 0u) << k.name;
  }
  EXPECT_EQ(checks[0].kind, "floor");
  EXPECT_EQ(checks[1].kind, "clock_hold");
  for (int i : {0, 1}) {
    EXPECT_EQ(checks[i].backend, "sm90a");
    EXPECT_EQ(checks[i].op, "fwd");
  }
  EXPECT_EQ(checks[2].backend, "sm90a-det");
  EXPECT_EQ(checks[2].op, "");  // never timed
  const json j = checks[0];
  EXPECT_EQ(j["case"], "sustained 16k, two words");
  EXPECT_EQ(j["backend"], "sm90a");
  EXPECT_EQ(j["op"], "fwd");
  EXPECT_FALSE(json(checks[2]).contains("op"));
  EXPECT_EQ(j.get<NodeCheck>().case_name, "sustained 16k, two words");
  const json health = NodeCheck{"health.xid", "xid", kPass, "VSA_OK", "none", nullptr, nullptr};
  for (const char* key : {"case", "backend", "op"}) EXPECT_FALSE(health.contains(key)) << key;
}

TEST(Floors, TableRoundTripsAndBadTablesNameTheField) {
  const FloorTable t = derive_floors({timed("a", 600, 0.01)}, 0.10);
  const FloorTable back = floor_table_from_json(to_json(t), "t.json");
  ASSERT_EQ(back.floors.size(), 1u);
  EXPECT_DOUBLE_EQ(back.floors[0].floor, t.floors[0].floor);
  json bad = to_json(t);
  bad["floors"][0].erase("floor");
  try {
    (void)floor_table_from_json(bad, "t.json");
    FAIL() << "accepted a floor without a value";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("t.json: $.floors[0].floor: missing"), std::string::npos) << e.what();
  }
  json untraced = to_json(t);
  untraced["floors"][0]["samples"] = json::array();  // a hand-typed number: no report behind it
  EXPECT_THROW((void)floor_table_from_json(untraced, "t.json"), std::invalid_argument);
  // A sample's fields by their path too (review of 2026-12-06: a raw nlohmann type error).
  for (const auto& [key, value] : {std::pair<std::string, json>{"case", 5}, {"spread", "wide"}, {"value", nullptr}}) {
    json wrong = to_json(t);
    wrong["floors"][0]["samples"][0][key] = value;
    try {
      (void)floor_table_from_json(wrong, "t.json");
      ADD_FAILURE() << "accepted samples[0]." << key;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("t.json: $.floors[0].samples[0]." + key + ": wrong type", 0), 0U)
          << e.what();
    }
  }
}

// Every committed floor names committed reports, and regenerating from them gives the
// same table: no number in suites/floors/floors.json that a report does not hold.
TEST(Floors, BuiltinTableTracesToCommittedReports) {
  const FloorTable& t = builtin_floors();
  ASSERT_FALSE(t.floors.empty());
  const std::filesystem::path root = std::filesystem::path(VSA_REPO_BASELINE_DIR).parent_path().parent_path();
  std::vector<ReportFile> sources;
  for (const auto& s : t.sources) {
    const auto path = root / s.at("path").get<std::string>();
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    ReportFile f = load_report_file(path.string());
    f.path = s.at("path").get<std::string>();
    sources.push_back(f);
  }
  EXPECT_EQ(to_json(derive_floors(sources, t.margin)), to_json(t));
  // Each committed baseline meets its own floor (the rule leaves room for its spread).
  for (const auto& f : sources)
    for (const auto& c : floor_checks(f.report, t))
      if (c.kind == "floor") {
        EXPECT_EQ(c.verdict, kPass) << c.name << ": " << c.reason;
      }
}

// The committed H200 qualify baseline, run again on a node at half its speed, fails.
TEST(Floors, HalfSpeedH200FailsTheBuiltinFloor) {
  ReportFile f = load_report_file(std::string(VSA_REPO_BASELINE_DIR) + "/h200-qualify.json");
  for (auto& c : f.report.cases)
    for (auto& b : c.backends)
      for (auto& t : b.timings) t.tflops /= 2;
  int failed = 0;
  for (const auto& c : floor_checks(f.report, builtin_floors())) failed += c.kind == "floor" && c.verdict == kFail;
  EXPECT_GE(failed, 3);
}

}  // namespace
}  // namespace vsa
