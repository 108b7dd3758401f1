// The engine on the host: a real CPU case passes; planted host-backend faults
// (wrong values, unwritten outputs, nondeterminism) are caught by the checks.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>

#include "engine/case_runner.hpp"
#include "host_case.hpp"
#include "naive_reference.hpp"
#include "report/report.hpp"
#include "vsa/schedule_explorer.hpp"

namespace vsa {
namespace {

enum class Flaw { none, wrong_value, skip_last_row, flip_each_run };

// A host backend that computes the naive reference, then damages it on purpose.
class FlawedBackend final : public Backend {
 public:
  explicit FlawedBackend(Flaw flaw) : m_flaw(flaw) {}
  std::string name() const override { return "flawed"; }
  std::string description() const override { return "test double"; }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op) const override { return true; }
  Support supports(const DeviceInfo&, const Shape&, Op) const override { return Support::yes(); }
  Status forward(const ForwardArgs& a) override {
    naive::forward(a);
    const auto n = a.shape.tensor_elems();
    if (m_flaw == Flaw::wrong_value) a.out[n / 2] = float_to_bf16(bf16_to_float(a.out[n / 2]) + 1.0f);
    if (m_flaw == Flaw::skip_last_row)
      for (int d = 0; d < a.shape.head_dim; ++d) a.out[n - 1 - d] = 0x7fa5;  // left as poisoned
    return Status::success();
  }
  Status backward(const BackwardArgs& a) override {
    naive::backward(a);
    if (m_flaw == Flaw::flip_each_run && (m_runs++ % 2 == 1)) a.dk[3] ^= 1;
    return Status::success();
  }

 private:
  Flaw m_flaw;
  std::atomic<int> m_runs{0};
};

CaseSpec small_case(Mode mode = Mode::check) { return test::small_host_case("flawed", mode); }

CaseResult run_with(Flaw flaw, const CaseSpec& spec) {
  return test::run_host_case(std::make_unique<FlawedBackend>(flaw), spec);
}

TEST(CaseRunner, CorrectBackendPasses) {
  const CaseResult r = run_with(Flaw::none, small_case());
  EXPECT_EQ(r.verdict, kPass) << r.message;
  ASSERT_EQ(r.backends.size(), 1u);
  EXPECT_EQ(r.backends[0].metrics.size(), 5u);  // o, lse, dq, dk, dv
  EXPECT_GT(r.pairs, 0);
  EXPECT_DOUBLE_EQ(r.flops_fwd, 4.0 * 16 * 16 * 16 * double(r.pairs));
}

TEST(CaseRunner, WrongValueFails) {
  const CaseResult r = run_with(Flaw::wrong_value, small_case());
  EXPECT_EQ(r.verdict, kFail);
  EXPECT_NE(r.backends[0].reason.find("o: rel_max"), std::string::npos) << r.backends[0].reason;
}

TEST(CaseRunner, UnwrittenOutputFails) {
  const CaseResult r = run_with(Flaw::skip_last_row, small_case());
  EXPECT_EQ(r.verdict, kFail);
  EXPECT_NE(r.backends[0].reason.find("never written"), std::string::npos) << r.backends[0].reason;
}

TEST(CaseRunner, StabilityCatchesRunToRunDifferences) {
  CaseSpec spec = small_case(Mode::stability);
  spec.op = OpSelect::backward;
  const CaseResult r = run_with(Flaw::flip_each_run, spec);
  EXPECT_EQ(r.verdict, kFail);
  bool saw = false;
  for (const auto& s : r.backends[0].stability)
    if (s.tensor == "dk") {
      saw = true;
      EXPECT_GT(s.mismatched_runs, 0);
      EXPECT_FALSE(s.pass);
    }
  EXPECT_TRUE(saw);
}

// A backend without the case's op has nothing checked: SKIP naming the op, never a PASS
// with no metrics (a forward-only plugin on a backward case, or added with --add-backend).
class ForwardOnlyBackend final : public Backend {
 public:
  std::string name() const override { return "flawed"; }
  std::string description() const override { return "test double, forward only"; }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op op) const override { return op == Op::forward; }
  Support supports(const DeviceInfo&, const Shape&, Op) const override { return Support::yes(); }
  Status forward(const ForwardArgs& a) override {
    naive::forward(a);
    return Status::success();
  }
  Status backward(const BackwardArgs&) override { return Status::failure("no backward"); }
};

