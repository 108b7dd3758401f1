// Reading JSON the user wrote: errors carry the path of the value at fault, also where a
// key is one a dotted path cannot show.
#include <gtest/gtest.h>

#include <string>

#include "util/json_input.hpp"
#include "util/json_member_path.hpp"

namespace vsa {
namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_json_input(text);
  } catch (const JsonInputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(JsonInput, ADuplicateKeyIsNamedByItsPath) {
  EXPECT_EQ(error_of(R"({"cases": [{"S": 256, "S": 128}]})"),
            "$.cases[0].S: given twice in one object (the last would silently win)");
  // Review of 2026-12-06: the empty key was named by its object's path alone ("$").
  EXPECT_EQ(error_of(R"({"": 1, "": 2})"), R"($[""]: given twice in one object (the last would silently win))");
  EXPECT_EQ(error_of(R"({"a": {"x y": 1, "x y": 2}})"),
            R"($.a["x y"]: given twice in one object (the last would silently win))");
  EXPECT_EQ(error_of(R"({"": 1, "b": 2})"), "(accepted)");
}

TEST(JsonInput, APathStepShowsKeysADotCannot) {
  EXPECT_EQ(member_segment("S"), ".S");
  EXPECT_EQ(member_segment("selftest.overlap"), ".selftest.overlap");  // probe keys read as written
  EXPECT_EQ(member_segment(""), R"([""])");
  EXPECT_EQ(member_segment("a\"b\\c"), R"(["a\"b\\c"])");
  EXPECT_EQ(member_segment("\x1b[31m"), R"(["\x1b[31m"])");  // no escape sequence reaches a terminal
}

}  // namespace
}  // namespace vsa
