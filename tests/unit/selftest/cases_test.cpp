// The planted-fault suite and the judging of its results (selftest/cases.hpp):
// the suite loads like any suite, every planted backend is a known name, and a row
// reads "detected" only when the expected check fired.
#include <gtest/gtest.h>

#include <algorithm>

#include "selftest/cases.hpp"
#include "suite/suite.hpp"
#include "vsa/registry.hpp"

namespace vsa {
namespace {

const PlantedCase& planted(const std::vector<PlantedCase>& cases, const std::string& backend) {
  for (const auto& c : cases)
    if (c.backend == backend) return c;
  throw std::logic_error("no planted case for " + backend);
}

CaseResult result_with(BackendResult b) {
  CaseResult r;
  r.name = "selftest/x";
  r.backends.push_back(std::move(b));
  return r;
}

BackendResult backend(const std::string& name, Verdict verdict, const std::string& reason = "") {
  BackendResult b;
  b.backend = name;
  b.verdict = verdict;
  b.reason = reason;
  return b;
}

TEST(SelftestCases, SuiteLoadsAndNamesOnlyKnownBackends) {
  const SelftestOptions options;
  const auto cases = planted_cases(options);
  const Suite suite = parse_suite(planted_suite(cases).dump(), "selftest");
  EXPECT_EQ(suite.name, kSelftestSuiteName);
  EXPECT_EQ(suite.cases.size(), cases.size() + 1);  // + the overlap race's no-probe control
  const auto known = known_backend_names();
  for (const auto& c : suite.cases)
    for (const auto& b : c.backends) EXPECT_NE(std::find(known.begin(), known.end(), b), known.end()) << b;
  EXPECT_NO_THROW((void)case_from_json(stream_case(), "selftest", "$.stream"));
}

TEST(SelftestCases, HangAndRaceCasesCarryTheirTriggers) {
  SelftestOptions options;
  options.hang_timeout_s = 7;
  options.probe_ns = 12345;
  options.race_runs = 11;
  const auto cases = planted_cases(options);
  const Suite suite = parse_suite(planted_suite(cases).dump(), "selftest");
  for (const auto& c : suite.cases) {
    if (c.backends[0] == "selftest-deadlock") {
      EXPECT_DOUBLE_EQ(c.timeout_s, 7);
      EXPECT_GT(c.pattern.zero_rows, 0.0) << "the hang needs zero-count rows";
    }
    if (c.name == "overlap-race-probe") {
      EXPECT_EQ(c.mode, Mode::stability);
      EXPECT_EQ(c.reference, "none");
      EXPECT_EQ(c.stability.runs, 11);
      EXPECT_EQ(c.probes.at("selftest.overlap"), 12345u);
    }
    if (c.name == "overlap-race-no-probe") {
      EXPECT_TRUE(c.probes.empty());
    }
  }
}

TEST(SelftestCases, FaultIsDetectedOnlyAsFault) {
  const auto cases = planted_cases(SelftestOptions{});
  const auto& oob = planted(cases, "selftest-oob");
  const CaseResult fault =
      result_with(backend("selftest-oob", kFault, "cudaErrorIllegalAddress: an illegal memory access"));
  EXPECT_EQ(judge_planted_case(oob, &fault, nullptr).outcome, kDetected);
  const CaseResult pass = result_with(backend("selftest-oob", kPass));
  EXPECT_EQ(judge_planted_case(oob, &pass, nullptr).outcome, kMissed);
  const CaseResult skip = result_with(backend("selftest-oob", kSkip, "no CUDA device"));
  const SelftestRow row = judge_planted_case(oob, &skip, nullptr);
  EXPECT_EQ(row.outcome, kNotRun);
  EXPECT_EQ(row.observed, "no CUDA device");
  EXPECT_EQ(judge_planted_case(oob, nullptr, nullptr).outcome, kMissed) << "a lost case is not a pass";
}

TEST(SelftestCases, AbortNeedsTheSignalAndHangNeedsHang) {
  const auto cases = planted_cases(SelftestOptions{});
  const CaseResult with_signal =
      result_with(backend("selftest-abort", kFault, "worker terminated by signal 6 (Aborted) during forward"));
  const CaseResult without = result_with(backend("selftest-abort", kFault, "worker exited with status 1"));
  EXPECT_EQ(judge_planted_case(planted(cases, "selftest-abort"), &with_signal, nullptr).outcome, kDetected);
  EXPECT_EQ(judge_planted_case(planted(cases, "selftest-abort"), &without, nullptr).outcome, kMissed);
  const CaseResult hang = result_with(backend("selftest-hang", kHang, "no answer within 10 s"));
  const CaseResult fault = result_with(backend("selftest-hang", kFault, "worker exited"));
  EXPECT_EQ(judge_planted_case(planted(cases, "selftest-hang"), &hang, nullptr).outcome, kDetected);
  EXPECT_EQ(judge_planted_case(planted(cases, "selftest-hang"), &fault, nullptr).outcome, kMissed);
}

TEST(SelftestCases, RaceNeedsStabilityMismatchesAndReportsTheControl) {
  const auto cases = planted_cases(SelftestOptions{});
  const auto& race = planted(cases, "selftest-overlap-race");
  BackendResult fired = backend("selftest-overlap-race", kFail, "o: runs differ");
  fired.stability.push_back({"o", 30, 29, 4096, 1.5, 0, false});
  fired.stability.push_back({"lse", 30, 0, 0, 0, 0, true});
  BackendResult quiet = backend("selftest-overlap-race", kPass);
  quiet.stability.push_back({"o", 30, 0, 0, 0, 0, true});
  const CaseResult with_probe = result_with(fired), control = result_with(quiet);
  const SelftestRow row = judge_planted_case(race, &with_probe, &control);
  EXPECT_EQ(row.outcome, kDetected);
  EXPECT_NE(row.observed.find("o: 29/29 runs differ"), std::string::npos) << row.observed;
  EXPECT_NE(row.observed.find("no probe: 0/29 runs differ in any output"), std::string::npos) << row.observed;
  const CaseResult no_fire = result_with(quiet);
  EXPECT_EQ(judge_planted_case(race, &no_fire, &control).outcome, kMissed);
}

TEST(SelftestCases, NanAndUnwrittenNeedTheirCounts) {
  const auto cases = planted_cases(SelftestOptions{});
  BackendResult nan = backend("selftest-nan", kFail, "o: NaN");
  TensorMetrics o;
  o.tensor = "o";
  o.nan_count = 1;
  nan.metrics.push_back(o);
  const CaseResult nan_result = result_with(nan);
  EXPECT_EQ(judge_planted_case(planted(cases, "selftest-nan"), &nan_result, nullptr).outcome, kDetected);
  // A FAIL for another reason (no unwritten elements counted) does not prove the unwritten check.
  BackendResult unwritten = backend("selftest-unwritten", kFail, "o: rel_max");
  unwritten.metrics.push_back(o);
  const CaseResult wrong_reason = result_with(unwritten);
  EXPECT_EQ(judge_planted_case(planted(cases, "selftest-unwritten"), &wrong_reason, nullptr).outcome, kMissed);
  unwritten.metrics[0].unwritten = 64;
  const CaseResult right_reason = result_with(unwritten);
  const SelftestRow row = judge_planted_case(planted(cases, "selftest-unwritten"), &right_reason, nullptr);
  EXPECT_EQ(row.outcome, kDetected);
  EXPECT_NE(row.observed.find("64 unwritten"), std::string::npos) << row.observed;
}

TEST(SelftestResultExit, SkipsDoNotFailMissesDo) {
  SelftestResult r;
  r.rows.push_back({"a", "x", "FAULT", "", kDetected});
  r.rows.push_back({"b", "y", "HANG", "no GPU", kNotRun});
  EXPECT_EQ(r.exit_code(), 0);
  r.rows.push_back({"c", "z", "lint", "", kMissed});
  EXPECT_EQ(r.exit_code(), 1);
}

// The TMEM overlap row reads "detected" only for a race naming both roles, both operations
// (instruction and protocol-script op) and the TMEM cell, and says the finding's seed.
TEST(SelftestCases, TmemOverlapNeedsTheWholeRaceReport) {
  const auto cases = planted_cases(SelftestOptions{});
  const PlantedCase& overlap = planted(cases, "selftest-model-tmem-overlap");
  const std::string race =
      "selftest-model-tmem-overlap backward: model: sm100a.bwd_blk64 CTA 0 (schedule seed 4): race in "
      "sm100a.bwd_blk64 CTA 0: TMEM lane 0 column 64: tcgen05.ld read by thread 0 (dsoftmax warp 0 lane 0) "
      "(before its wait::ld) at protocol op \"dP^T row (64 fp32) -> registers\" at step 4192, and tcgen05.mma "
      "(D accumulator) write by thread 288 (mma warp 9 lane 0) via the tensor core at protocol op \"dQ_i = dS_n K "
      "(M=64, N=128, K=64)\" at step 4396, with no happens-before order between them";
  const CaseResult found = result_with(backend("selftest-model-tmem-overlap", kFault, race));
  const SelftestRow row = judge_planted_case(overlap, &found, nullptr);
  EXPECT_EQ(row.outcome, kDetected);
  EXPECT_EQ(row.observed.rfind("FAULT: seed 4: race in sm100a.bwd_blk64 CTA 0: TMEM lane 0 column 64", 0), 0u)
      << row.observed;
  std::string other_race = race;
  other_race.replace(other_race.find("tcgen05.mma (D accumulator) write by thread 288 (mma warp 9"), 59,
                     "cp.async.bulk.tensor load write by thread 256 (producer warp 8");
  const CaseResult wrong = result_with(backend("selftest-model-tmem-overlap", kFault, other_race));
  EXPECT_EQ(judge_planted_case(overlap, &wrong, nullptr).outcome, kMissed) << other_race;
  std::string other_op = race;
  other_op.replace(other_op.find("dQ_i = dS_n K"), 13, "dV (+)= P^T_n dO");
  const CaseResult wrong_op = result_with(backend("selftest-model-tmem-overlap", kFault, other_op));
  EXPECT_EQ(judge_planted_case(overlap, &wrong_op, nullptr).outcome, kMissed) << other_op;
  const CaseResult passed = result_with(backend("selftest-model-tmem-overlap", kPass));
  EXPECT_EQ(judge_planted_case(overlap, &passed, nullptr).outcome, kMissed);
}

}  // namespace
}  // namespace vsa
