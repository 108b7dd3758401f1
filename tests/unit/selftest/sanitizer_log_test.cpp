// Reading compute-sanitizer output (selftest/sanitizer_log.hpp): summary counts and
// the first lines of each finding, application output ignored.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "selftest/sanitize.hpp"
#include "selftest/sanitizer_log.hpp"

namespace vsa {
namespace {

constexpr const char* kMemcheck = R"(========= COMPUTE-SANITIZER
[1/1] gpu0 selftest/out-of-bounds-write  FAULT 0.4s
========= Invalid __global__ write of size 2 bytes
=========     at vsa::selftest::out_of_bounds_write_kernel(unsigned short *)+0x70 in planted_writes.cu:16
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f0000000000 is out of bounds
=========     and is 1,099,511,627,264 bytes after the nearest allocation at 0x7e0000000000 of size 262,144 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2e2f00] in libcuda.so.1
=========         Host Frame: [0x1234] in vsa-bench
=========
========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaStreamSynchronize.
=========     Saved host backtrace up to driver entry point at error
=========
========= Target application returned an error
========= ERROR SUMMARY: 2 errors
)";

constexpr const char* kRacecheck = R"(========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at vsa::selftest::early_release_copy_kernel(...)+0x3a0 in early_release_copy.cu:89
=========     and Read access at vsa::selftest::early_release_copy_kernel(...)+0x5f0 in early_release_copy.cu:110 [2048 hazards]
=========
========= Warning: Race reported between Read access at k+0x10 in a.cu:1
=========     and Write access at k+0x20 in a.cu:2 [4 hazards]
=========
========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)
)";

TEST(SanitizerLog, MemcheckCountsAndFindings) {
  const SanitizerLog log = parse_sanitizer_log(kMemcheck, 50, 4);
  ASSERT_TRUE(log.errors.has_value());
  EXPECT_EQ(*log.errors, 2);
  EXPECT_FALSE(log.hazards.has_value());
  EXPECT_TRUE(log.found_problems());
  ASSERT_EQ(log.findings.size(), 2u);
  EXPECT_EQ(log.findings[0][0], "Invalid __global__ write of size 2 bytes");
  ASSERT_EQ(log.findings[0].size(), 4u) << "kept lines per finding are capped";
  EXPECT_EQ(log.findings[0][1].rfind("at vsa::selftest::out_of_bounds_write_kernel", 0), 0u) << log.findings[0][1];
  EXPECT_NE(log.findings[1][0].find("cudaErrorLaunchFailure"), std::string::npos);
  ASSERT_EQ(log.notes.size(), 1u);
  EXPECT_EQ(log.notes[0], "Target application returned an error");
  ASSERT_EQ(log.summary.size(), 1u);
  EXPECT_EQ(log.summary[0], "ERROR SUMMARY: 2 errors");
}

TEST(SanitizerLog, RacecheckHazards) {
  const SanitizerLog log = parse_sanitizer_log(kRacecheck);
  EXPECT_EQ(log.hazards.value_or(-1), 2);
  EXPECT_EQ(log.hazard_errors.value_or(-1), 1);
  EXPECT_EQ(log.hazard_warnings.value_or(-1), 1);
  EXPECT_TRUE(log.found_problems());
  ASSERT_EQ(log.findings.size(), 2u);
  EXPECT_EQ(log.findings[0].size(), 2u);
  EXPECT_NE(log.findings[0][1].find("[2048 hazards]"), std::string::npos);
}

TEST(SanitizerLog, CleanRunAndFindingLimit) {
  const SanitizerLog clean = parse_sanitizer_log("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n");
  EXPECT_EQ(clean.errors.value_or(-1), 0);
  EXPECT_FALSE(clean.found_problems());
  EXPECT_TRUE(clean.findings.empty());
  const SanitizerLog capped = parse_sanitizer_log(kMemcheck, 1);
  EXPECT_EQ(capped.findings.size(), 1u);
  EXPECT_EQ(capped.findings_seen, 2u);
  const SanitizerLog nothing = parse_sanitizer_log("the tool never started\n");
  EXPECT_FALSE(nothing.errors.has_value());
  EXPECT_FALSE(nothing.found_problems());
}

// Fuzz review of 2026-12-07: a 50,000-digit count overflowed the stack (std::regex recursed per
// digit) and a count past int64 threw from std::stoll, so the report lost its sanitizer section.
TEST(SanitizerLog, CountsTooLongOrTooLargeReadAsTheLargest) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  const std::string huge = "========= ERROR SUMMARY: " + std::string(50000, '9') + " errors\n";
  const SanitizerLog long_count = parse_sanitizer_log(huge);
  EXPECT_EQ(long_count.errors.value_or(-1), kMax);
  EXPECT_TRUE(long_count.found_problems());
  EXPECT_EQ(parse_sanitizer_log("========= ERROR SUMMARY: 99999999999999999999 errors\n").errors.value_or(-1), kMax);
  EXPECT_EQ(parse_sanitizer_log("========= ERROR SUMMARY: 9223372036854775807 errors\n").errors.value_or(-1), kMax);
  const SanitizerLog race = parse_sanitizer_log(
      "========= RACECHECK SUMMARY: 123456789012345678901234567890 hazards displayed (0 errors, 3 warnings)\n");
  EXPECT_EQ(race.hazards.value_or(-1), kMax);
  EXPECT_EQ(race.hazard_errors.value_or(-1), 0);
  EXPECT_EQ(race.hazard_warnings.value_or(-1), 3);
}

// No summary counts as no problem: compute-sanitizer prints none when the target made no CUDA call
// (its startup error line must not read as a finding); a killed tool is judged by its exit status.
TEST(SanitizerLog, NoSummaryIsNoProblemOfItsOwn) {
  const SanitizerLog none = parse_sanitizer_log(
      "========= COMPUTE-SANITIZER\n"
      "========= Error: Target application terminated before first instrumented API call\n");
  EXPECT_TRUE(none.summary.empty());
  EXPECT_FALSE(none.found_problems());
}

// The exit code of `sanitize` (sanitize.hpp): a tool killed by a signal leaves the run incomplete
// (exit 4), never clean, whatever it printed; compute-sanitizer's own 255 (no CUDA call) is not that.
TEST(SanitizeResult, AKilledToolIsNeverClean) {
  SanitizeResult r;
  r.report_paths = {"r.json"};
  r.run_exit_code = 0;
  r.exit_status = 0;
  r.log = parse_sanitizer_log("========= ERROR SUMMARY: 0 errors\n");
  EXPECT_EQ(r.exit_code(), 0);
  r.exit_status = 137;
  EXPECT_EQ(r.exit_code(), 4);
  r.log = parse_sanitizer_log("========= Invalid __global__ read of size 4 bytes\n=========     at k+0x10\n");
  EXPECT_EQ(r.exit_code(), 4);
  r.log = parse_sanitizer_log("========= Error: Target application terminated before first instrumented API call\n");
  r.exit_status = 255;
  EXPECT_EQ(r.exit_code(), 0);
}

}  // namespace
}  // namespace vsa
