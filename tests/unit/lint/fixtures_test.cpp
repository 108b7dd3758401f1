// The linter end to end on the fixture kernels (tests/fixtures/), compiled at build
// time: every planted bug gives exactly its finding, every clean twin none.
// Skips (visibly) when no cuobjdump can be found; CI installs nvidia-cuda-cuobjdump.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lint/lint.hpp"
#include "lint/render.hpp"

#ifndef VSA_LINT_FIXTURE_DIR
#error "VSA_LINT_FIXTURE_DIR must name the directory of the compiled lint fixtures (tests/fixtures/CMakeLists.txt)"
#endif

namespace vsa::lint {
namespace {

class LintFixtures : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto search = sass::find_cuobjdump("");
    if (search.found.empty())
      GTEST_SKIP() << "no cuobjdump found (pip install nvidia-cuda-cuobjdump); lint fixtures not run";
    m_cuobjdump = search.found;
  }

  [[nodiscard]] static std::string path(const std::string& name) {
    return std::string(VSA_LINT_FIXTURE_DIR) + "/" + name;
  }

  [[nodiscard]] LintResult lint(const std::string& name, RuleTable rules = default_rule_table()) const {
    return lint_file({path(name), m_cuobjdump, std::move(rules)});
  }

  // The instruction a finding points at, looked up in a fresh disassembly.
  [[nodiscard]] std::string opcode_at(const std::string& name, const Finding& finding) const {
    for (const auto& kernel : sass::dump_sass(m_cuobjdump, path(name)).kernels) {
      if (kernel.name != finding.kernel || kernel.arch != finding.arch) continue;
      for (const auto& inst : kernel.instructions) {
        if (finding.offset && inst.offset == *finding.offset) return inst.opcode;
      }
    }
    return {};
  }

  std::string m_cuobjdump;
};

std::string dump(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& f : findings) out += f.rule + " " + f.arch + " " + f.kernel + ": " + f.message + "\n";
  return out;
}

TEST_F(LintFixtures, SharedLoadBeforeAReleaseArriveIsOrdered) {
  // LDS then SYNCS.ARRIVE with no wait between: ordered by the arrive's release semantics
  // (PTX memory model), so no finding, whether or not the value is used first.
  const auto result = lint("lint_shared_arrive.cubin");
  EXPECT_TRUE(result.findings.empty()) << dump(result.findings);
  EXPECT_EQ(result.kernels.size(), 2U);
}

TEST_F(LintFixtures, TensorMemoryLoadArrive) {
  const auto result = lint("lint_tmem_arrive.cubin");
  ASSERT_EQ(result.findings.size(), 1U) << dump(result.findings);
  const auto& finding = result.findings[0];
  EXPECT_EQ(finding.rule, kRuleArriveBeforeWait);
  EXPECT_EQ(finding.kernel, "_ZN3vsa12lint_fixture19planted_tmem_arriveEPf");
  EXPECT_EQ(finding.arch, "sm_100a");
  EXPECT_TRUE(opcode_at("lint_tmem_arrive.cubin", finding).starts_with("SYNCS.ARRIVE"));
  EXPECT_NE(finding.message.find("LDTM"), std::string::npos) << finding.message;
}

TEST_F(LintFixtures, Tcgen05MmaReleasedByAThreadArrive) {
  // vsa::sm100a kernels with UTCHMMA: no missing-mma, only the planted release.
  const auto result = lint("lint_mma_arrive.cubin");
  ASSERT_EQ(result.findings.size(), 1U) << dump(result.findings);
  const auto& finding = result.findings[0];
  EXPECT_EQ(finding.rule, kRuleArriveBeforeWait);
  EXPECT_EQ(finding.kernel, "_ZN3vsa6sm100a12lint_fixture25planted_mma_thread_arriveEjmmj");
  EXPECT_TRUE(opcode_at("lint_mma_arrive.cubin", finding).starts_with("SYNCS.ARRIVE"));
  EXPECT_NE(finding.message.find("UTCHMMA"), std::string::npos) << finding.message;
  EXPECT_EQ(result.kernels.size(), 2U);
}

