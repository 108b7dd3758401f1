// Worker supervision (run/worker_supervisor.hpp) against scripted stand-in workers: a
// /bin/sh script reads the case request and answers as a worker would, or does what a
// broken worker does (dies, goes silent, says something off-protocol).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "run/worker_supervisor.hpp"
#include "scratch_dir.hpp"

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
         R"(", "reference": "cpu-naive", "message": "", "pairs": 2, "flops_fwd": 1, "flops_bwd": 0, "seconds": 0.5, )" +
         R"("backends": [{"backend": ")" + backend + R"(", "verdict": ")" + verdict +
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
  EXPECT_GT(r.seconds, 0.0);
}

TEST(WorkerSupervisor, SilenceBeyondTheTimeoutIsAHang) {
  WorkerSupervisor s(scripted(R"(echo '{"event": "start", "backend": "b1", "phase": "forward"}'; sleep 30)"), -1);
  const CaseResult r = s.run(spec_of({"b1"}, 1.5));
  EXPECT_EQ(r.verdict, kHang);
  // The timeout as the suite gave it (a fractional one read "within 1 s", or "0 s" for 0.5).
  EXPECT_NE(r.message.find("no answer within 1.5 s during forward"), std::string::npos) << r.message;
  EXPECT_GE(r.seconds, 1.5);  // the case took its timeout, and its report says so
}

TEST(WorkerSupervisor, AnErrorEventFailsTheCase) {
  WorkerSupervisor s(scripted(R"(echo '{"event": "error", "message": "bad request: x"}'; sleep 30)"), -1);
  const CaseResult r = s.run(spec_of({"b1"}));
  EXPECT_EQ(r.verdict, kFail);
  EXPECT_EQ(r.message, "bad request: x");
}

TEST(WorkerSupervisor, BackendsAfterACrashRunInAFreshWorker) {
  // The first worker dies in b1; the second is asked for b2 alone and answers.
  const test::ScratchDir scratch("supervisor");
  const fs::path marker = scratch.path() / "marker";
  const std::string script = "if [ -e " + marker.string() + " ]; then echo '" + result_line("b2", "PASS") +
                             "'; sleep 5; else touch " + marker.string() +
                             R"(; echo '{"event": "start", "backend": "b1", "phase": "forward"}'; kill -SEGV $$; fi)";
  WorkerSupervisor s(scripted(script), -1);
  const CaseResult r = s.run(spec_of({"b1", "b2"}));
  ASSERT_NE(backend(r, "b1"), nullptr);
  ASSERT_NE(backend(r, "b2"), nullptr);
  EXPECT_EQ(backend(r, "b1")->verdict, kFault);
  EXPECT_EQ(backend(r, "b2")->verdict, kPass);
  EXPECT_EQ(r.verdict, kFault);
}

// The retry after a lost worker asks for the backends left, with the --add-backend list cut to
// those (the worker refuses a spec whose added backends it does not list: every other backend
// of the case vanished from the report) and the reference the first attempt chose (an "auto"
// reference chosen again from fewer backends can differ).
TEST(WorkerSupervisor, TheRetryKeepsTheAddedBackendsLeftAndTheFirstReference) {
  const test::ScratchDir scratch("supervisor-retry");
  const fs::path marker = scratch.path() / "marker";
  const fs::path request = scratch.path() / "request";
  const std::string script = "if [ -e " + marker.string() + " ]; then echo \"$request\" > " + request.string() +
                             "; echo '" + result_line("b2", "PASS") + "'; sleep 5; else touch " + marker.string() +
                             R"(; echo '{"event": "start", "backend": "cpu-ref", "phase": "reference forward"}';)"
                             R"( echo '{"event": "start", "backend": "b1", "phase": "forward"}'; kill -SEGV $$; fi)";
  WorkerSupervisor s(scripted(script), -1);
  CaseSpec spec = spec_of({"b1", "b2"});
  spec.reference = "auto";
  spec.added_backends = {"b1", "b2"};
  const CaseResult r = s.run(spec);
  const auto asked = nlohmann::json::parse(std::ifstream(request));
  EXPECT_EQ(asked["case"]["backends"], nlohmann::json({"b2"}));
  EXPECT_EQ(asked["case"]["added_backends"], nlohmann::json({"b2"}));
  EXPECT_EQ(asked["case"]["reference"], "cpu-ref");
  ASSERT_NE(backend(r, "b2"), nullptr);
  EXPECT_EQ(backend(r, "b2")->verdict, kPass);
}

