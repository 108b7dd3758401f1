// "@fast" (qualify/backend_alias.hpp) on fake devices: one qualify suite picks sm90a on
// Hopper and sm100a on Blackwell, every fast backend (each to SKIP with its reason) on
// other GPUs or none, honours --backends, and is recorded for the report.
#include "qualify/backend_alias.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <tuple>

#include "suite/suite.hpp"

namespace vsa {
namespace {

using Strings = std::vector<std::string>;

DeviceInfo gpu(const std::string& name, int major, int minor) {
  DeviceInfo d;
  d.ordinal = 0;
  d.name = name;
  d.cc_major = major;
  d.cc_minor = minor;
  d.sm_count = 132;
  return d;
}

CaseSpec case_with(Strings backends, int block = 64, OpSelect op = OpSelect::both) {
  CaseSpec c;
  c.name = "t/case";
  c.backends = std::move(backends);
  c.shape.block = block;
  c.shape.head_dim = 128;
  c.op = op;
  return c;
}

// A built backend that takes only 128-token blocks and has no backward, like sm100a-blk128.
class Blk128Only final : public Backend {
 public:
  std::string name() const override { return "sm100a-blk128"; }
  std::string description() const override { return "fake"; }
  Memory memory() const override { return Memory::device; }
  bool has_op(Op op) const override { return op == Op::forward; }
  Support supports(const DeviceInfo&, const Shape& s, Op op) const override { return supports_shape(s, op); }
  Support supports_shape(const Shape& s, Op) const override {
    return s.block == 128 ? Support::yes() : Support::no("needs BLK = 128");
  }
  Status forward(const ForwardArgs&) override { return Status::success(); }
  Status backward(const BackwardArgs&) override { return Status::failure("none"); }
};

Strings expanded(Strings backends, const DeviceInfo& d, const Registry& registry = Registry{}, Strings only = {},
                 int block = 64) {
  std::vector<CaseSpec> cases = {case_with(std::move(backends), block)};
  (void)expand_backend_aliases(cases, d, registry, only);
  return cases[0].backends;
}

TEST(BackendAlias, HopperGetsTheSm90aFamilyBlackwellTheSm100aFamily) {
  EXPECT_EQ(expanded({"@fast"}, gpu("NVIDIA H200", 9, 0)), (Strings{"sm90a", "sm90a-det"}));
  EXPECT_EQ(expanded({"@fast"}, gpu("NVIDIA B200", 10, 0)), (Strings{"sm100a-blk64", "sm100a-blk128"}));
  // Explicit names stay, in order, once.
  EXPECT_EQ(expanded({"cuda-ref", "@fast", "sm90a"}, gpu("NVIDIA H200", 9, 0)),
            (Strings{"cuda-ref", "sm90a", "sm90a-det"}));
}

TEST(BackendAlias, OtherGpusAndNoGpuGetEveryFastBackendToSkipWithItsReason) {
  const Strings all = {"sm90a", "sm90a-det", "sm100a-blk64", "sm100a-blk128"};
  EXPECT_EQ(expanded({"@fast"}, gpu("NVIDIA A100", 8, 0)), all);
  EXPECT_EQ(expanded({"@fast"}, gpu("NVIDIA B300", 10, 3)), all);  // sm_100a images do not run on 10.3
  EXPECT_EQ(expanded({"@fast"}, DeviceInfo{}), all);
  std::vector<CaseSpec> cases = {case_with({"@fast"})};
  const auto e = expand_backend_aliases(cases, gpu("NVIDIA A100", 8, 0), Registry{});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].rule.find("no fast family for cc 8.0"), std::string::npos) << e[0].rule;
}

TEST(BackendAlias, BuiltBackendsTheShapeRulesOutAreLeftOut) {
  Registry registry;
  registry.add(std::make_unique<Blk128Only>());
  EXPECT_EQ(expanded({"@fast"}, gpu("NVIDIA B200", 10, 0), registry), (Strings{"sm100a-blk64"}));
  EXPECT_EQ(expanded({"@fast"}, gpu("NVIDIA B200", 10, 0), registry, {}, 128),
            (Strings{"sm100a-blk64", "sm100a-blk128"}));
  std::vector<CaseSpec> cases = {case_with({"@fast"})};
  expand_backend_aliases_for_validation(cases, registry);
  EXPECT_EQ(cases[0].backends, (Strings{"sm90a", "sm90a-det", "sm100a-blk64"}));
}