TEST_F(LintFixtures, RelaxedAndReleaseArrivesLookTheSameInSass) {
  // Why arrive-before-wait cannot check a generic load before a relaxed arrive: the two
  // arrives are the same instruction words. Neither kernel is a finding.
  const std::string file = "lint_relaxed_arrive.cubin";
  EXPECT_TRUE(lint(file).findings.empty());
  std::vector<const sass::Instruction*> arrives;
  const auto listing = sass::dump_sass(m_cuobjdump, path(file));
  for (const auto& kernel : listing.kernels) {
    for (const auto& inst : kernel.instructions) {
      if (inst.opcode_starts_with("SYNCS.ARRIVE")) arrives.push_back(&inst);
    }
  }
  ASSERT_EQ(arrives.size(), 2U);
  EXPECT_EQ(arrives[0]->opcode, arrives[1]->opcode);
  EXPECT_EQ(arrives[0]->low_word, arrives[1]->low_word);
  EXPECT_EQ(arrives[0]->high_word, arrives[1]->high_word);
}

TEST_F(LintFixtures, MissingWaitLdPlantedInTheRealBackward) {
#ifndef VSA_LINT_PLANTED_BWD
  GTEST_SKIP() << "built without the sm_100a image (VSA_BUILD_SM100A=OFF): the planted backward is not compiled";
#else
  // kernels/sm100a/bwd_dq_reduce.cuh without its tcgen05.wait::ld (VSA_PLANT_MISSING_WAIT_LD).
  // backward_kernel<false>: the four LDTM.x32 are outstanding at the dq_empty arrive.
  // backward_kernel<true>: the probe's delay loop sits between them; the control-flow
  // analysis follows both paths to the arrive, and on both ptxas 13.0 has already waited:
  // the `@!P3 BRA` that skips the delay waits on the last LDTM's scoreboard, which retires
  // all four (tcgen05.ld complete in issue order, LINT.md). Its SASS has no outstanding load
  // at the arrive, so no finding. Should this start failing with a finding on <true>, ptxas
  // no longer drains there: the probe build then carries the real race, and the finding is right.
  const auto result = lint_file({VSA_LINT_PLANTED_BWD, m_cuobjdump, default_rule_table()});
  int plain = 0;
  int probe = 0;
  for (const auto& f : result.findings) {
    ASSERT_EQ(f.rule, kRuleArriveBeforeWait) << dump(result.findings);
    EXPECT_NE(f.message.find("LDTM"), std::string::npos) << f.message;
    if (f.kernel.find("backward_kernelILb0E") != std::string::npos) ++plain;
    if (f.kernel.find("backward_kernelILb1E") != std::string::npos) ++probe;
  }
  EXPECT_EQ(plain, 1) << dump(result.findings);
  EXPECT_EQ(probe, 0) << dump(result.findings);
  EXPECT_EQ(result.kernels.size(), 2U);
#endif
}

TEST_F(LintFixtures, WgmmaArrive) {
  // vsa::sm90a kernels with HGMMA: no missing-mma, only the planted release.
  const auto result = lint("lint_wgmma_arrive.cubin");
  ASSERT_EQ(result.findings.size(), 1U) << dump(result.findings);
  const auto& finding = result.findings[0];
  EXPECT_EQ(finding.rule, kRuleArriveBeforeWait);
  EXPECT_EQ(finding.kernel, "_ZN3vsa5sm90a12lint_fixture20planted_wgmma_arriveEPfmm");
  EXPECT_TRUE(opcode_at("lint_wgmma_arrive.cubin", finding).starts_with("SYNCS.ARRIVE"));
  EXPECT_NE(finding.message.find("HGMMA"), std::string::npos) << finding.message;
}

