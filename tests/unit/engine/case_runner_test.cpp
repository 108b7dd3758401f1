// The engine on the host: a real CPU case passes; planted host-backend faults
// (wrong values, unwritten outputs, nondeterminism) are caught by the checks.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "engine/case_runner.hpp"
#include "naive_reference.hpp"
#include "report/report.hpp"

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

CaseSpec small_case(Mode mode = Mode::check) {
  CaseSpec c;
  c.name = "t";
  c.mode = mode;
  c.shape = Shape{1, 2, 4, 16, 16, 1, 1};
  c.pattern.kind = "ragged";
  c.pattern.density = 0.5;
  c.vbs.kind = "random";
  c.backends = {"flawed"};
  c.reference = "cpu-naive";
  c.stability.runs = 4;
  return c;
}

CaseResult run_with(Flaw flaw, const CaseSpec& spec) {
  Registry reg;
  register_cpu_backends(reg);
  reg.add(std::make_unique<FlawedBackend>(flaw));
  WorkerContext ctx;
  ctx.registry = &reg;
  return run_case(spec, ctx).result;
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

TEST(CaseRunner, GpuBackendSkipsWithReasonWithoutDevice) {
  CaseSpec spec = small_case();
  spec.backends = {"cuda-ref", "not-built-here"};
  const CaseResult r = run_with(Flaw::none, spec);
  EXPECT_EQ(r.verdict, kSkip);
  for (const auto& b : r.backends) EXPECT_FALSE(b.reason.empty()) << b.backend;
}

TEST(CaseRunner, ResultSurvivesTheReportRoundTrip) {
  Report rep;
  rep.cases.push_back(run_with(Flaw::wrong_value, small_case()));
  const Report back = report_from_json(to_json(rep));
  ASSERT_EQ(back.cases.size(), 1u);
  EXPECT_EQ(nlohmann::json(back.cases[0]), nlohmann::json(rep.cases[0]));
  EXPECT_NE(render_markdown(back).find("| FAIL |"), std::string::npos);
}

}  // namespace
}  // namespace vsa