TEST(CaseRunner, ABackendWithoutTheCasesOpSkipsNamingIt) {
  CaseSpec spec = small_case();
  spec.op = OpSelect::backward;
  CaseResult r = test::run_host_case(std::make_unique<ForwardOnlyBackend>(), spec);
  EXPECT_EQ(r.verdict, kSkip);
  ASSERT_EQ(r.backends.size(), 1u);
  EXPECT_EQ(r.backends[0].reason, "implements no requested op (backward)");
  EXPECT_TRUE(r.backends[0].metrics.empty());

  spec.op = OpSelect::both;  // the op it has still runs and is checked
  r = test::run_host_case(std::make_unique<ForwardOnlyBackend>(), spec);
  EXPECT_EQ(r.verdict, kPass) << r.message;
  EXPECT_EQ(r.backends[0].metrics.size(), 2u);  // o, lse
}

// Without a reference the backward still gets real O and lse: the first backend's forward, run
// untimed. Uninitialised inputs would make every output garbage that no stability check can tell
// from a race (and null pointers on the host).
TEST(CaseRunner, WithoutAReferenceTheBackwardTakesTheBackendsOwnForward) {
  CaseSpec spec = small_case(Mode::stability);
  spec.reference = "none";
  spec.op = OpSelect::backward;
  CaseResult r = run_with(Flaw::none, spec);
  EXPECT_EQ(r.verdict, kPass) << r.message;
  ASSERT_FALSE(r.backends.empty());
  EXPECT_FALSE(r.backends[0].stability.empty());
  EXPECT_EQ(r.backward_inputs, "flawed");  // the report says whose forward it was
  EXPECT_EQ(nlohmann::json(r)["backward_inputs"], "flawed");
  EXPECT_EQ(nlohmann::json(r).get<CaseResult>().backward_inputs, "flawed");
  EXPECT_FALSE(run_with(Flaw::none, small_case()).backward_inputs);  // with a reference: absent
  EXPECT_FALSE(nlohmann::json(run_with(Flaw::none, small_case())).contains("backward_inputs"));

  r = run_with(Flaw::flip_each_run, spec);  // a run-to-run difference is still seen
  EXPECT_EQ(r.verdict, kFail) << r.message;
}

class BackwardOnlyBackend final : public Backend {
 public:
  std::string name() const override { return "flawed"; }
  std::string description() const override { return "test double, backward only"; }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op op) const override { return op == Op::backward; }
  Support supports(const DeviceInfo&, const Shape&, Op) const override { return Support::yes(); }
  Status forward(const ForwardArgs&) override { return Status::failure("no forward"); }
  Status backward(const BackwardArgs& a) override {
    naive::backward(a);
    return Status::success();
  }
};

TEST(CaseRunner, WithoutAReferenceOrAForwardTheBackwardIsNotRunOnGarbage) {
  CaseSpec spec = small_case(Mode::stability);
  spec.reference = "none";
  spec.op = OpSelect::backward;
  const CaseResult r = test::run_host_case(std::make_unique<BackwardOnlyBackend>(), spec);
  EXPECT_EQ(r.verdict, kFail);
  EXPECT_NE(r.message.find("the backward needs O and lse from a forward, and no backend in this case can run one here"),
            std::string::npos)
      << r.message;
  EXPECT_EQ(r.backends[0].verdict, kSkip);
}

