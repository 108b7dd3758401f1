// Text from outside made valid UTF-8 before it enters JSON (util/printable.hpp): a
// report write throws on invalid UTF-8 (nlohmann type_error 316), which aborted runs.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "util/printable.hpp"

namespace vsa {
namespace {

bool dumps(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

TEST(ValidUtf8, KeepsValidTextAndReplacesInvalidBytes) {
  EXPECT_EQ(valid_utf8("plain ≠ ± é"), "plain ≠ ± é");
  EXPECT_EQ(valid_utf8("a\xff"
                       "b"),
            "a\xef\xbf\xbd"
            "b");                                             // a stray byte -> U+FFFD
  EXPECT_EQ(valid_utf8("cut \xe2\x89"), "cut \xef\xbf\xbd");  // a character cut at the end
  EXPECT_FALSE(dumps("a\xff"));
  EXPECT_TRUE(dumps(valid_utf8("a\xff")));
}

TEST(Utf8Tail, StartsOnACharacterBoundary) {
  std::string text = "x";
  for (int i = 0; i < 100; ++i) text += "\xc3\xa9";  // "é"
  // 201 bytes; the last 51 start on the second byte of an "é".
  const std::string tail = utf8_tail(text, 51);
  EXPECT_EQ(tail.size(), 50u);
  EXPECT_EQ(tail.substr(0, 2), "\xc3\xa9");
  EXPECT_TRUE(dumps(tail));
  EXPECT_EQ(tail.find("\xef\xbf\xbd"), std::string::npos) << "a boundary cut is not an invalid byte";
  EXPECT_EQ(utf8_tail("short", 100), "short");
  // A 4-byte character cut after its first byte: three continuation bytes skipped.
  EXPECT_EQ(utf8_tail("\xf0\x9f\x98\x80ok", 5), "ok");
}

}  // namespace
}  // namespace vsa
