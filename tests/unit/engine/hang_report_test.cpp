// Located hangs, host side: the record's labels, the FAULT message made from a record,
// and the hang_watch_ms case field (parsed, bounded by timeout_s, serialised only when set).
#include <gtest/gtest.h>

#include "engine/hang_report.hpp"
#include "suite/suite.hpp"

namespace vsa {
namespace {

HangRecord mma_record() {
  HangRecord r;
  r.complete = 1;
  r.block = 12;
  r.warp = 5;
  r.slot = 1;
  r.parity = 0;
  r.step = 3;
  r.item = 17;
  r.waited_ms = 2000;
  r.site = {hang_label("sm100a-blk64.forward"), hang_label("mma"), hang_label("k_full")};
  return r;
}

TEST(HangReport, LabelsRoundTripAndCutAt23Characters) {
  EXPECT_EQ(label_text(hang_label("k_full")), "k_full");
  EXPECT_EQ(label_text(hang_label("")), "");
  EXPECT_EQ(label_text(hang_label("abcdefghijklmnopqrstuvwxyz")), "abcdefghijklmnopqrstuvw");
  static_assert(hang_label("ab").words[0] == (0x61u | 0x62u << 8), "little-endian packing, as the device reads it");
}

TEST(HangReport, MessageNamesEveryField) {
  EXPECT_EQ(describe_hang(mma_record()),
            "hang: cta 12 warp 5 (mma) waited on k_full[1] parity 0 at step 3 for 2000 ms "
            "(sm100a-blk64.forward, item 17)");
  HangRecord r = mma_record();
  r.step = -1;
  r.item = -1;
  EXPECT_EQ(describe_hang(r),
            "hang: cta 12 warp 5 (mma) waited on k_full[1] parity 0 for 2000 ms "
            "(sm100a-blk64.forward)");
}

TEST(HangReport, FaultReasonKeepsTheCudaErrorWithoutARecord) {
  EXPECT_EQ(hang_fault_reason(nullptr, "cudaErrorLaunchFailure: unspecified launch failure"),
            "cudaErrorLaunchFailure: unspecified launch failure");
}

std::string error_of(const std::string& fields) {
  try {
    (void)parse_suite(R"({"cases": [{"name": "a", "backends": ["cpu-ref"], "S": 128, )" + fields + "}]}", "t.json");
  } catch (const SuiteError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(HangReport, CaseFieldIsBoundedByTheTimeoutAndSerialisedOnlyWhenSet) {
  EXPECT_EQ(error_of(R"("hang_watch_ms": 2000, "timeout_s": 2)"),
            "t.json: $.cases[0].hang_watch_ms: must be below timeout_s (2 s), or the worker is called HANG before "
            "the watch can locate the wait; got 2000 ms");
  EXPECT_EQ(error_of(R"("hang_watch_ms": -1)"),
            "t.json: $.cases[0].hang_watch_ms: must be in [0, 3600000] ms (0: off; the device clock of the watch "
            "spans 73 min), got -1");
  const Suite on = parse_suite(
      R"({"cases": [{"name": "a", "backends": ["cpu-ref"], "S": 128, "hang_watch_ms": 1500, "timeout_s": 60}]})", "t");
  ASSERT_EQ(on.cases.size(), 1u);
  EXPECT_EQ(on.cases[0].hang_watch_ms, 1500u);
  EXPECT_EQ(to_json(on.cases[0]).at("hang_watch_ms"), 1500);
  EXPECT_EQ(case_from_json(to_json(on.cases[0]), "t", "$").hang_watch_ms, 1500u);  // the worker sees it
  const Suite off = parse_suite(R"({"cases": [{"name": "a", "backends": ["cpu-ref"], "S": 128}]})", "t");
  EXPECT_FALSE(to_json(off.cases[0]).contains("hang_watch_ms"));  // reports without a watch are unchanged
}

}  // namespace
}  // namespace vsa
