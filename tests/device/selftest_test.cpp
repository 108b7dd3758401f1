// GPU planted-fault backends (kernels/selftest) through the harness in-process:
// each is correct except for its planted bug, and the check meant for it fires.
// The faults that end a process (illegal address, hang) run isolated, in
// `vsa-bench selftest` (tests/cli/selftest.sh), not here.
#include <gtest/gtest.h>

#include <string>

#include "device_buffers.hpp"
#include "engine/case_runner.hpp"
#include "engine/devices.hpp"
#include "selftest/cases.hpp"
#include "selftest/stream_safety.hpp"
#include "suite/suite.hpp"
#include "vsa/registry.hpp"

namespace vsa::test {
namespace {

class PlantedGpuFaults : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    m_device = query_devices().devices.at(0);
    m_ctx.device = m_device;
    m_ctx.registry = &m_registry;
  }

  CaseResult run(const std::string& json_text) {
    return run_case(case_from_json(nlohmann::json::parse(json_text), "test", "$"), m_ctx).result;
  }

  static const BackendResult& only_backend(const CaseResult& r) {
    EXPECT_EQ(r.backends.size(), 1u) << r.message;
    return r.backends.at(0);
  }

  static const TensorMetrics& metric(const BackendResult& b, const std::string& tensor) {
    for (const auto& m : b.metrics)
      if (m.tensor == tensor) return m;
    throw std::logic_error("no metrics for " + tensor);
  }

  Registry m_registry = make_registry();
  DeviceInfo m_device;
  WorkerContext m_ctx;
};

constexpr const char* kCheck =
    R"({"name": "c", "op": "fwd", "B": 1, "H": 2, "S": 512, "D": 64, "seed": 3, "reference": "cpu-ref",
        "pattern": {"kind": "topk", "density": 0.5}, "backends": ["BACKEND"]})";

std::string check_case(const std::string& backend) {
  std::string text = kCheck;
  text.replace(text.find("BACKEND"), 7, backend);
  return text;
}

TEST_F(PlantedGpuFaults, NanIsCountedAndNothingElseIsWrong) {
  const CaseResult r = run(check_case("selftest-nan"));
  const BackendResult& b = only_backend(r);
  EXPECT_EQ(b.verdict, kFail);
  EXPECT_EQ(metric(b, "o").nan_count, 1);
  EXPECT_EQ(metric(b, "o").unwritten, 0);
  EXPECT_TRUE(metric(b, "lse").pass);
}

TEST_F(PlantedGpuFaults, UnwrittenRowIsCounted) {
  const CaseResult r = run(check_case("selftest-unwritten"));
  const BackendResult& b = only_backend(r);
  EXPECT_EQ(b.verdict, kFail);
  EXPECT_EQ(metric(b, "o").unwritten, 64) << "one row of D = 64";
  EXPECT_EQ(metric(b, "o").nan_count, 0) << "poison is not counted as NaN";
}

TEST_F(PlantedGpuFaults, StreamCacheAndOverlapRaceAreCorrectOnOneStreamWithoutProbe) {
  for (const char* backend : {"selftest-stream-cache", "selftest-overlap-race"}) {
    const CaseResult r = run(check_case(backend));
    EXPECT_EQ(only_backend(r).verdict, kPass) << backend << ": " << only_backend(r).reason;
  }
}

std::string race_case(bool probe, int runs) {
  return std::string(R"({"name": "race", "mode": "stability", "op": "fwd", "B": 1, "H": 2, "S": 4096, "D": 64,
      "seed": 11, "reference": "none", "pattern": {"kind": "topk", "density": 0.125},
      "backends": ["selftest-overlap-race"], "stability": {"runs": )") +
         std::to_string(runs) + "}" + (probe ? R"(, "probes": {"selftest.overlap": 20000})" : "") + "}";
}

TEST_F(PlantedGpuFaults, OverlapRaceIsLatentWithoutProbeAndVisibleWithIt) {
  const CaseResult quiet = run(race_case(false, 50));
  const BackendResult& q = only_backend(quiet);
  EXPECT_EQ(q.verdict, kPass) << q.reason;
  for (const auto& s : q.stability) EXPECT_EQ(s.mismatched_runs, 0) << s.tensor;
  const CaseResult loud = run(race_case(true, 10));
  const BackendResult& l = only_backend(loud);
  EXPECT_EQ(l.verdict, kFail);
  int differing = 0;
  for (const auto& s : l.stability)
    if (s.tensor == "o") differing = s.mismatched_runs;
  EXPECT_GT(differing, 0);
  RecordProperty("race_runs_differing_with_probe", differing);
}

TEST_F(PlantedGpuFaults, TwoStreamCheckCatchesTheCacheAndClearsCudaRef) {
  const CaseSpec spec = case_from_json(stream_case(), "test", "$");
  const StreamSafetyResult planted = check_stream_safety(spec, *m_registry.find("selftest-stream-cache"), m_device, 3);
  const StreamSafetyResult clean = check_stream_safety(spec, *m_registry.find("cuda-ref"), m_device, 3);
  EXPECT_GT(planted.mismatched_rounds, 0);
  EXPECT_EQ(clean.mismatched_rounds, 0);
  RecordProperty("stream_cache_mismatched_rounds", planted.mismatched_rounds);
}

}  // namespace
}  // namespace vsa::test