TEST_F(LintFixtures, EmptyBody) {
  const auto result = lint("lint_empty_body.cubin");
  ASSERT_EQ(result.findings.size(), 1U) << dump(result.findings);
  EXPECT_EQ(result.findings[0].rule, kRuleEmptyBody);
  EXPECT_EQ(result.findings[0].kernel, "_ZN3vsa5sm90a12lint_fixture12guarded_awayEPf");
  EXPECT_EQ(result.findings[0].arch, "sm_90a");
  EXPECT_FALSE(result.findings[0].offset.has_value());
}

TEST_F(LintFixtures, KernelMissingForItsFamilyArch) {
  const auto result = lint("lint_missing_arch.fatbin");
  ASSERT_EQ(result.findings.size(), 1U) << dump(result.findings);
  EXPECT_EQ(result.findings[0].rule, kRuleEmptyBody);
  EXPECT_EQ(result.findings[0].kernel, "_ZN3vsa6sm100a12lint_fixture11hopper_onlyEPf");
  EXPECT_EQ(result.findings[0].arch, "sm_100a");
  EXPECT_NE(result.findings[0].message.find("found only in sm_90a"), std::string::npos) << result.findings[0].message;
  EXPECT_EQ(result.kernels.size(), 3U);  // everywhere x 2 archs, hopper_only x 1
}

TEST_F(LintFixtures, MissingMmaHopper) {
  const auto result = lint("lint_mma_sm90a.cubin");
  ASSERT_EQ(result.findings.size(), 1U) << dump(result.findings);
  EXPECT_EQ(result.findings[0].rule, kRuleMissingMma);
  EXPECT_EQ(result.findings[0].kernel, "_ZN3vsa5sm90a12lint_fixture6no_mmaEPfPKfS4_");
}

TEST_F(LintFixtures, MissingMmaBlackwell) {
  const auto result = lint("lint_mma_sm100a.cubin");
  ASSERT_EQ(result.findings.size(), 1U) << dump(result.findings);
  EXPECT_EQ(result.findings[0].rule, kRuleMissingMma);
  EXPECT_EQ(result.findings[0].kernel, "_ZN3vsa6sm100a12lint_fixture6no_mmaEPfPKfS4_");
  EXPECT_EQ(result.findings[0].arch, "sm_100a");
}

TEST_F(LintFixtures, LocalSpillOnlyInHotKernels) {
  EXPECT_TRUE(lint("lint_spill.cubin").clean()) << "vsa::lint_fixture is not a hot family by default";

  auto rules = default_rule_table();
  rules.families.push_back({"vsa::lint_fixture", "_ZN3vsa12lint_fixture", "sm_90a", "", "", true, {}});
  const auto result = lint("lint_spill.cubin", rules);
  ASSERT_EQ(result.findings.size(), 1U) << dump(result.findings);
  const auto& finding = result.findings[0];
  EXPECT_EQ(finding.rule, kRuleLocalSpill);
  EXPECT_EQ(finding.kernel, "_ZN3vsa12lint_fixture8spillingEPfPKfi");
  const auto opcode = opcode_at("lint_spill.cubin", finding);
  EXPECT_TRUE(opcode.starts_with("LDL") || opcode.starts_with("STL")) << opcode;
  EXPECT_NE(finding.message.find("STACK:"), std::string::npos) << finding.message;
  // A family of our own: the spill is an error and fails lint, strict or not.
  EXPECT_EQ(finding.severity, Severity::error);
  EXPECT_FALSE(result.passed(false));
  EXPECT_FALSE(result.passed(true));
}

