// --probe and suite `probes` keys with a warp mask (issue 18, finding 4): what parses, what
// each bad form says, and the canonical key the report and repro carry.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/probe_spec.hpp"

namespace {

using vsa::ProbeArg;
using vsa::ProbeKey;

TEST(ProbeSpec, PlainProbeIsEveryWarp) {
  ProbeArg a;
  std::string err;
  ASSERT_TRUE(vsa::parse_probe_arg("fwd.release_kv=2000", a, err)) << err;
  EXPECT_EQ(a.key, "fwd.release_kv");
  EXPECT_EQ(a.nanoseconds, 2000u);
  ProbeKey k;
  ASSERT_TRUE(vsa::parse_probe_key(a.key, k, err));
  EXPECT_EQ(k.point, "fwd.release_kv");
  EXPECT_EQ(k.warps, 0u);
}

TEST(ProbeSpec, WarpMaskRangesAndLists) {
  ProbeArg a;
  std::string err;
  ASSERT_TRUE(vsa::parse_probe_arg("bwd.read_st=20000@warps:4-7", a, err)) << err;
  EXPECT_EQ(a.key, "bwd.read_st@warps:4-7");
  EXPECT_EQ(a.nanoseconds, 20000u);
  ProbeKey k;
  ASSERT_TRUE(vsa::parse_probe_key(a.key, k, err));
  EXPECT_EQ(k.point, "bwd.read_st");
  EXPECT_EQ(k.warps, 0xf0u);
  // Lists are normalised to ranges, so equal masks give equal keys.
  ASSERT_TRUE(vsa::parse_probe_arg("x=1@warps:6,0,2,5,7", a, err)) << err;
  EXPECT_EQ(a.key, "x@warps:0,2,5-7");
  ASSERT_TRUE(vsa::parse_probe_key("x@warps:31", k, err));
  EXPECT_EQ(k.warps, 0x80000000u);
  EXPECT_EQ(vsa::probe_key("p", 0), "p");
  EXPECT_EQ(vsa::probe_key("p", 0b1011), "p@warps:0-1,3");
}

// Every bad form is refused with a message that quotes the bad input.
TEST(ProbeSpec, BadInputsAreNamed) {
  struct Bad {
    const char* arg;
    const char* says;
  };
  const Bad bad[] = {
      {"bwd.read_st", "expected NAME=NANOSECONDS"},
      {"=5", "expected NAME=NANOSECONDS"},
      {"bwd.read_st=abc", "'abc'"},
      {"bwd.read_st=-1", "'-1'"},
      {"bwd.read_st=99999999999", "below 2^32"},
      {"bwd.read_st=5@warp:4-7", "expected @warps:LIST"},
      {"bwd.read_st=5@warps:", "empty warp list"},
      {"bwd.read_st=5@warps:4-", "'4-'"},
      {"bwd.read_st=5@warps:7-4", "'7-4' runs backwards"},
      {"bwd.read_st=5@warps:32", "'32' is outside warps 0..31"},
      {"bwd.read_st=5@warps:1,", "trailing ','"},
      {"bwd.read_st=5@warps:a", "'a' is not a warp number"},
      {"bwd.read_st@warps:4=5", "goes after the nanoseconds"},
  };
  for (const auto& b : bad) {
    ProbeArg a;
    std::string err;
    EXPECT_FALSE(vsa::parse_probe_arg(b.arg, a, err)) << b.arg;
    EXPECT_NE(err.find(b.says), std::string::npos) << b.arg << " -> " << err;
  }
  ProbeKey k;
  std::string err;
  EXPECT_FALSE(vsa::parse_probe_key("@warps:1", k, err));
  EXPECT_NE(err.find("no point name"), std::string::npos) << err;
  EXPECT_FALSE(vsa::parse_probe_key("fwd.read_s@warps:0-40", k, err));
  EXPECT_NE(err.find("'0-40'"), std::string::npos) << err;
}

// A backend without masks refuses a masked probe of its own points, and only that.
TEST(ProbeSpec, MaskRefusal) {
  const std::vector<std::string> points = {"fwd.release_kv", "fwd.issue_pv"};
  EXPECT_EQ(vsa::probe_mask_refusal({{"fwd.issue_pv@warps:1", 100}}, points, false),
            "probe fwd.issue_pv@warps:1: this backend's probes take no warp mask");
  EXPECT_EQ(vsa::probe_mask_refusal({{"fwd.issue_pv@warps:1", 100}}, points, true), "");
  EXPECT_EQ(vsa::probe_mask_refusal({{"fwd.issue_pv", 100}}, points, false), "");         // no mask
  EXPECT_EQ(vsa::probe_mask_refusal({{"bwd.read_st@warps:1", 100}}, points, false), "");  // not its point
  EXPECT_EQ(vsa::probe_mask_refusal({{"fwd.issue_pv@warps:1", 0}}, points, false), "");   // no delay
}

}  // namespace