// A backend whose forward cannot give the backward its inputs: refused for the shape (asked
// before it is chosen), or failing when run (the next backend's forward is taken).
class NoUsableForwardBackend final : public Backend {
 public:
  NoUsableForwardBackend(bool refuses, int& forwards) : m_refuses(refuses), m_forwards(forwards) {}
  std::string name() const override { return "flawed"; }
  std::string description() const override { return "test double, no usable forward"; }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op) const override { return true; }
  Support supports(const DeviceInfo&, const Shape&, Op op) const override {
    return m_refuses && op == Op::forward ? Support::no("no forward at this shape") : Support::yes();
  }
  Status forward(const ForwardArgs&) override {
    ++m_forwards;
    return Status::failure("forward broke");
  }
  Status backward(const BackwardArgs& a) override {
    naive::backward(a);
    return Status::success();
  }

 private:
  bool m_refuses;
  int& m_forwards;
};

TEST(CaseRunner, WithoutAReferenceTheBackwardsInputsComeFromAForwardThatCanRun) {
  CaseSpec spec = small_case(Mode::stability);
  spec.reference = "none";
  spec.op = OpSelect::backward;
  spec.backends = {"flawed", "cpu-ref"};
  for (const bool refuses : {true, false}) {
    int forwards = 0;
    const CaseResult r = test::run_host_case(std::make_unique<NoUsableForwardBackend>(refuses, forwards), spec);
    EXPECT_EQ(r.verdict, kPass) << (refuses ? "refused" : "failing") << " forward: " << r.message;
    for (const auto& b : r.backends) EXPECT_EQ(b.verdict, kPass) << b.backend << ": " << b.reason;
    EXPECT_EQ(forwards, refuses ? 0 : 1);  // a forward its backend refuses is not run
    EXPECT_EQ(r.backward_inputs, "cpu-ref");
  }
  spec.backends = {"flawed"};  // none other: refused, naming what was tried
  int forwards = 0;
  const CaseResult r = test::run_host_case(std::make_unique<NoUsableForwardBackend>(false, forwards), spec);
  EXPECT_EQ(r.verdict, kFail);
  EXPECT_NE(r.message.find("every forward tried failed (flawed: forward for the backward's inputs"), std::string::npos)
      << r.message;
}

TEST(CaseRunner, GpuBackendSkipsWithReasonWithoutDevice) {
  CaseSpec spec = small_case();
  spec.backends = {"cuda-ref", "not-built-here"};
  const CaseResult r = run_with(Flaw::none, spec);
  EXPECT_EQ(r.verdict, kSkip);
  for (const auto& b : r.backends) EXPECT_FALSE(b.reason.empty()) << b.backend;
}

// A host backend whose outcome depends on the schedule seed, as the execution model's does:
// correct except at one seed, where it fails the call, damages O, or changes lse's last bit.
enum class SeedFlaw { none, error, wrong_value, schedule_dependent_lse, schedule_dependent_dq };
class ScheduledBackend final : public Backend, public ScheduleExplorer {
 public:
  ScheduledBackend(SeedFlaw flaw, std::uint64_t at) : m_flaw(flaw), m_at(at) {}
  std::string name() const override { return "scheduled"; }
  std::string description() const override { return "test double"; }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op) const override { return true; }
  Support supports(const DeviceInfo&, const Shape&, Op) const override { return Support::yes(); }
  std::vector<std::string> nondeterministic_outputs() const override { return {"dq"}; }
  void set_schedule_seed(std::uint64_t seed) override { m_seed = seed; }
  Status forward(const ForwardArgs& a) override {
    seeds.push_back(m_seed);
    naive::forward(a);
    if (m_seed != m_at) return Status::success();
    if (m_flaw == SeedFlaw::error) return Status::failure("race at seed " + std::to_string(m_seed));
    if (m_flaw == SeedFlaw::wrong_value) a.out[5] = float_to_bf16(bf16_to_float(a.out[5]) + 1.0f);
    if (m_flaw == SeedFlaw::schedule_dependent_lse) {
      std::uint32_t bits;
      std::memcpy(&bits, &a.lse[3], 4);
      bits ^= 1;
      std::memcpy(&a.lse[3], &bits, 4);
    }
    return Status::success();
  }
  Status backward(const BackwardArgs& a) override {
    seeds.push_back(m_seed);
    naive::backward(a);
    if (m_seed == m_at && m_flaw == SeedFlaw::schedule_dependent_dq) a.dq[3] ^= 1;
    return Status::success();
  }
  std::vector<std::uint64_t> seeds;  // of every call, in order

 private:
  SeedFlaw m_flaw;
  std::uint64_t m_at;
  std::uint64_t m_seed = 0;
};

