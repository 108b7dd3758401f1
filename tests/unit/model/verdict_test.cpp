// Verdicts (model/verdict.hpp): the names reports have always held, a round trip through
// JSON, an unknown name refused with the name in the message, and the severity order a
// case's verdict is aggregated by.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/case_result.hpp"
#include "model/verdict.hpp"

namespace vsa {
namespace {

TEST(Verdict, JsonNamesAreTheReportStrings) {
  const std::pair<Verdict, const char*> expected[] = {{kPass, "PASS"},   {kSkip, "SKIP"}, {kFail, "FAIL"},
                                                      {kFault, "FAULT"}, {kHang, "HANG"}, {kPending, "PENDING"}};
  for (const auto& [verdict, name] : expected) {
    EXPECT_EQ(nlohmann::json(verdict), name);
    EXPECT_EQ(nlohmann::json(name).get<Verdict>(), verdict) << name;
  }
  BackendResult b;
  b.verdict = kHang;
  EXPECT_EQ(nlohmann::json(b).at("verdict"), "HANG");
  EXPECT_EQ(nlohmann::json(b).get<BackendResult>().verdict, kHang);
}

TEST(Verdict, UnknownNameIsAnErrorNamingIt) {
  try {
    (void)nlohmann::json("PASSED").get<Verdict>();
    FAIL() << "an unknown verdict must throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"PASSED\""), std::string::npos) << e.what();
  }
}

TEST(Verdict, CaseTakesItsMostSevereBackendAndPassBeatsSkip) {
  auto case_of = [](std::initializer_list<Verdict> verdicts) {
    CaseResult c;
    for (const Verdict v : verdicts) {
      BackendResult b;
      b.verdict = v;
      c.backends.push_back(b);
    }
    aggregate_verdict(c);
    return c.verdict;
  };
  EXPECT_EQ(case_of({kSkip, kPass}), kPass);
  EXPECT_EQ(case_of({kPass, kFail, kSkip}), kFail);
  EXPECT_EQ(case_of({kFault, kFail}), kFault);
  EXPECT_EQ(case_of({kFault, kHang, kPass}), kHang);
  EXPECT_EQ(case_of({}), kSkip);
  CaseResult failed_reference;
  failed_reference.message = "reference failed";
  aggregate_verdict(failed_reference);
  EXPECT_EQ(failed_reference.verdict, kFail);
}

}  // namespace
}  // namespace vsa
