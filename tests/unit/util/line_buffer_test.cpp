// The worker's stdout line splitter (util/line_buffer.hpp): lines in pieces, a bound on
// an unfinished line, and linear cost however small the pieces (issue 20: quadratic).
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "util/line_buffer.hpp"

namespace vsa {
namespace {

TEST(LineBuffer, LinesAcrossPieces) {
  LineBuffer b(100);
  b.append("{\"a\":");
  EXPECT_FALSE(b.next_line());
  b.append("1}\n{\"b\"");
  EXPECT_EQ(b.next_line(), "{\"a\":1}");
  EXPECT_FALSE(b.next_line());
  b.append(":2}\n\nlast\n");
  EXPECT_EQ(b.next_line(), "{\"b\":2}");
  EXPECT_EQ(b.next_line(), "");
  EXPECT_EQ(b.next_line(), "last");
  EXPECT_FALSE(b.next_line());
  EXPECT_FALSE(b.overflowed());
  EXPECT_EQ(b.held_bytes(), 0u);
}

TEST(LineBuffer, ALineBeyondTheLimitOverflowsAndIsNotKept) {
  LineBuffer b(1000);
  for (int i = 0; i < 100; ++i) {
    b.append(std::string(100, 'x'));
    (void)b.next_line();
  }
  EXPECT_TRUE(b.overflowed());
  EXPECT_LE(b.held_bytes(), 1000u);
  // A complete line longer than the limit is an overflow too.
  LineBuffer c(10);
  c.append(std::string(20, 'y') + "\n");
  EXPECT_FALSE(c.next_line());
  EXPECT_TRUE(c.overflowed());
}

TEST(LineBuffer, ByteByByteIsLinearTime) {
  // 4 MiB without a newline, one byte per piece (a worker writing unbuffered). Rescanning
  // the held bytes at every piece would be ~8e12 byte visits; linear is ~4e6.
  constexpr std::size_t kBytes = 4u << 20;
  LineBuffer b(kBytes + 1);
  const auto start = std::chrono::steady_clock::now();
  std::size_t fed = 0;
  for (; fed < kBytes; ++fed) {
    b.append("x");
    ASSERT_FALSE(b.next_line());
    if ((fed & 0xffff) == 0 && std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) break;
  }
  EXPECT_EQ(fed, kBytes) << "fed only " << fed << " bytes in 10 s: the scan is not linear";
  b.append("\n");
  const auto line = b.next_line();
  ASSERT_TRUE(line);
  EXPECT_EQ(line->size(), kBytes);
}

}  // namespace
}  // namespace vsa
