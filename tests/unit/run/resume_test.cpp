// `run --resume` (run/resume.hpp): a report continues only on the run it came from.
#include <gtest/gtest.h>

#include <string>

#include "run/resume.hpp"

namespace vsa {
namespace {

using nlohmann::json;

CaseSpec case_named(const std::string& name) {
  CaseSpec c;
  c.name = name;
  c.backends = {"cpu-ref"};
  return c;
}

struct Fixture {
  ReportFile file;
  ResumingRun run;
  Fixture() {
    run.suites = json::array({{{"name", "qualify"}, {"source", "builtin:qualify"}, {"description", "d"}}});
    run.cases = {case_named("q/a"), case_named("q/b"), case_named("q/c")};
    run.hostname = "node7";
    run.tool = {{"name", "vsa-bench"}, {"git_sha", "abc"}};
    run.backends = json::array({{{"name", "cpu-ref"}}});
    run.devices = {{{"uuid", "GPU-1"}, {"name", "NVIDIA H200"}, {"pci_bus_id", "0000:19:00.0"}},
                   {{"uuid", "GPU-2"}, {"name", "NVIDIA H200"}, {"pci_bus_id", "0000:3b:00.0"}}};
    file.path = "r.json";
    file.tool = run.tool;
    Report& r = file.report;
    r.suites = run.suites;
    r.planned_cases = {"q/a", "q/b", "q/c"};
    r.node = {{"hostname", "node7"}};
    r.backends = run.backends;
    r.label = "rack1";
    r.device = run.devices[1];
    CaseResult done;
    done.name = "q/a";
    done.spec = to_json(run.cases[0]);
    r.cases = {done};
  }
  [[nodiscard]] std::string refusal() const { return plan_resume(file, run).refusal; }
};

TEST(Resume, TheSameRunContinuesOnTheReportsGpu) {
  Fixture f;
  const ResumePlan plan = plan_resume(f.file, f.run);
  EXPECT_EQ(plan.refusal, "");
  EXPECT_EQ(plan.device_index, 1);  // GPU-2, whatever its ordinal now
  f.run.label = "rack1";            // the same label given again is fine
  EXPECT_EQ(f.refusal(), "");
}

// A suite file given by another spelling of its path (absolute, or from another directory) is
// the same suite: the finished cases' specs are what must match.
TEST(Resume, TheSameSuiteByAnotherPathIsTheSameSuite) {
  Fixture f;
  f.file.report.suites[0]["source"] = "s/slow.json";
  f.run.suites[0]["source"] = "/tmp/work/s/slow.json";
  EXPECT_EQ(f.refusal(), "");
  f.run.suites[0]["source"] = "/tmp/work/s/fast.json";  // another file of the same suite name
  EXPECT_NE(f.refusal().find("it ran suites"), std::string::npos) << f.refusal();
}

TEST(Resume, RefusesAnotherSuiteOrCaseList) {
  Fixture f;
  f.run.suites[0]["name"] = "perf";
  EXPECT_NE(f.refusal().find("it ran suites"), std::string::npos) << f.refusal();
  Fixture g;
  g.run.cases.pop_back();
  EXPECT_NE(g.refusal().find("it planned 3 cases, this run has 2"), std::string::npos) << g.refusal();
  Fixture h;  // an older report without a plan: the finished cases must match
  h.file.report.planned_cases.clear();
  h.run.cases[0].seed = 9;
  EXPECT_NE(h.refusal().find("is not this run's case of that name"), std::string::npos) << h.refusal();
}

TEST(Resume, RefusesAnotherNodeGpuBinaryOrLabel) {
  Fixture node;
  node.run.hostname = "node8";
  EXPECT_NE(node.refusal().find("it ran on node \"node7\", this is \"node8\""), std::string::npos) << node.refusal();
  Fixture gpu;
  gpu.run.devices.pop_back();
  EXPECT_NE(gpu.refusal().find("its GPU, NVIDIA H200 GPU-2, is not one this run can use"), std::string::npos)
      << gpu.refusal();
  Fixture binary;
  binary.run.tool["git_sha"] = "def";
  EXPECT_NE(binary.refusal().find("another vsa-bench binary"), std::string::npos) << binary.refusal();
  Fixture backends;
  backends.run.backends.push_back({{"name", "sm90a"}});
  EXPECT_NE(backends.refusal().find("another vsa-bench binary"), std::string::npos) << backends.refusal();
  Fixture label;
  label.run.label = "rack2";
  EXPECT_NE(label.refusal().find("its label is \"rack1\", not \"rack2\""), std::string::npos) << label.refusal();
}

// Two MIG instances of one GPU share its UUID; a report resumes only on its own instance.
// On a node of two GPU models each GPU's report lists its own kernel images (run/kernel_images.hpp):
// the report is judged against what this binary answers on that GPU, not on another.
TEST(Resume, ABackendListIsJudgedByTheReportsOwnGpusImages) {
  Fixture f;
  const json own = json::array({{{"name", "cuda-ref"}, {"images", {"sm_89 (JIT from compute_90)"}}}});
  f.run.backends = json::array({{{"name", "cuda-ref"}, {"images", {"sm_90"}}}});
  f.run.device_backends = {f.run.backends, own};  // GPU-1 answers sm_90, GPU-2 (the report's) JITs
  f.file.report.backends = own;
  const ResumePlan plan = plan_resume(f.file, f.run);
  EXPECT_EQ(plan.refusal, "");
  EXPECT_EQ(plan.device_index, 1);
  f.file.report.backends = f.run.backends;  // GPU-1's list in GPU-2's report: another binary wrote it
  EXPECT_NE(f.refusal().find("another vsa-bench binary"), std::string::npos) << f.refusal();
  // GPU-2 gone from this run: that is the reason, not the images only GPU-2 could answer.
  f.file.report.backends = own;
  f.run.devices.pop_back();
  f.run.device_backends.pop_back();
  EXPECT_NE(f.refusal().find("its GPU, NVIDIA H200 GPU-2, is not one this run can use"), std::string::npos)
      << f.refusal();
}

TEST(Resume, RefusesAnotherMigInstanceOfTheSameGpu) {
  Fixture f;
  f.run.devices = {{{"uuid", "GPU-1"}, {"mig_uuid", "MIG-a"}, {"name", "NVIDIA H200"}, {"pci_bus_id", "0000:19:00.0"}},
                   {{"uuid", "GPU-1"}, {"mig_uuid", "MIG-b"}, {"name", "NVIDIA H200"}, {"pci_bus_id", "0000:19:00.0"}}};
  f.file.report.device = f.run.devices[1];
  EXPECT_EQ(plan_resume(f.file, f.run).device_index, 1);  // MIG-b, not the first with GPU-1
  f.run.devices.pop_back();
  EXPECT_NE(f.refusal().find("its GPU, NVIDIA H200 GPU-1 instance MIG-b, is not one this run can use"),
            std::string::npos)
      << f.refusal();
  f.file.report.device.erase("mig_uuid");  // a report from before the field: by the GPU's UUID
  EXPECT_EQ(f.refusal(), "");
}

TEST(Resume, CpuOnlyReportsResumeOnlyCpuOnlyAndCompleteOnesNot) {
  Fixture cpu;
  cpu.file.report.device = nullptr;
  EXPECT_NE(cpu.refusal().find("a CPU-only report; resume it with --devices none"), std::string::npos);
  cpu.run.devices.clear();
  EXPECT_EQ(plan_resume(cpu.file, cpu.run).refusal, "");
  EXPECT_EQ(plan_resume(cpu.file, cpu.run).device_index, -1);
  Fixture done;
  done.file.report.complete = true;
  EXPECT_NE(done.refusal().find("complete already"), std::string::npos);
}

}  // namespace
}  // namespace vsa
