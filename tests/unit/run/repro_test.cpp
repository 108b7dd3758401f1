// Repro bundles (run/repro.hpp): a report's case becomes a one-case suite that
// loads exactly like the original case, carries its origin, and names bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run/repro.hpp"
#include "suite/suite.hpp"
#include "scratch_dir.hpp"

namespace vsa {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ReproBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    const Suite s = parse_suite(R"({"name": "t", "cases": [
        {"name": "small", "B": 1, "H": 2, "S": 256, "D": 32, "seed": 42, "scale": 4,
         "pattern": {"kind": "ragged", "density": 0.5, "zero_rows": 0.25},
         "probes": {"sm90a.release": 500}, "backends": ["cpu-ref", "cuda-ref"]},
        {"name": "small-2", "S": 128, "D": 32, "backends": ["cpu-ref"]}]})",
                                "t.json");
    json cases = json::array();
    for (const auto& c : s.cases)
      cases.push_back(
          {{"name", "t/" + c.name},
           {"spec", to_json(c)},
           {"verdict", "FAIL"},
           {"message", ""},
           {"backends", json::array({{{"backend", "cuda-ref"}, {"verdict", "FAIL"}, {"reason", "o: rel_max"}}})}});
    cases[0]["spec"]["name"] = "t/small";
    cases[1]["spec"]["name"] = "t/small-2";
    m_report = (m_dir / "report.json").string();
    std::ofstream(m_report) << json{
        {"schema", "vsa-bench/report"},
        {"started_at", "2026-11-29T10:00:00Z"},
        {"node", {{"hostname", "node17"}}},
        {"device", {{"name", "NVIDIA H200"}, {"vbios_version", "96.00.A5.00.1A"}}},
        {"cases", cases}}.dump();
    m_original = s.cases[0];
  }

  test::ScratchDir m_scratch{"repro-test"};
  fs::path m_dir = m_scratch.path();
  std::string m_report;
  CaseSpec m_original;
};

