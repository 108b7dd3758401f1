#pragma once
// Test input in cuobjdump's format: one instruction as its two listing lines (offset and
// text with the low word, then the high word), for tests that build listings by hand.
#include <cstdio>
#include <string>

namespace vsa::test {

inline std::string sass_line(int offset, const std::string& text) {
  char off[16];
  std::snprintf(off, sizeof off, "%04x", offset);
  return std::string("        /*") + off + "*/                   " + text +
         " ;    /* 0x0000000000007918 */\n                                                      /* "
         "0x000fc00000000000 */\n";
}

}  // namespace vsa::test