// A reference lost with its worker is named as the reference and not retried: nothing is left
// to check against, and each retry would cost the case's timeout again. Every other backend has
// a row saying why it did not run.
TEST(WorkerSupervisor, AHungReferenceIsOneRowAndTheOthersSkipNamingIt) {
  const test::ScratchDir scratch("supervisor-reference");
  const fs::path count = scratch.path() / "attempts";
  WorkerSupervisor s(
      scripted("echo x >> " + count.string() +
               R"(; echo '{"event": "start", "backend": "cpu-ref", "phase": "reference forward"}'; sleep 30)"),
      -1);
  CaseSpec spec = spec_of({"b1", "b2"}, 1);
  spec.reference = "cpu-ref";
  const CaseResult r = s.run(spec);
  std::ifstream lines(count);
  int attempts = 0;
  for (std::string line; std::getline(lines, line);) ++attempts;
  EXPECT_EQ(attempts, 1);
  ASSERT_NE(backend(r, "cpu-ref (reference)"), nullptr);
  EXPECT_EQ(backend(r, "cpu-ref (reference)")->verdict, kHang);
  for (const char* name : {"b1", "b2"}) {
    ASSERT_NE(backend(r, name), nullptr) << name;
    EXPECT_EQ(backend(r, name)->verdict, kSkip);
    EXPECT_NE(backend(r, name)->reason.find("the reference cpu-ref failed"), std::string::npos);
  }
  EXPECT_EQ(r.verdict, kHang);
}

// Without a reference, the retry's backwards took their inputs from its own first forward: the
// merged case names it (CaseResult::backward_inputs).
TEST(WorkerSupervisor, TheRetrysBackwardInputsAreKept) {
  const test::ScratchDir scratch("supervisor-inputs");
  const fs::path marker = scratch.path() / "marker";
  std::string answer = result_line("b2", "PASS");
  answer.insert(answer.rfind('}', answer.rfind('}') - 1), R"(, "backward_inputs": "b2")");  // in "result"
  const std::string script = "if [ -e " + marker.string() + " ]; then echo '" + answer + "'; sleep 5; else touch " +
                             marker.string() +
                             R"(; echo '{"event": "start", "backend": "b1", "phase": "forward"}'; kill -SEGV $$; fi)";
  WorkerSupervisor s(scripted(script), -1);
  const CaseResult r = s.run(spec_of({"b1", "b2"}));
  EXPECT_EQ(r.backward_inputs, "b2");
}

// What issue 20 found aborting the parent (an exception out of the target's thread):
// each must end as a verdict on the case, with the run going on.

TEST(WorkerSupervisor, JsonLinesThatAreNotProtocolObjectsAreSkipped) {
  WorkerSupervisor s(scripted("printf '42\\nnull\\n[1]\\n\"s\"\\ntrue\\n{}\\n{\"event\": 7}\\n'; echo '" +
                              result_line("cpu-ref", "PASS") + "'; sleep 5"),
                     -1);
  const CaseResult r = s.run(spec_of({"cpu-ref"}));
  EXPECT_EQ(r.verdict, kPass) << r.message;
}

TEST(WorkerSupervisor, AResultWithFieldsMissingFailsTheCase) {
  for (const std::string bad : {R"({"event": "result"})", R"({"event": "result", "result": {"name": "x"}})",
                                R"({"event": "result", "result": 42})", R"({"event": "start", "backend": 5})",
                                R"({"event": "error", "message": ["not", "text"]})"}) {
    WorkerSupervisor s(scripted("echo '" + bad + "'; sleep 30"), -1);
    const CaseResult r = s.run(spec_of({"b1"}));
    EXPECT_EQ(r.verdict, kFail) << bad;
    EXPECT_NE(r.message.find("the worker sent a malformed"), std::string::npos) << bad << ": " << r.message;
  }
  // A verdict that is not one.
  std::string bogus = result_line("b1", "PASS");
  bogus.replace(bogus.rfind("\"PASS\""), 6, "\"BOGUS\"");
  WorkerSupervisor s(scripted("echo '" + bogus + "'; sleep 30"), -1);
  EXPECT_EQ(s.run(spec_of({"b1"})).verdict, kFail);
}

