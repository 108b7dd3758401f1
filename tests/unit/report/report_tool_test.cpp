// A report read back keeps its author (report/report.hpp, Report::tool): rendering it again, or
// writing it out, names the binary that measured it, not the one rendering it.
#include <gtest/gtest.h>

#include <string>

#include "report/report.hpp"

namespace vsa {
namespace {

nlohmann::json written_by(const std::string& name, const std::string& sha, const std::string& toolkit) {
  Report r;
  r.label = "old";
  nlohmann::json j = to_json(r);
  j["tool"] = {{"name", name},          {"version", "0.0.9"},      {"git_sha", sha},         {"build_type", "Release"},
               {"cxx_compiler", "g++"}, {"cuda_compiler", "nvcc"}, {"cuda_toolkit", toolkit}};
  return j;
}

TEST(ReportTool, ARenderedReportNamesTheBinaryThatWroteIt) {
  const Report back = report_from_json(written_by("vsa-bench", "719b66f31bb0", "12.9.41"));
  const std::string md = render_markdown(back);
  EXPECT_NE(md.find("- tool: vsa-bench 0.0.9 (719b66f31bb0), CUDA toolkit 12.9.41\n"), std::string::npos) << md;
  EXPECT_EQ(to_json(back)["tool"]["git_sha"], "719b66f31bb0");

  const Report peers = report_from_json(written_by("vsa-bench peers (scripts/peers/peers.py)", "ff3c0ec5a9e9", "13.0"));
  EXPECT_NE(render_markdown(peers).find("- tool: vsa-bench peers (scripts/peers/peers.py) 0.0.9 (ff3c0ec5a9e9)"),
            std::string::npos);
}

TEST(ReportTool, AReportBeingWrittenNamesThisBinary) {
  Report fresh;
  EXPECT_EQ(to_json(fresh)["tool"], report_tool_json());
  EXPECT_NE(render_markdown(fresh).find("- tool: vsa-bench " + report_tool_json()["version"].get<std::string>() + " (" +
                                        report_tool_json()["git_sha"].get<std::string>() + ")"),
            std::string::npos);
}

}  // namespace
}  // namespace vsa