TEST_F(LintFixtures, LocalSpillIsAWarningInAPluginFamily) {
  // The same spilling kernel in a family a plugin declares (lint --plugin): someone else's
  // kernel that computes the right values; listed as a warning, failing only under --strict.
  auto rules = default_rule_table();
  rules.families.push_back({"plugin::fixture", "_ZN3vsa12lint_fixture", "sm_90a", "", "", true, {}, Severity::warning});
  const auto result = lint("lint_spill.cubin", rules);
  ASSERT_EQ(result.findings.size(), 1U) << dump(result.findings);
  EXPECT_EQ(result.findings[0].rule, kRuleLocalSpill);
  EXPECT_EQ(result.findings[0].severity, Severity::warning);
  EXPECT_EQ(result.count(Severity::warning), 1U);
  EXPECT_EQ(result.count(Severity::error), 0U);
  EXPECT_TRUE(result.passed(false));
  EXPECT_FALSE(result.passed(true));
  const auto json = to_json(result);
  EXPECT_EQ(json.at("warnings"), 1);
  EXPECT_EQ(json.at("errors"), 0);
  EXPECT_EQ(json.at("findings").at(0).at("severity"), "warning");
  EXPECT_NE(format_text(result).find("local-spill (warning)"), std::string::npos) << format_text(result);
}

TEST_F(LintFixtures, CorrectnessRulesStayErrorsInAPluginFamily) {
  // A plugin family's kernel without its MMA is still an error: warnings are for the
  // performance rules only.
  auto rules = default_rule_table();
  for (auto& family : rules.families) family.performance = Severity::warning;
  const auto result = lint("lint_mma_sm90a.cubin", rules);
  ASSERT_EQ(result.findings.size(), 1U) << dump(result.findings);
  EXPECT_EQ(result.findings[0].rule, kRuleMissingMma);
  EXPECT_EQ(result.findings[0].severity, Severity::error);
  EXPECT_FALSE(result.passed(false));
}

TEST_F(LintFixtures, LocalSpillPlantedInTheRealForward) {
#ifndef VSA_LINT_PLANTED_SPILL
  GTEST_SKIP() << "built without the sm_90a image: the planted forward is not compiled";
#else
  // kernels/sm90a/fwd_launch.cu with ptxas -O0: all seven forward_kernel instantiations (normal
  // and probe, single items and pair tiles, the three-group layout's normal and probe, and the
  // trace-only variant) and the four-CTA layout's two (normal and probe) use local memory. In our
  // own family (default rule table) that is an error and fails lint.
  const auto result = lint_file({VSA_LINT_PLANTED_SPILL, m_cuobjdump, default_rule_table()});
  int spills = 0;
  for (const auto& f : result.findings) {
    if (f.rule != kRuleLocalSpill) continue;
    ++spills;
    EXPECT_TRUE(f.kernel.starts_with("_ZN3vsa5sm90a3fwd14forward_kernel") ||
                f.kernel.starts_with("_ZN3vsa5sm90a3fwd19forward_cta4_kernel"))
        << f.kernel;
    EXPECT_EQ(f.severity, Severity::error) << f.kernel;
  }
  EXPECT_EQ(spills, 9) << dump(result.findings);
  EXPECT_FALSE(result.passed(false));
  // The same image as a plugin's family would see it: warnings only (the correctness rules
  // find nothing in it), so lint passes unless --strict.
  auto plugin_rules = default_rule_table();
  for (auto& family : plugin_rules.families) family.performance = Severity::warning;
  const auto as_plugin = lint_file({VSA_LINT_PLANTED_SPILL, m_cuobjdump, plugin_rules});
  EXPECT_EQ(as_plugin.count(Severity::error), 0U) << dump(as_plugin.findings);
  EXPECT_GE(as_plugin.count(Severity::warning), 4U) << dump(as_plugin.findings);
  EXPECT_TRUE(as_plugin.passed(false));
  EXPECT_FALSE(as_plugin.passed(true));
#endif
}

TEST_F(LintFixtures, BadInputIsAToolError) {
  EXPECT_THROW((void)lint("does_not_exist.cubin"), sass::ToolError);
  EXPECT_THROW((void)lint_file({"/bin/sh", m_cuobjdump, default_rule_table()}), sass::ToolError);
}

}  // namespace
}  // namespace vsa::lint
