// How a timing's sampling reads in the Markdown report and on the progress line
// (report/timing_text.hpp): passes, converged or budget exhausted, off-clock passes left out.
#include "report/timing_text.hpp"

#include <gtest/gtest.h>

#include "report/report.hpp"
#include "synthetic_reports.hpp"

namespace vsa {
namespace {

Timing timing(double spread, int passes, const std::string& stop, int off_clock = 0) {
  Timing t;
  t.op = "fwd";
  t.tflops = 549.1;
  t.median_ms = 1;
  t.spread = spread;
  t.passes = passes;
  t.sampling.stop = stop;
  for (int i = 0; i < off_clock; ++i) t.off_clock_passes.push_back({i, 1980, 1590, 1605});
  return t;
}

TEST(TimingText, SaysHowSamplingEnded) {
  EXPECT_EQ(spread_text(timing(0.0068, 4, "fixed")), "±0.68%");  // schema 1 and --target-spread 0: as before
  EXPECT_EQ(spread_text(timing(0, 1, "fixed")), "1 pass");
  EXPECT_EQ(spread_text(timing(0.011, 17, "converged", 1)), "±1.1%, 17 passes, converged, 1 off-clock left out");
  EXPECT_EQ(spread_text(timing(0.034, 40, "budget_exhausted")), "±3.4%, 40 passes, budget exhausted");
  EXPECT_EQ(spread_text(timing(0.034, 100, "max_passes")), "±3.4%, 100 passes, max passes");
}

TEST(TimingText, TheProgressLineNamesWhatDidNotConvergeOrLostPasses) {
  CaseResult c;
  BackendResult a, b;
  a.backend = "sm90a";
  a.timings = {timing(0.011, 17, "converged"), timing(0.031, 40, "budget_exhausted")};
  a.timings[1].op = "bwd";
  b.backend = "sm90a-det";
  b.timings = {timing(0.01, 4, "converged", 2)};
  c.backends = {a, b};
  EXPECT_EQ(timing_note(c),
            "sm90a bwd: ±3.1% after 40 passes, budget exhausted; sm90a-det fwd: 2 off-clock passes left out");
  c.backends = {a};
  c.backends[0].timings.pop_back();
  EXPECT_EQ(timing_note(c), "");  // converged, nothing left out: nothing to say
}

TEST(TimingText, TheMarkdownReportCarriesIt) {
  Report r;
  testing::add_timing(r, "perf/S=16384", "sm90a", "fwd", 549.1, 0.011);
  Timing& t = r.cases[0].backends[0].timings[0];
  t.passes = 17;
  t.sampling.stop = "converged";
  t.off_clock_passes.push_back({0, 1980, 1590, 1605});
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("549.1 (±1.1%, 17 passes, converged, 1 off-clock left out)"), std::string::npos) << md;
}

TEST(TimingText, SchemaTwoFieldsRoundTripAndSchemaOneReadsAsFixed) {
  Timing t = timing(0.011, 17, "converged", 1);
  t.pass_range = 0.13;
  t.sampling.target_spread = 0.02;
  t.sampling.time_budget_s = 30;
  t.sampling.seconds = 4.5;
  const Timing back = nlohmann::json(t).get<Timing>();
  EXPECT_EQ(back.sampling.stop, "converged");
  EXPECT_DOUBLE_EQ(back.sampling.seconds, 4.5);
  EXPECT_DOUBLE_EQ(back.pass_range, 0.13);
  ASSERT_EQ(back.off_clock_passes.size(), 1u);
  EXPECT_DOUBLE_EQ(back.off_clock_passes[0].others_max_mhz, 1605);
  nlohmann::json old = t;
  for (const char* k : {"sampling", "off_clock_passes", "pass_range"}) old.erase(k);
  const Timing v1 = old.get<Timing>();
  EXPECT_EQ(v1.sampling.stop, "fixed");
  EXPECT_DOUBLE_EQ(v1.pass_range, v1.spread);
  EXPECT_TRUE(v1.off_clock_passes.empty());
}

}  // namespace
}  // namespace vsa
