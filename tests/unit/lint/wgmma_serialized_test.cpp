// wgmma-serialized on instruction sequences in cuobjdump's format: the shape ptxas
// emits when it serialises wgmma (each HGMMA waited alone) against a pipelined chain.
#include <gtest/gtest.h>

#include <string>

#include "lint/checks.hpp"
#include "sass/listing.hpp"
#include "sass_lines.hpp"

namespace vsa::lint {
namespace {

using test::sass_line;

std::vector<Finding> check(const std::string& body) {
  const auto listing = sass::parse_listing(
      "\tcode for sm_90a\n\t\tFunction : _ZN3vsa5sm90a3bwd15backward_kernelILb0ELb0EEEvNS1_9BwdParamsE\n" + body);
  std::vector<Finding> findings;
  check_wgmma_serialized(listing.kernels.at(0), Severity::error, findings);
  return findings;
}

// n HGMMA, each in its own arrive / issue / full wait, as ptxas serialises them.
std::string serialised(int n) {
  std::string body;
  int at = 0x100;
  for (int i = 0; i < n; ++i) {
    body += sass_line(at, "WARPGROUP.ARRIVE");
    body += sass_line(at + 0x10, "HGMMA.64x64x16.F32.BF16 R184, gdesc[UR16], R184, gsb0");
    body += sass_line(at + 0x20, "WARPGROUP.DEPBAR.LE gsb0, 0x0");
    at += 0x30;
  }
  return body;
}

TEST(LintWgmmaSerialized, EveryHgmmaWaitedAloneIsAFinding) {
  const auto findings = check(serialised(8));
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].rule, kRuleWgmmaSerialized);
  EXPECT_EQ(findings[0].offset, 0x110U);
  EXPECT_NE(findings[0].message.find("all 8 HGMMA"), std::string::npos) << findings[0].message;
}

TEST(LintWgmmaSerialized, AChainIssuedBeforeOneWaitIsClean) {
  std::string body = sass_line(0x100, "WARPGROUP.ARRIVE");
  for (int i = 0; i < 7; ++i) body += sass_line(0x110 + 0x10 * i, "HGMMA.64x64x16.F32.BF16 R184, gdesc[UR16], R184");
  body += sass_line(0x180, "HGMMA.64x64x16.F32.BF16 R184, gdesc[UR16], R184, gsb0");
  body += sass_line(0x190, "WARPGROUP.DEPBAR.LE gsb0, 0x0");
  EXPECT_TRUE(check(body + serialised(3)).empty());
}

TEST(LintWgmmaSerialized, AFewLoneWgmmasAreNotEnough) {
  EXPECT_TRUE(check(serialised(kWgmmaSerializedMinHgmma - 1)).empty());
}

TEST(LintWgmmaSerialized, AWaitThatLeavesOneGroupInFlightIsNotAFullWait) {
  std::string body;
  for (int i = 0; i < 4; ++i) {
    body += sass_line(0x100 + 0x20 * i, "HGMMA.64x64x16.F32.BF16 R24, gdesc[UR8], R24, gsb0");
    body += sass_line(0x110 + 0x20 * i, "WARPGROUP.DEPBAR.LE gsb0, 0x1");
  }
  EXPECT_TRUE(check(body).empty());
}

}  // namespace
}  // namespace vsa::lint
