// Whether a timing shared its GPU with another process (report/shared_gpu.hpp), from the
// compute_pids of its NVML samples, and the Markdown report's section for it.
#include "report/shared_gpu.hpp"

#include <gtest/gtest.h>

#include "report/report.hpp"
#include "synthetic_reports.hpp"

namespace vsa {
namespace {

nlohmann::json pass_with(int index, const nlohmann::json& before, const nlohmann::json& after) {
  return {{"pass", index}, {"before", {{"compute_pids", before}}}, {"after", {{"compute_pids", after}}}};
}

Timing timing_with(nlohmann::json clocks) {
  Timing t;
  t.op = "bwd";
  t.tflops = 372.9;
  t.clocks = std::move(clocks);
  return t;
}

TEST(SharedGpu, AWorkerAloneIsNotShared) {
  const Timing t = timing_with({pass_with(0, {101}, {101}), pass_with(1, {101}, {101})});
  const SharedGpu s = shared_gpu(t);
  EXPECT_EQ(s.passes, 0);
  EXPECT_EQ(s.sampled_passes, 2);
  EXPECT_EQ(shared_gpu_text(t), "");
}

TEST(SharedGpu, AnotherProcessInAnySampleOfAPassMakesItShared) {
  // Pass 0 alone; pass 1 a neighbour appeared by its end; pass 2 one only during it (from the
  // during summary's count); pass 3 unlisted (NVML could not say): unknown, not alone.
  nlohmann::json clocks = {pass_with(0, {101}, {101}),
                           pass_with(1, {101}, {101, 202}),
                           pass_with(2, {101}, {101}),
                           {{"pass", 3}, {"after", {{"sm_clock_mhz", 1980}}}}};
  clocks[2]["during"] = {{"samples", 5},
                         {"compute_processes", {{"min", 1}, {"mean", 1.8}, {"max", 3}}},
                         {"compute_pids", {101, 303, 404}}};  // came and went inside the pass
  const Timing t = timing_with(clocks);
  const SharedGpu s = shared_gpu(t);
  EXPECT_EQ(s.passes, 2);
  EXPECT_EQ(s.sampled_passes, 3);
  EXPECT_EQ(s.most_others, 2);
  EXPECT_EQ(shared_gpu_text(t),
            "2 of 3 passes ran beside another compute process (up to 2 others; pids seen: 101, 202, 303, 404)");
}

TEST(SharedGpu, OlderReportsSayNothing) {
  EXPECT_EQ(shared_gpu_text(timing_with(nlohmann::json())), "");
  EXPECT_EQ(shared_gpu(timing_with({{{"pass", 0}, {"after", {{"sm_clock_mhz", 1980}}}}})).sampled_passes, 0);
}

TEST(SharedGpu, TheMarkdownReportListsSharedTimings) {
  Report r;
  testing::add_timing(r, "perf/S=16384", "sm90a-det", "bwd", 372.9, 0.004);
  r.cases[0].backends[0].timings[0].clocks = {pass_with(0, {101, 202}, {101, 202})};
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("## Shared GPU"), std::string::npos) << md;
  EXPECT_NE(md.find("| perf/S=16384 | sm90a-det | bwd | 372.9 | 1 of 1 passes ran beside another compute process (up "
                    "to 1 other; pids seen: 101, 202) |"),
            std::string::npos)
      << md;
  r.cases[0].backends[0].timings[0].clocks = {pass_with(0, {101}, {101})};
  EXPECT_EQ(render_markdown(r).find("## Shared GPU"), std::string::npos);
}

}  // namespace
}  // namespace vsa