// Fuzz review of 2026-12-07: where no fast backend takes the shape, the alias left the case no
// backend, and it FAILed ("must name at least one backend"). Now each SKIPs with its reason.
TEST(BackendAlias, AShapeNoFastBackendTakesStillNamesThemToSkip) {
  Registry registry;
  registry.add(std::make_unique<Blk128Only>());
  std::vector<CaseSpec> cases = {case_with({"@fast"})};
  const auto e = expand_backend_aliases(cases, gpu("NVIDIA B200", 10, 0), registry, {"sm100a-blk128"});
  EXPECT_EQ(cases[0].backends, (Strings{"sm100a-blk128"}));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].rule.find("none is left for this case"), std::string::npos) << e[0].rule;
  // With another backend in the case, the fast ones the shape rules out are left out, as before.
  std::vector<CaseSpec> with_ref = {case_with({"@fast", "cuda-ref"})};
  (void)expand_backend_aliases(with_ref, gpu("NVIDIA B200", 10, 0), registry, {"sm100a-blk128", "cuda-ref"});
  EXPECT_EQ(with_ref[0].backends, (Strings{"cuda-ref"}));
}

TEST(BackendAlias, BackendsOptionNarrowsTheAlias) {
  EXPECT_EQ(expanded({"@fast", "cuda-ref"}, gpu("NVIDIA H200", 9, 0), Registry{}, {"sm90a-det"}),
            (Strings{"sm90a-det", "cuda-ref"}));
  // Asked for a backend of another family: it SKIPs on this GPU, with its reason.
  EXPECT_EQ(expanded({"@fast"}, gpu("NVIDIA H200", 9, 0), Registry{}, {"sm100a-blk64"}), (Strings{"sm100a-blk64"}));
}

TEST(BackendAlias, ReportRecordsWhatTheAliasBecame) {
  std::vector<CaseSpec> cases = {case_with({"@fast"}), case_with({"@fast", "cuda-ref"})};
  cases[1].name = "t/other";
  const auto j = backend_aliases_json(expand_backend_aliases(cases, gpu("NVIDIA H200", 9, 0), Registry{}));
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["alias"], "@fast");
  EXPECT_EQ(j[0]["backends"], (Strings{"sm90a", "sm90a-det"}));
  EXPECT_EQ(j[0]["cases"], (Strings{"t/case", "t/other"}));
  EXPECT_EQ(j[0]["rule"], "cc 9.0: the sm90a family");
}

// Issue 20: on a GB200 node the default suite tested nothing but the references. The
// built-in qualify suite must now put a Blackwell backend into every fast case there,
// and a Hopper one on an H200.
TEST(BackendAlias, QualifySuiteCoversHopperAndBlackwell) {
  const Suite suite = load_suite("qualify");
  for (const auto& [device, family, other] :
       {std::tuple{gpu("NVIDIA B200", 10, 0), std::string("sm100a-blk64"), std::string("sm90a")},
        std::tuple{gpu("NVIDIA H200", 9, 0), std::string("sm90a"), std::string("sm100a-blk64")}}) {
    std::vector<CaseSpec> cases = suite.cases;
    (void)expand_backend_aliases(cases, device, Registry{});
    int fast_cases = 0;
    for (const auto& c : cases) {
      for (const auto& b : c.backends) EXPECT_FALSE(is_backend_alias(b)) << c.name;
      if (c.name.rfind("fast/", 0) != 0) continue;
      ++fast_cases;
      EXPECT_NE(std::find(c.backends.begin(), c.backends.end(), family), c.backends.end())
          << c.name << " on " << device.name;
      // Only this GPU's family: the other family's kernels cannot run here.
      EXPECT_EQ(std::find(c.backends.begin(), c.backends.end(), other), c.backends.end())
          << c.name << " on " << device.name;
    }
    EXPECT_GE(fast_cases, 6) << device.name;
  }
}

}  // namespace
}  // namespace vsa