std::string error_of(const std::string& report, const std::string& name) {
  try {
    (void)make_repro_bundle(report, name);
  } catch (const SuiteError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST_F(ReproBundle, RoundTripsTheCaseAndKeepsItsOrigin) {
  const json bundle = make_repro_bundle(m_report, "t/small");
  EXPECT_EQ(bundle.at("name"), "repro-t-small");
  EXPECT_EQ(bundle.at("origin").at("node").at("hostname"), "node17");
  EXPECT_EQ(bundle.at("origin").at("device").at("vbios_version"), "96.00.A5.00.1A");
  EXPECT_EQ(bundle.at("origin").at("verdict"), "FAIL");
  const Suite s = parse_suite(bundle.dump(), "bundle.json");
  EXPECT_EQ(s.origin.at("case"), "t/small");
  ASSERT_EQ(s.cases.size(), 1u);
  const CaseSpec& c = s.cases[0];
  json again = to_json(c);
  json original = to_json(m_original);
  again.erase("name");
  original.erase("name");
  EXPECT_EQ(again, original) << "seeds, shape, pattern, probes and tolerances must survive the bundle";
}

TEST_F(ReproBundle, FindsAUniqueSubstringAndRefusesAmbiguousOrMissingNames) {
  EXPECT_EQ(make_repro_bundle(m_report, "small-2").at("cases")[0].at("name"), "t/small-2");
  EXPECT_EQ(make_repro_bundle(m_report, "t/small").at("cases")[0].at("name"), "t/small") << "exact name wins";
  EXPECT_NE(error_of(m_report, "sma").find("matches 2 cases"), std::string::npos) << error_of(m_report, "sma");
  EXPECT_NE(error_of(m_report, "nope").find("no case named \"nope\""), std::string::npos);
  EXPECT_NE(error_of((m_dir / "missing.json").string(), "x").find("cannot read"), std::string::npos);
  const std::string not_report = (m_dir / "suite.json").string();
  std::ofstream(not_report) << R"({"cases": []})";
  EXPECT_NE(error_of(not_report, "x").find("not a vsa-bench report"), std::string::npos);
}

// Review of 2026-12-06: a field of the wrong type reached nlohmann's own error (exit 4, no
// file); a 250-letter case name ran, and its repro suite's file name was too long to write.
TEST_F(ReproBundle, AMalformedReportIsNamedAndALongCaseNameStillMakesAFileName) {
  json report = json::parse(std::ifstream(m_report));
  report["cases"][1]["backends"][0]["backend"] = 5;
  const std::string bad = (m_dir / "bad.json").string();
  std::ofstream(bad) << report.dump();
  // ... and without nlohmann's "[json.exception.type_error.302] " prefix (review of the same day).
  EXPECT_EQ(error_of(bad, "small-2").rfind(bad + ": malformed report, type must be string, but is number", 0), 0U)
      << error_of(bad, "small-2");
  report = json::parse(std::ifstream(m_report));
  report["node"] = "x";
  std::ofstream(bad) << report.dump();
  EXPECT_EQ(error_of(bad, "small-2").rfind(bad + ": malformed report, ", 0), 0U) << error_of(bad, "small-2");

  report = json::parse(std::ifstream(m_report));
  const std::string long_name = "t/" + std::string(250, 'n');
  report["cases"][1]["name"] = long_name;
  report["cases"][1]["spec"]["name"] = long_name;
  std::ofstream(bad) << report.dump();
  const std::string name = make_repro_bundle(bad, long_name).at("name");
  EXPECT_LE(name.size() + std::string(".suite.json").size(), 255U) << name;
  EXPECT_EQ(name.rfind("repro-t-nnnn", 0), 0U) << name;
  report["cases"][1]["name"] = long_name + "x";  // another long name: another file
  report["cases"][1]["spec"]["name"] = long_name + "x";
  std::ofstream(bad) << report.dump();
  EXPECT_NE(make_repro_bundle(bad, long_name + "x").at("name"), name);
}

TEST_F(ReproBundle, WritesABundleFileThatLoadsAsASuite) {
  ReproOptions o;
  o.report = m_report;
  o.case_name = "small-2";
  o.bundle = (m_dir / "out" / "bundle.json").string();
  const ReproOutcome outcome = run_repro(o);
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_NE(outcome.text.find("vsa-bench run " + o.bundle), std::string::npos) << outcome.text;
  const Suite s = load_suite(o.bundle);
  ASSERT_EQ(s.cases.size(), 1u);
  EXPECT_EQ(s.cases[0].name, "t/small-2");
}

// A report case whose backend names schedules: `backends` of the case replaced.
std::string report_with_schedules(const fs::path& dir, const std::string& base_report, const json& schedules) {
  json doc = json::parse(std::ifstream(base_report));
  doc["cases"][0]["spec"]["schedules"] = 100;
  doc["cases"][0]["backends"] = json::array(
      {{{"backend", "cpu-ref"}, {"verdict", "PASS"}, {"reason", ""}},
       {{"backend", "sm100a-blk64@model"}, {"verdict", "FAULT"}, {"reason", "race ..."}, {"schedules", schedules}}});
  const std::string path = (dir / "scheduled.json").string();
  std::ofstream(path) << doc.dump();
  return path;
}

TEST_F(ReproBundle, ReplaysTheScheduleSeedOfAFinding) {
  const std::string report = report_with_schedules(
      m_dir, m_report, {{"count", 100}, {"first_seed", 1}, {"finding_seed", 37}, {"baseline_seed", nullptr}});
  const json bundle = make_repro_bundle(report, "t/small");
  const Suite s = parse_suite(bundle.dump(), "bundle.json");
  ASSERT_EQ(s.cases.size(), 1u);
  EXPECT_EQ(s.cases[0].schedules, 1);
  EXPECT_EQ(s.cases[0].schedule_seed, 37u);
  EXPECT_EQ(bundle.at("origin").at("schedule_replay").at("backend"), "sm100a-blk64@model");
  EXPECT_NE(bundle.at("description").get<std::string>().find("replays the schedule seed 37"), std::string::npos);
  // An output that differed between two schedules: both are replayed, in order.
  const std::string dependent = report_with_schedules(
      m_dir, m_report, {{"count", 100}, {"first_seed", 1}, {"finding_seed", 4}, {"baseline_seed", 1}});
  const Suite d = parse_suite(make_repro_bundle(dependent, "t/small").dump(), "bundle.json");
  EXPECT_EQ(d.cases[0].schedules, 4);
  EXPECT_EQ(d.cases[0].schedule_seed, 1u);
  // No finding: the case as it ran, its 100 schedules included.
  const std::string passed = report_with_schedules(
      m_dir, m_report, {{"count", 100}, {"first_seed", 1}, {"finding_seed", nullptr}, {"baseline_seed", nullptr}});
  const json quiet = make_repro_bundle(passed, "t/small");
  EXPECT_EQ(parse_suite(quiet.dump(), "bundle.json").cases[0].schedules, 100);
  EXPECT_TRUE(quiet.at("origin").at("schedule_replay").is_null());
  // A report that is not self-consistent is bad input.
  const std::string bad = report_with_schedules(
      m_dir, m_report, {{"count", 100}, {"first_seed", 1}, {"finding_seed", 4}, {"baseline_seed", 9}});
  EXPECT_NE(error_of(bad, "t/small").find("baseline_seed 9 after finding_seed 4"), std::string::npos)
      << error_of(bad, "t/small");
  const std::string junk = report_with_schedules(m_dir, m_report, {{"finding_seed", "x"}});
  EXPECT_NE(error_of(junk, "t/small").find("unreadable schedules"), std::string::npos) << error_of(junk, "t/small");
}

TEST(SuiteOrigin, OnlyAnObjectAndOtherTopLevelFieldsStayRejected) {
  const std::string cases = R"("cases": [{"name": "a", "S": 128, "D": 32, "backends": ["cpu-ref"]}])";
  EXPECT_NO_THROW((void)parse_suite("{\"origin\": {\"node\": \"x\"}, " + cases + "}", "t.json"));
  EXPECT_THROW((void)parse_suite("{\"origin\": \"node x\", " + cases + "}", "t.json"), SuiteError);
  EXPECT_THROW((void)parse_suite("{\"origins\": {}, " + cases + "}", "t.json"), SuiteError);
}

}  // namespace
}  // namespace vsa
