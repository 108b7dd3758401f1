// A backend's own lse form (Backend::lse_factor, plugin ABI 2): the engine converts the
// forward's lse back to M format after the call and hands the backward its input in the
// backend's form, so a kernel whose lse differs by a scale needs no conversion of its own.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "engine/case_runner.hpp"
#include "host_case.hpp"
#include "naive_reference.hpp"
#include "report/report.hpp"

namespace vsa {
namespace {

// The naive reference with its lse in another form: lse_own = factor x lse (M format).
// `declared` false plants the defect a plugin author would make: the form, but no factor.
// `wobble`: every other run moves one lse element by one ulp, to a neighbour that the
// conversion to M format maps onto the same float (a run-to-run difference only the
// backend's own form shows).
class OwnLseForm final : public Backend {
 public:
  OwnLseForm(double factor, bool declared, bool skip_one_lse = false, bool wobble = false)
      : m_factor(factor), m_declared(declared), m_skip_one_lse(skip_one_lse), m_wobble(wobble) {}
  std::string name() const override { return "own-lse"; }
  std::string description() const override { return "test double"; }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op) const override { return true; }
  Support supports(const DeviceInfo&, const Shape&, Op) const override { return Support::yes(); }
  double lse_factor(const Shape&) const override {
    if (m_factor_calls) ++*m_factor_calls;
    return m_declared ? m_factor : 1.0;
  }
  void count_factor_calls(int* calls) { m_factor_calls = calls; }
  Status forward(const ForwardArgs& a) override {
    const auto rows = std::size_t(a.shape.row_elems());
    std::vector<float> keep;
    if (m_skip_one_lse) keep.assign(a.lse, a.lse + 1);  // the poison the engine wrote
    naive::forward(a);
    for (std::size_t i = 0; i < rows; ++i) a.lse[i] = float(double(a.lse[i]) * m_factor);
    if (m_skip_one_lse) a.lse[0] = keep[0];
    if (m_wobble) wobble(a.lse, rows);
    return Status::success();
  }
  Status backward(const BackwardArgs& a) override {
    // Reads its input in its own form: back to M format for the naive backward.
    std::vector<float> lse(a.lse, a.lse + a.shape.row_elems());
    for (float& x : lse) x = float(double(x) / m_factor);
    BackwardArgs m = a;
    m.lse = lse.data();
    naive::backward(m);
    return Status::success();
  }

 private:
  // The engine's conversion (engine/case_data.cpp): float(double(x) * (1 / factor)).
  float to_m(float x) const { return float(double(x) * (1.0 / m_factor)); }
  void wobble(float* lse, std::size_t rows) {
    const bool odd = (m_runs++ % 2) == 1;
    for (std::size_t i = 0; i < rows; ++i) {
      if (!std::isfinite(lse[i])) continue;
      float x = lse[i];
      for (int k = 0; k < 4096; ++k, x = std::nextafter(x, INFINITY)) {
        const float next = std::nextafter(x, INFINITY);
        if (to_m(x) == to_m(next)) {
          lse[i] = odd ? next : x;
          return;
        }
      }
    }
  }