TEST(WorkerSupervisor, AnInfiniteRatioSentAsNullIsReadAsInfinity) {
  std::string line = result_line("b1", "FAIL");
  const std::string empty = R"("metrics": [])";
  line.replace(line.find(empty), empty.size(),
               R"("metrics": [{"tensor": "o", "elements": 2, "rel_max": null, "rel_l2": null, "norm_ratio": null, )"
               R"("max_abs_err": 1, "nan_count": 0, "inf_mismatch": 0, "unwritten": 0, "pass": false, )"
               R"("why": "rel_max inf > 0.02"}])");
  WorkerSupervisor s(scripted("echo '" + line + "'; sleep 5"), -1);
  const CaseResult r = s.run(spec_of({"b1"}));
  ASSERT_EQ(r.verdict, kFail) << r.message;
  ASSERT_EQ(r.backends.size(), 1u);
  ASSERT_EQ(r.backends[0].metrics.size(), 1u);
  EXPECT_TRUE(std::isinf(r.backends[0].metrics[0].rel_max));
}

TEST(WorkerSupervisor, AStderrTailCutInsideACharacterIsValidUtf8) {
  // 4095 bytes of "é" after the newline: the 4096-byte tail starts inside one.
  WorkerSupervisor s(scripted(R"({ printf 'x'; i=0; while [ $i -lt 3000 ]; do printf '\303\251'; i=$((i+1)); done; )"
                              R"(printf '\n'; } >&2; kill -ABRT $$)"),
                     -1);
  const CaseResult r = s.run(spec_of({"b1"}));
  EXPECT_EQ(r.verdict, kFault);
  EXPECT_NO_THROW((void)nlohmann::json(r).dump()) << "the FAULT record cannot be written";
  const std::size_t colon = r.message.find(": ");
  ASSERT_NE(colon, std::string::npos) << r.message;
  EXPECT_EQ(r.message.substr(colon + 2, 2), "\xc3\xa9") << "the tail does not start on a whole character";
}

TEST(WorkerSupervisor, StdoutWithoutANewlineIsBoundedAndAFault) {
  // 80 MiB without a newline, then silence: FAULT naming it, long before the timeout.
  WorkerSupervisor s(scripted(R"(echo '{"event": "start", "backend": "b1", "phase": "forward"}'; )"
                              "head -c 83886080 /dev/zero; sleep 60"),
                     -1);
  const auto start = std::chrono::steady_clock::now();
  const CaseResult r = s.run(spec_of({"b1"}, 50));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(r.verdict, kFault);
  EXPECT_NE(r.message.find("more than 64 MiB to stdout without a newline during forward"), std::string::npos)
      << r.message;
}

TEST(WorkerSupervisor, ManyWorkersCrashingAtOnceAreEachAFault) {
  // Issue 20's pipe race: with pipe ends inherited across concurrent spawns, a sibling
  // that lives on holds a crashed worker's stdout open and its FAULT becomes a HANG.
  // 64 crashers and 64 long-lived siblings start from 128 threads at once.
  constexpr int kCrashers = 64;
  std::vector<Verdict> verdicts(kCrashers, kPending);
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int i = 0; i < 2 * kCrashers; ++i)
    threads.emplace_back([&, i] {
      ++ready;
      while (ready < 2 * kCrashers) std::this_thread::yield();
      if (i % 2) {
        WorkerProcess sibling({"/bin/sleep", "20"});
        std::this_thread::sleep_for(std::chrono::seconds(12));
        return;
      }
      WorkerSupervisor s(scripted(R"(echo '{"event": "start", "backend": "b1", "phase": "forward"}'; kill -SEGV $$)"),
                         -1);
      verdicts[std::size_t(i / 2)] = s.run(spec_of({"b1"}, 8)).verdict;
    });
  for (auto& t : threads) t.join();
  int faults = 0;
  for (const Verdict v : verdicts) faults += v == kFault;
  EXPECT_EQ(faults, kCrashers) << "crashed workers not seen to exit (read as HANG)";
}

}  // namespace
}  // namespace vsa
