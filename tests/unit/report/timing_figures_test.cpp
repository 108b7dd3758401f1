// A timing's figures against its own pass medians (report/timing_figures.hpp), and the report
// reader refusing a timing whose figures do not follow (review of 2026-12-06).
#include "report/timing_figures.hpp"

#include <gtest/gtest.h>

#include "report/report.hpp"

namespace vsa {
namespace {

Timing timing_of(std::vector<double> pass_ms, double median_ms, double spread) {
  Timing t;
  t.op = "fwd";
  t.pass_medians_ms = std::move(pass_ms);
  t.passes = int(t.pass_medians_ms.size());
  t.median_ms = median_ms;
  t.spread = spread;
  t.tflops = 100;
  return t;
}

// The check with the case's FLOPs that the timing's own TFLOPS and median imply.
std::string inconsistency(const Timing& t, int schema_version) {
  return timing_figures_inconsistency(t, schema_version, t.tflops * t.median_ms * 1e9);
}

TEST(TimingFigures, FiguresThatFollowFromThePassMediansAreAccepted) {
  // 4 passes: the median is the mean of the middle two; the spread (k = 1) max - min over it.
  EXPECT_EQ(inconsistency(timing_of({1.0, 1.02, 0.98, 1.01}, 1.005, 0.04 / 1.005), 2), "");
  // An off-clock pass is left out of both.
  Timing t = timing_of({0.8, 1.0, 1.02, 1.01}, 1.01, 0.02 / 1.01);
  t.clocks = nlohmann::json::array({{{"after", {{"sm_clock_mhz", 1980}}}},
                                    {{"after", {{"sm_clock_mhz", 1605}}}},
                                    {{"after", {{"sm_clock_mhz", 1590}}}},
                                    {{"after", {{"sm_clock_mhz", 1590}}}}});
  t.off_clock_passes.push_back({0, 1980, 1590, 1605});
  EXPECT_EQ(inconsistency(t, 2), "");
  // Schema 1: (max - min) / median over all passes, also past 8 passes, where schema 2's is narrower.
  std::vector<double> twelve = {0.457, 0.457, 0.520, 0.521, 0.519, 0.520, 0.522, 0.518, 0.520, 0.521, 0.519, 0.520};
  const double m = 0.520;
  EXPECT_EQ(inconsistency(timing_of(twelve, m, (0.522 - 0.457) / m), 1), "");
  EXPECT_NE(inconsistency(timing_of(twelve, m, (0.522 - 0.457) / m), 2), "");
  // Untimed: no figures, nothing to derive.
  Timing untimed;
  untimed.op = "fwd";
  EXPECT_EQ(inconsistency(untimed, 2), "");
}

TEST(TimingFigures, FiguresThatDoNotFollowAreNamed) {
  // Pass medians +-12% with a stored spread of 0.5%.
  EXPECT_NE(inconsistency(timing_of({0.88, 1.0, 1.12}, 1.0, 0.005), 2).find("spread 0.5% but its pass"),
            std::string::npos);
  Timing t = timing_of({1.0}, 1.0, 0);
  t.passes = 0;
  EXPECT_EQ(inconsistency(t, 2), "passes 0 but 1 pass medians");
  t = timing_of({1.0, 1.1, 1.2}, 1.1, 0.2 / 1.1);
  t.off_clock_passes = {{0, 1980, 1590, 1605}, {2, 1980, 1590, 1605}};
  EXPECT_NE(inconsistency(t, 2).find("2 of 3 passes left out"), std::string::npos);
  t.off_clock_passes = {{3, 1980, 1590, 1605}};
  EXPECT_NE(inconsistency(t, 2).find("off-clock pass 3 is not one of the 3"), std::string::npos);
  t.off_clock_passes = {};
  t.median_ms = 1.0;
  EXPECT_NE(inconsistency(t, 2).find("median_ms 1 but the kept pass medians give 1.1"), std::string::npos);
  Timing bare;
  bare.op = "fwd";
  bare.tflops = 500;
  EXPECT_NE(inconsistency(bare, 2).find("no pass_medians_ms"), std::string::npos);
}

// Review of 2026-12-06: the gates read tflops, which nothing tied to median_ms; and an off-clock
// list could name slow passes at invented clocks.
TEST(TimingFigures, TflopsFollowTheFlopsAndOffClockEntriesTheirClocks) {
  Timing t = timing_of({1.0, 1.02, 0.98, 1.01}, 1.005, 0.04 / 1.005);
  EXPECT_EQ(timing_figures_inconsistency(t, 2, 100 * 1.005e9), "");
  EXPECT_NE(timing_figures_inconsistency(t, 2, 2 * 100 * 1.005e9).find("tflops 100 but flops_fwd over median_ms gives"),
            std::string::npos);
  EXPECT_NE(timing_figures_inconsistency(t, 2, 0).find("no flops_fwd"), std::string::npos);

  auto clock = [](double mhz) { return nlohmann::json{{"after", {{"sm_clock_mhz", mhz}}}}; };
  Timing off = timing_of({0.8, 1.0, 1.02, 1.01}, 1.01, 0.02 / 1.01);
  off.clocks = nlohmann::json::array({clock(1980), clock(1605), clock(1590), clock(1590)});
  off.off_clock_passes.push_back({0, 1980, 1590, 1605});
  EXPECT_EQ(inconsistency(off, 2), "");
  Timing forged = off;
  forged.off_clock_passes[0].sm_clock_mhz = 1200;  // not the clock its record gives
  EXPECT_NE(inconsistency(forged, 2).find("off-clock pass 0 at 1200 MHz, but its clock record gives 1980 MHz"),
            std::string::npos)
      << inconsistency(forged, 2);
  forged = off;
  forged.clocks[0] = clock(1600);  // a pass at the others' clock named off-clock
  forged.off_clock_passes[0].sm_clock_mhz = 1600;
  EXPECT_NE(inconsistency(forged, 2).find("lies inside the kept passes' 1590-1605 MHz"), std::string::npos);
  forged = off;
  forged.clocks[3] = clock(1700);  // a kept pass outside the range the off-clock pass was judged by
  EXPECT_NE(inconsistency(forged, 2).find("kept pass 3 at 1700 MHz lies outside"), std::string::npos);
}

TEST(TimingFigures, TheReportReaderRefusesByTheTimingsPath) {
  Report r;
  CaseResult c;
  c.name = "perf";
  c.spec = nlohmann::json::object();
  c.flops_fwd = 100 * 1.0e9;  // tflops 100 at a median of 1 ms
  BackendResult b;
  b.backend = "sm90a";
  b.verdict = kPass;
  b.timings.push_back(timing_of({0.88, 1.0, 1.12}, 1.0, 0.005));
  c.backends.push_back(b);
  c.verdict = kPass;
  r.cases.push_back(c);
  try {
    (void)report_from_json(to_json(r));
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("$.cases[0].backends[0].timings[0]: spread 0.5%"), std::string::npos)
        << e.what();
  }
  r.cases[0].backends[0].timings[0].spread = 0.24;
  EXPECT_NO_THROW((void)report_from_json(to_json(r)));
}

}  // namespace
}  // namespace vsa