struct ScheduledRun {
  CaseResult result;
  std::vector<std::uint64_t> seeds;
};

ScheduledRun run_scheduled(SeedFlaw flaw, std::uint64_t at, CaseSpec spec) {
  Registry reg;
  register_cpu_backends(reg);
  auto backend = std::make_unique<ScheduledBackend>(flaw, at);
  ScheduledBackend* b = backend.get();
  reg.add(std::move(backend));
  spec.backends = {"scheduled"};
  WorkerContext ctx;
  ctx.registry = &reg;
  ScheduledRun out;
  out.result = run_case(spec, ctx).result;
  out.seeds = b->seeds;
  return out;
}

CaseSpec scheduled_case(int schedules, std::uint64_t first) {
  CaseSpec c = small_case();
  c.schedules = schedules;
  c.schedule_seed = first;
  return c;
}

TEST(CaseRunner, EachOpRunsEverySchedulePassingWithoutAFindingSeed) {
  const ScheduledRun r = run_scheduled(SeedFlaw::none, 0, scheduled_case(3, 5));
  ASSERT_EQ(r.result.backends.size(), 1u);
  const BackendResult& b = r.result.backends[0];
  EXPECT_EQ(b.verdict, kPass) << b.reason;
  EXPECT_EQ(r.seeds, (std::vector<std::uint64_t>{5, 6, 7, 5, 6, 7})) << "forward seeds 5..7, then backward 5..7";
  ASSERT_TRUE(b.schedules.has_value());
  EXPECT_EQ(b.schedules->count, 3);
  EXPECT_EQ(b.schedules->first_seed, 5u);
  EXPECT_FALSE(b.schedules->finding_seed.has_value());
  EXPECT_EQ(b.metrics.size(), 5u) << "one set of metrics per op, not per schedule";
}

TEST(CaseRunner, AFailedCallRecordsItsScheduleSeed) {
  const ScheduledRun r = run_scheduled(SeedFlaw::error, 6, scheduled_case(4, 5));
  const BackendResult& b = r.result.backends[0];
  EXPECT_EQ(b.verdict, kFault);
  EXPECT_NE(b.reason.find("race at seed 6"), std::string::npos) << b.reason;
  ASSERT_TRUE(b.schedules && b.schedules->finding_seed);
  EXPECT_EQ(*b.schedules->finding_seed, 6u);
  EXPECT_FALSE(b.schedules->baseline_seed.has_value());
  EXPECT_EQ(r.seeds, (std::vector<std::uint64_t>{5, 6})) << "the first finding ends the backend";
}

TEST(CaseRunner, AWrongOutputOnOneScheduleFailsWithThatSeed) {
  const ScheduledRun r = run_scheduled(SeedFlaw::wrong_value, 7, scheduled_case(3, 5));
  const BackendResult& b = r.result.backends[0];
  EXPECT_EQ(b.verdict, kFail);
  EXPECT_NE(b.reason.find("o: rel_max"), std::string::npos) << b.reason;
  EXPECT_NE(b.reason.find("(schedule seed 7)"), std::string::npos) << b.reason;
  ASSERT_TRUE(b.schedules && b.schedules->finding_seed);
  EXPECT_EQ(*b.schedules->finding_seed, 7u);
  // Alone, seed 7 gives the same finding: what `repro` relies on.
  const ScheduledRun again = run_scheduled(SeedFlaw::wrong_value, 7, scheduled_case(1, 7));
  EXPECT_EQ(again.result.backends[0].verdict, kFail);
  EXPECT_EQ(*again.result.backends[0].schedules->finding_seed, 7u);
}

