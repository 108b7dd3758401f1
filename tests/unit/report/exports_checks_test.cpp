// Node checks in what monitoring reads (report/exports.hpp): a speed floor's Prometheus series
// and JSON Lines row name the case, backend and op it judged, with the labels vsa_tflops uses,
// so an alert on a failed floor can be joined to the timing that failed it; a health gate's
// leave them empty. (tests/cli/exports.sh parses the whole files with real parsers.)
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/exports.hpp"
#include "synthetic_reports.hpp"

namespace vsa {
namespace {

using nlohmann::json;

Report report_with_checks() {
  ReportFile f = testing::synthetic_report({.host = "n1"});
  testing::add_timing(f.report, "qualify/perf-16k", "sm90a", "fwd", 400);
  NodeCheck floor{"floor qualify/perf-16k sm90a fwd", "floor", kFail, "VSA_E_SLOW_NODE", "slow", 400.0, nullptr};
  floor.case_name = "qualify/perf-16k";
  floor.backend = "sm90a";
  floor.op = "fwd";
  f.report.checks = {floor, {"health.xid", "xid", kPass, "VSA_OK", "none", nullptr, nullptr}};
  return f.report;
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) found.push_back(line);
  return found;
}

TEST(ExportsChecks, AFloorSeriesNamesItsTimingAsTheTflopsSeriesDoes) {
  const std::string prom = render_prometheus({report_with_checks()}, 1.8e9);
  const auto tflops = lines_starting(prom, "vsa_tflops{");
  ASSERT_EQ(tflops.size(), 1U);
  EXPECT_NE(tflops[0].find(R"(case="qualify/perf-16k",backend="sm90a",op="fwd")"), std::string::npos) << tflops[0];
  const auto checks = lines_starting(prom, "vsa_check{");
  ASSERT_EQ(checks.size(), 2U) << prom;
  EXPECT_NE(checks[0].find(R"(kind="floor",case="qualify/perf-16k",backend="sm90a",op="fwd",verdict="FAIL")"),
            std::string::npos)
      << checks[0];
  EXPECT_NE(checks[1].find(R"(kind="xid",case="",backend="",op="",verdict="PASS")"), std::string::npos) << checks[1];
}

TEST(ExportsChecks, AFloorRowNamesItsTimingAndAHealthRowDoesNot) {
  std::vector<json> checks;
  std::istringstream in(render_jsonl({report_with_checks()}));
  for (std::string line; std::getline(in, line);) {
    const json row = json::parse(line);
    if (row["kind"] == "check") checks.push_back(row);
  }
  ASSERT_EQ(checks.size(), 2U);
  EXPECT_EQ(checks[0]["check_kind"], "floor");
  EXPECT_EQ(checks[0]["case"], "qualify/perf-16k");
  EXPECT_EQ(checks[0]["backend"], "sm90a");
  EXPECT_EQ(checks[0]["op"], "fwd");
  EXPECT_EQ(checks[1]["check_kind"], "xid");
  for (const char* key : {"case", "backend", "op"}) EXPECT_FALSE(checks[1].contains(key)) << key;
}

}  // namespace
}  // namespace vsa
