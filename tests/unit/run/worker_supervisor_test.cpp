// Worker supervision (run/worker_supervisor.hpp) against scripted stand-in workers: a
// /bin/sh script reads the case request and answers as a worker would, or does what a
// broken worker does (dies, goes silent, says something off-protocol).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "run/worker_supervisor.hpp"

namespace vsa {
namespace {

namespace fs = std::filesystem;

CaseSpec spec_of(std::vector<std::string> backends, double timeout_s = 20) {
  CaseSpec spec;
  spec.name = "t/case";
  spec.backends = std::move(backends);
  spec.reference = "cpu-naive";
  spec.timeout_s = timeout_s;
  return spec;
}

// A worker that reads one request, then runs `script` (sh).
std::vector<std::string> scripted(const std::string& script) { return {"/bin/sh", "-c", "read -r request; " + script}; }

const BackendResult* backend(const CaseResult& r, const std::string& name) {
  for (const auto& b : r.backends)
    if (b.backend == name) return &b;
  return nullptr;
}

std::string result_line(const std::string& backend, const std::string& verdict) {
  return R"({"event": "result", "result": {"name": "t/case", "spec": {}, "verdict": ")" + verdict +
         R"(", "reference": "cpu-naive", "message": "", "pairs": 2, "flops_fwd": 1, "flops_bwd": 0, "seconds": 0.5,
         "backends": [{"backend": ")" +
         backend + R"(", "verdict": ")" + verdict +
         R"(", "reason": "", "metrics": [], "timings": [], "stability": []}]}})";
}

TEST(WorkerSupervisor, AResultIsTakenAsTheWorkerSentIt) {
  WorkerSupervisor s(scripted("echo 'library chatter'; echo '" + result_line("cpu-ref", "PASS") + "'; sleep 5"), -1);
  const CaseResult r = s.run(spec_of({"cpu-ref"}));
  EXPECT_EQ(r.verdict, kPass);
  ASSERT_NE(backend(r, "cpu-ref"), nullptr);
  EXPECT_EQ(r.pairs, 2);
}

TEST(WorkerSupervisor, ADeathIsAFaultOfTheBackendItWasRunningWithItsStderr) {
  WorkerSupervisor s(scripted(R"(echo '{"event": "start", "backend": "b1", "phase": "forward"}'; )"
                              R"(echo 'assertion failed: x < n' >&2; kill -ABRT $$)"),
                     -1);
  const CaseResult r = s.run(spec_of({"b1"}));
  EXPECT_EQ(r.verdict, kFault);
  const BackendResult* b = backend(r, "b1");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->verdict, kFault);
  EXPECT_NE(b->reason.find("terminated by signal 6"), std::string::npos) << b->reason;
  EXPECT_NE(b->reason.find("during forward"), std::string::npos) << b->reason;
  EXPECT_NE(b->reason.find("assertion failed: x < n"), std::string::npos) << b->reason;
}

TEST(WorkerSupervisor, SilenceBeyondTheTimeoutIsAHang) {
  WorkerSupervisor s(scripted(R"(echo '{"event": "start", "backend": "b1", "phase": "forward"}'; sleep 30)"), -1);
  const CaseResult r = s.run(spec_of({"b1"}, 1));
  EXPECT_EQ(r.verdict, kHang);
  EXPECT_NE(r.message.find("no answer within 1 s during forward"), std::string::npos) << r.message;
}

TEST(WorkerSupervisor, AnErrorEventFailsTheCase) {
  WorkerSupervisor s(scripted(R"(echo '{"event": "error", "message": "bad request: x"}'; sleep 30)"), -1);
  const CaseResult r = s.run(spec_of({"b1"}));
  EXPECT_EQ(r.verdict, kFail);
  EXPECT_EQ(r.message, "bad request: x");
}

TEST(WorkerSupervisor, BackendsAfterACrashRunInAFreshWorker) {
  // The first worker dies in b1; the second is asked for b2 alone and answers.
  const fs::path marker = fs::temp_directory_path() / ("vsa-supervisor-" + std::to_string(::getpid()));
  fs::remove(marker);
  const std::string script = "if [ -e " + marker.string() + " ]; then echo '" + result_line("b2", "PASS") +
                             "'; sleep 5; else touch " + marker.string() +
                             R"(; echo '{"event": "start", "backend": "b1", "phase": "forward"}'; kill -SEGV $$; fi)";
  WorkerSupervisor s(scripted(script), -1);
  const CaseResult r = s.run(spec_of({"b1", "b2"}));
  fs::remove(marker);
  ASSERT_NE(backend(r, "b1"), nullptr);
  ASSERT_NE(backend(r, "b2"), nullptr);
  EXPECT_EQ(backend(r, "b1")->verdict, kFault);
  EXPECT_EQ(backend(r, "b2")->verdict, kPass);
  EXPECT_EQ(r.verdict, kFault);
}

}  // namespace
}  // namespace vsa
