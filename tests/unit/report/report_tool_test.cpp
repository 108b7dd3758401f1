// A report read back keeps its author (report/report.hpp, Report::tool): rendering it again, or
// writing it out, names the binary that measured it, not the one rendering it.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
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

// Fuzz review of 2026-12-07: the version was read as an int, so 2^32 + 2 wrapped to 2 and a report
// of an unknown schema was read as a known one; 0 and negative versions passed too.
TEST(ReportTool, ASchemaVersionOutsideOneToThisToolsIsRefusedAsWritten) {
  nlohmann::json j = written_by("vsa-bench", "719b66f31bb0", "13.0");
  const auto refusal = [&j](const nlohmann::json& version) -> std::string {
    j["schema_version"] = version;
    try {
      (void)report_from_json(j);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(read)";
  };
  EXPECT_EQ(refusal(4294967298LL), "report schema_version 4294967298 is newer than this tool understands (" +
                                       std::to_string(kReportSchemaVersion) + ")");
  EXPECT_EQ(refusal(std::uint64_t(-1)),
            "report schema_version 18446744073709551615 is newer than this tool understands (" +
                std::to_string(kReportSchemaVersion) + ")");
  EXPECT_EQ(refusal(0), "report schema_version 0: versions start at 1");
  EXPECT_EQ(refusal(-3), "report schema_version -3: versions start at 1");
  EXPECT_EQ(refusal(kReportSchemaVersion), "(read)");
  j.erase("schema_version");
  EXPECT_NO_THROW((void)report_from_json(j));
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