TEST(CaseRunner, AScheduleDependentOutputFailsNamingBothSeeds) {
  // lse's last bit at seed 6: within tolerance of the reference, but not bitwise equal to seed 5's.
  const ScheduledRun r = run_scheduled(SeedFlaw::schedule_dependent_lse, 6, scheduled_case(3, 5));
  const BackendResult& b = r.result.backends[0];
  EXPECT_EQ(b.verdict, kFail);
  EXPECT_NE(b.reason.find("forward lse: 1 of"), std::string::npos) << b.reason;
  EXPECT_NE(b.reason.find("between schedule seeds 5 and 6"), std::string::npos) << b.reason;
  ASSERT_TRUE(b.schedules && b.schedules->finding_seed && b.schedules->baseline_seed);
  EXPECT_EQ(*b.schedules->finding_seed, 6u);
  EXPECT_EQ(*b.schedules->baseline_seed, 5u);
  // dq is declared schedule-dependent: a difference there is no finding.
  const ScheduledRun dq = run_scheduled(SeedFlaw::schedule_dependent_dq, 6, scheduled_case(3, 5));
  EXPECT_EQ(dq.result.backends[0].verdict, kPass) << dq.result.backends[0].reason;
}

TEST(CaseRunner, StabilityRunsContinueWithTheSeedsAfterTheCheck) {
  CaseSpec spec = scheduled_case(2, 10);
  spec.mode = Mode::stability;
  spec.op = OpSelect::forward;
  spec.stability.runs = 3;
  const ScheduledRun r = run_scheduled(SeedFlaw::error, 13, spec);
  EXPECT_EQ(r.seeds, (std::vector<std::uint64_t>{10, 11, 12, 13}));
  const BackendResult& b = r.result.backends[0];
  EXPECT_EQ(b.verdict, kFault);
  ASSERT_TRUE(b.schedules && b.schedules->finding_seed);
  EXPECT_EQ(*b.schedules->finding_seed, 13u);
}

TEST(CaseRunner, BackendsWithoutSchedulesRunOnceAndReportNone) {
  const CaseResult r = run_with(Flaw::none, scheduled_case(5, 1));
  EXPECT_EQ(r.verdict, kPass);
  EXPECT_FALSE(r.backends[0].schedules.has_value());
  EXPECT_FALSE(nlohmann::json(r.backends[0]).contains("schedules"));
}

TEST(CaseRunner, ResultSurvivesTheReportRoundTrip) {
  Report rep;
  rep.cases.push_back(run_with(Flaw::wrong_value, small_case()));
  const Report back = report_from_json(to_json(rep));
  ASSERT_EQ(back.cases.size(), 1u);
  EXPECT_EQ(nlohmann::json(back.cases[0]), nlohmann::json(rep.cases[0]));
  EXPECT_NE(render_markdown(back).find("| FAIL |"), std::string::npos);
  Report scheduled;
  scheduled.cases.push_back(run_scheduled(SeedFlaw::schedule_dependent_lse, 6, scheduled_case(3, 5)).result);
  const Report back2 = report_from_json(to_json(scheduled));
  EXPECT_EQ(nlohmann::json(back2.cases[0]), nlohmann::json(scheduled.cases[0]));
  EXPECT_EQ(*back2.cases[0].backends[0].schedules->baseline_seed, 5u);
  EXPECT_NE(render_markdown(back2).find("| found at schedule seed 6 (of 5..7); forward lse: 1 of"), std::string::npos)
      << render_markdown(back2);
  Report quiet;
  quiet.cases.push_back(run_scheduled(SeedFlaw::none, 0, scheduled_case(3, 5)).result);
  EXPECT_NE(render_markdown(quiet).find("| schedules 5..7: no finding |"), std::string::npos) << render_markdown(quiet);
}

}  // namespace
}  // namespace vsa
