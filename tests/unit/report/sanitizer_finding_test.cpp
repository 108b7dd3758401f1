// compute-sanitizer's findings read from a report's "sanitizer" object (report/sanitizer_finding.hpp):
// what makes `sanitize` exit 1, so that fleet and the Markdown judge the report alone the same way.
#include "report/sanitizer_finding.hpp"

#include <gtest/gtest.h>

#include "report/report.hpp"

namespace vsa {
namespace {

using nlohmann::json;

json racecheck(int status, const json& result) {
  return {{"tool", "racecheck"}, {"exit_status", status}, {"result", result}};
}

TEST(SanitizerFinding, ACleanRunOrNoneSaysNothing) {
  EXPECT_EQ(sanitizer_finding(nullptr), "");
  EXPECT_EQ(sanitizer_finding(racecheck(0, {{"errors", nullptr}, {"hazards", 0}, {"hazard_errors", 0}})), "");
  EXPECT_EQ(sanitizer_finding(racecheck(0, json::object())), "");  // no summary line: counts as none
}

TEST(SanitizerFinding, HazardsErrorsOrTheErrorExitAreFindings) {
  EXPECT_EQ(sanitizer_finding(racecheck(86, {{"hazards", 4}, {"hazard_errors", 4}, {"hazard_warnings", 0}})),
            "compute-sanitizer racecheck: 4 hazards (4 errors, 0 warnings), exit status 86");
  json memcheck = racecheck(86, {{"errors", 2}});
  memcheck["tool"] = "memcheck";
  EXPECT_EQ(sanitizer_finding(memcheck), "compute-sanitizer memcheck: 2 errors, exit status 86");
  EXPECT_EQ(sanitizer_finding(racecheck(86, json::object())), "compute-sanitizer racecheck: errors, exit status 86");
}

TEST(SanitizerFinding, TheMarkdownSaysTheCasesVerdictsAreNotTheSanitizers) {
  Report r;
  r.complete = true;
  r.sanitizer = racecheck(86, {{"hazards", 4}, {"hazard_errors", 4}, {"hazard_warnings", 0}});
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("- verdict: **FAIL**, compute-sanitizer racecheck: 4 hazards"), std::string::npos) << md;
  r.sanitizer = racecheck(0, {{"hazards", 0}});
  EXPECT_EQ(render_markdown(r).find("- verdict:"), std::string::npos);
}

}  // namespace
}  // namespace vsa
