// The linter end to end on the fixture kernels (tests/fixtures/), compiled at build
// time: every planted bug gives exactly its finding, every clean twin none.
// Skips (visibly) when no cuobjdump can be found; CI installs nvidia-cuda-cuobjdump.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lint/lint.hpp"

#ifndef VSA_LINT_FIXTURE_DIR
#error "VSA_LINT_FIXTURE_DIR must name the directory of the compiled lint fixtures (tests/fixtures/CMakeLists.txt)"
#endif

namespace vsa::lint {
namespace {

class LintFixtures : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto search = sass::find_cuobjdump("");
    if (search.found.empty()) GTEST_SKIP() << "no cuobjdump found (pip install nvidia-cuda-cuobjdump); lint fixtures not run";
    m_cuobjdump = search.found;
  }

  [[nodiscard]] static std::string path(const std::string& name) { return std::string(VSA_LINT_FIXTURE_DIR) + "/" + name; }

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

TEST_F(LintFixtures, SharedLoadArrive) {
  const auto result = lint("lint_shared_arrive.cubin");
  ASSERT_EQ(result.findings.size(), 1U) << dump(result.findings);
  const auto& finding = result.findings[0];
  EXPECT_EQ(finding.rule, kRuleArriveBeforeWait);
  EXPECT_EQ(finding.kernel, "_ZN3vsa12lint_fixture21planted_shared_arriveEPfPKf");
  EXPECT_EQ(finding.arch, "sm_90a");
  EXPECT_TRUE(opcode_at("lint_shared_arrive.cubin", finding).starts_with("SYNCS.ARRIVE"));
  EXPECT_NE(finding.message.find("LDS at"), std::string::npos) << finding.message;
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
}

TEST_F(LintFixtures, BadInputIsAToolError) {
  EXPECT_THROW((void)lint("does_not_exist.cubin"), sass::ToolError);
  EXPECT_THROW((void)lint_file({"/bin/sh", m_cuobjdump, default_rule_table()}), sass::ToolError);
}

}  // namespace
}  // namespace vsa::lint