  double m_factor;
  bool m_declared;
  bool m_skip_one_lse;
  bool m_wobble;
  int m_runs = 0;
  int* m_factor_calls = nullptr;
};

// A quarter of the rows empty: lse -inf in M format, +inf in a negative-factor form.
CaseSpec lse_case(Mode mode = Mode::check) {
  CaseSpec c = test::small_host_case("own-lse", mode);
  c.pattern.zero_rows = 0.25;
  return c;
}

CaseResult run_with(std::unique_ptr<Backend> backend, const CaseSpec& spec) {
  return test::run_host_case(std::move(backend), spec);
}

const TensorMetrics* metric(const CaseResult& r, const char* tensor) {
  for (const auto& m : r.backends.at(0).metrics)
    if (m.tensor == tensor) return &m;
  return nullptr;
}

TEST(LseForm, DeclaredNaturalLogPassesForwardAndBackward) {
  const CaseResult r = run_with(std::make_unique<OwnLseForm>(std::log(2.0), true), lse_case());
  EXPECT_EQ(r.verdict, kPass) << r.backends.at(0).reason;
  ASSERT_TRUE(r.backends.at(0).lse_factor.has_value());  // the report says the outputs were converted
  EXPECT_DOUBLE_EQ(*r.backends.at(0).lse_factor, std::log(2.0));
  const nlohmann::json j = r.backends.at(0);
  EXPECT_DOUBLE_EQ(j.at("lse_factor").get<double>(), std::log(2.0));
  EXPECT_EQ(j.get<BackendResult>().lse_factor, r.backends.at(0).lse_factor);
  Report report;
  report.cases.push_back(r);
  EXPECT_NE(render_markdown(report).find("lse in its own form (x 0.693147), converted untimed"), std::string::npos)
      << render_markdown(report);
  ASSERT_NE(metric(r, "lse"), nullptr);
  EXPECT_LT(metric(r, "lse")->rel_max, 1e-6);
  ASSERT_NE(metric(r, "dq"), nullptr);  // the backward ran on the converted input
}

TEST(LseForm, NegativeFactorKeepsEmptyRowsAndPasses) {
  // ThunderKittens' form: lse_tk = -sqrt(D) ln 2 x lse; an empty row is +inf there.
  const CaseResult r = run_with(std::make_unique<OwnLseForm>(-4.0 * std::log(2.0), true), lse_case());
  EXPECT_EQ(r.verdict, kPass) << r.backends.at(0).reason;
  EXPECT_EQ(metric(r, "lse")->inf_mismatch, 0);
}

TEST(LseForm, StabilityPassesInTheBackendsOwnForm) {
  const CaseResult r = run_with(std::make_unique<OwnLseForm>(std::log(2.0), true), lse_case(Mode::stability));
  EXPECT_EQ(r.verdict, kPass) << r.backends.at(0).reason;
}

TEST(LseForm, StabilitySeesAnUlpTheConversionWouldHide) {
  // Runs are compared as the backend wrote them, not after the conversion to M format.
  const CaseResult r =
      run_with(std::make_unique<OwnLseForm>(std::log(2.0), true, false, true), lse_case(Mode::stability));
  EXPECT_EQ(r.verdict, kFail);
  EXPECT_NE(r.backends.at(0).reason.find("lse"), std::string::npos) << r.backends.at(0).reason;
}

TEST(LseForm, UndeclaredFormFailsOnLseAndGradients) {
  const CaseResult r = run_with(std::make_unique<OwnLseForm>(std::log(2.0), false), lse_case());
  EXPECT_EQ(r.verdict, kFail);
  EXPECT_FALSE(metric(r, "lse")->pass);
  EXPECT_FALSE(metric(r, "dq")->pass);  // its backward read M format as its own form
}

TEST(LseForm, UnwrittenElementStaysUnwritten) {
  // The conversion must not turn the poison into a number: the miss is reported as such.
  const CaseResult r = run_with(std::make_unique<OwnLseForm>(std::log(2.0), true, true), lse_case());
  EXPECT_EQ(r.verdict, kFail);
  EXPECT_EQ(metric(r, "lse")->unwritten, 1) << r.backends.at(0).reason;
}

TEST(LseForm, UnusableFactorFailsThatBackendAloneNamingIt) {
  for (const double factor : {0.0, std::nan(""), double(INFINITY), 1e-310}) {  // 1e-310: its inverse is inf
    CaseSpec spec = lse_case();
    spec.backends = {"own-lse", "cpu-ref"};
    const CaseResult r = run_with(std::make_unique<OwnLseForm>(factor, true), spec);
    EXPECT_EQ(r.verdict, kFail);
    for (const auto& b : r.backends) {
      if (b.backend == "own-lse") {
        EXPECT_EQ(b.verdict, kFail);
        EXPECT_NE(b.reason.find("own-lse declares lse factor"), std::string::npos) << b.reason;
      } else {
        EXPECT_EQ(b.verdict, kPass) << b.backend << ": " << b.reason;  // the other backend still ran
      }
    }
  }
}

TEST(LseForm, ABackendsSetupIsAPhaseOfItsOwn) {
  // The factor is read before the backend's first call: a plugin that crashes there must be
  // the one the parent names (the last start event), not the reference before it.
  std::vector<std::string> phases;
  const auto emit = [&](const nlohmann::json& e) {
    if (e.value("backend", "") == "own-lse") phases.push_back(e.value("phase", ""));
  };
  const CaseResult r = test::run_host_case(std::make_unique<OwnLseForm>(std::log(2.0), true), lse_case(), emit);
  EXPECT_EQ(r.verdict, kPass) << r.backends.at(0).reason;
  ASSERT_FALSE(phases.empty());
  EXPECT_EQ(phases.front(), "setup");
}

// The factor is asked once per case and backend: the engine and the report use the one answer.
TEST(LseForm, TheFactorIsAskedOncePerCaseAndBackend) {
  int calls = 0;
  auto backend = std::make_unique<OwnLseForm>(std::log(2.0), true);
  backend->count_factor_calls(&calls);
  const CaseResult r = run_with(std::move(backend), lse_case());
  EXPECT_EQ(r.verdict, kPass) << r.backends.at(0).reason;
  EXPECT_EQ(calls, 1);
}

TEST(LseForm, MFormatBackendsRecordNoFactor) {
  const CaseResult r = run_with(std::make_unique<OwnLseForm>(1.0, true), lse_case());
  EXPECT_EQ(r.verdict, kPass) << r.backends.at(0).reason;
  EXPECT_FALSE(r.backends.at(0).lse_factor.has_value());
  EXPECT_FALSE(nlohmann::json(r.backends.at(0)).contains("lse_factor"));
}

}  // namespace
}  // namespace vsa
