// Reading back a damaged report (util/json_path_error.hpp): the error names the bad field by
// its whole path, composed across nested from_json functions and array indices, and a field
// older reports lack takes its fallback without complaint.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/case_result.hpp"
#include "model/node_check.hpp"
#include "util/json_path_error.hpp"

namespace vsa {
namespace {

std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const JsonPathError& e) {
    return e.what();
  }
  return "(no error)";
}

nlohmann::json timing_json() {
  Timing t;
  t.op = "fwd";
  t.passes = 2;
  return t;
}

TEST(JsonPathError, NamesTheFieldThroughArraysAndNestedRecords) {
  BackendResult b;
  b.backend = "sm90a";
  b.timings = {Timing{}, Timing{}};
  for (auto& t : b.timings) t.op = "fwd";
  nlohmann::json j = {{"backends", nlohmann::json::array({nlohmann::json(b)})}};
  j["backends"][0]["timings"][1]["median_ms"] = "slow";
  std::vector<BackendResult> out;
  EXPECT_EQ(error_of([&] { read_each(j, "backends", out); }),
            "$.backends[0].timings[1].median_ms: type must be number, but is string");
}

TEST(JsonPathError, MissingFieldAndWrongContainerAreNamed) {
  nlohmann::json t = timing_json();
  t.erase("op");
  Timing out;
  EXPECT_EQ(error_of([&] { at_path(".timings[0]", [&] { t.get_to(out); }); }), "$.timings[0].op: missing");
  nlohmann::json j = {{"cases", "none"}};
  std::vector<CaseResult> cases;
  EXPECT_EQ(error_of([&] { read_each(j, "cases", cases); }), "$.cases: must be array, but is string");
}

TEST(JsonPathError, AReadersOwnRefusalGetsThePathToo) {
  NodeCheck check;
  check.verdict = kPass;
  nlohmann::json j = {{"checks", nlohmann::json::array({nlohmann::json(check)})}};
  j["checks"][0]["verdict"] = "MAYBE";
  std::vector<NodeCheck> out;
  const std::string what = error_of([&] { read_each(j, "checks", out); });
  EXPECT_EQ(what.rfind("$.checks[0].verdict: not a verdict: \"MAYBE\"", 0), 0u) << what;
}

// A negative spread would widen compare's noise allowance the wrong way and pass its gate.
TEST(JsonPathError, ANegativeSpreadOrPassRangeIsRefused) {
  nlohmann::json t = timing_json();
  t["spread"] = -0.04;
  Timing out;
  EXPECT_EQ(error_of([&] { at_path(".timings[0]", [&] { t.get_to(out); }); }), "$.timings[0].spread: must be >= 0");
  t["spread"] = 0.01;
  t["pass_range"] = -0.5;
  EXPECT_EQ(error_of([&] { at_path(".timings[0]", [&] { t.get_to(out); }); }), "$.timings[0].pass_range: must be >= 0");
  t.erase("pass_range");  // an older report's: the spread stands in
  EXPECT_EQ(error_of([&] { t.get_to(out); }), "(no error)");
}

TEST(JsonPathError, FieldsOlderReportsLackTakeTheirFallback) {
  nlohmann::json t = timing_json();
  t.erase("launches_per_iteration");
  t.erase("sampling");
  t.erase("pass_range");
  t["spread"] = 0.25;
  const Timing out = t.get<Timing>();
  EXPECT_EQ(out.launches_per_iteration, 1);
  EXPECT_DOUBLE_EQ(out.pass_range, 0.25);
  EXPECT_EQ(out.sampling.max_passes, 2);
}

TEST(JsonPathError, ShapedValuesKeepTheirJsonOrNameTheType) {
  using T = nlohmann::json::value_t;
  const nlohmann::json j = {{"plugins", nlohmann::json::array({1})}, {"node", 3}};
  EXPECT_EQ(read_shaped(j, "plugins", nlohmann::json(), {T::array}), nlohmann::json::array({1}));
  EXPECT_EQ(read_shaped(j, "absent", nlohmann::json::object(), {T::object}), nlohmann::json::object());
  EXPECT_EQ(error_of([&] {
              (void)read_shaped(j, "node", nlohmann::json(), {T::object, T::null});
            }),
            "$.node: must be object or null, but is number");
}

}  // namespace
}  // namespace vsa
