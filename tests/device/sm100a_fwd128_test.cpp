// sm100a-blk128 forward (128-token blocks) against the fp64 naive reference on small cases
// (docs/spec.md "Forward"). Skips, with the reason, on every device that is not compute
// capability 10.0: as of this writing it has never run (no Blackwell GPU was available).
// Aimed at the kernel's own risks: M = 128 accumulators (layout D), 128-key P rows across
// two swizzled halves, key-block vbs masking, count-0 rows (no barrier wait), the K/V ring
// and both S buffers wrapping, x16 inputs, the probe variant and reproducibility.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "lse_rows_check.hpp"
#include "portable_runs.hpp"

namespace vsa::test {
namespace {

constexpr double kRelMax = 1e-2;
constexpr double kLseRel = 1e-4;

Backend& blk128_backend() {
  static Registry registry = [] {
    Registry r;
    register_sm100a_backends(r);
    return r;
  }();
  Backend* backend = registry.find("sm100a-blk128");
  if (backend == nullptr) throw std::logic_error("sm100a-blk128 is not registered");
  return *backend;
}

class Sm100aFwd128Test : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    if (prop.major != 10 || prop.minor != 0)
      GTEST_SKIP() << "sm100a kernels need compute capability 10.0, device 0 is " << prop.major << "." << prop.minor;
  }
};

std::vector<ProblemSpec> cases() {
  // ProblemSpec: name, B, H, nb, D, BLK, max_kv, seed, input scale, vbs pattern, zero rows.
  return {
      {"b1h1_nb2_full", 1, 1, 2, 128, 128, 2, 51, 1.0f, VbsPattern::full, false},
      {"b2h2_nb5_random_vbs", 2, 2, 5, 128, 128, 3, 52, 1.0f, VbsPattern::random, true},
      {"b1h3_nb3_tail_x4", 1, 3, 3, 128, 128, 3, 53, 4.0f, VbsPattern::tail_only, true},
      {"b2h1_nb7_random_vbs_x16", 2, 1, 7, 128, 128, 4, 54, 16.0f, VbsPattern::random, true},
      // Rows up to 12 entries: the 2-stage K/V ring and the 2 S buffers wrap several times.
      {"b1h2_nb12_long_rows", 1, 2, 12, 128, 128, 12, 55, 1.0f, VbsPattern::random, false},
      {"b2h8_nb6_many_ctas", 2, 8, 6, 128, 128, 4, 56, 1.0f, VbsPattern::full, true},
  };
}

void expect_matches(const Problem& p, const ForwardOutputs& got, const ForwardOutputs& want, const std::string& name) {
  EXPECT_EQ(count_bits(got.out, kPoisonBf16), 0) << "O elements never written";
  const ErrorMetrics m = compare_bf16(got.out, want.out);
  std::printf("  %-28s O rel_max %.3e rel_l2 %.3e non_finite %lld\n", name.c_str(), m.rel_max, m.rel_l2,
              static_cast<long long>(m.non_finite));
  EXPECT_EQ(m.non_finite, 0);
  EXPECT_LT(m.rel_max, kRelMax);
  expect_lse_and_empty_rows(p.shape, got.out, got.lse, want.lse, kLseRel);
}

class Sm100aForward128 : public Sm100aFwd128Test, public ::testing::WithParamInterface<ProblemSpec> {};

TEST_P(Sm100aForward128, MatchesNaiveReference) {
  const Problem p = make_problem(GetParam());
  expect_matches(p, device_forward(blk128_backend(), p, DeviceInputs(p)), naive_forward(p), GetParam().name);
}

TEST_P(Sm100aForward128, IsBitwiseReproducible) {
  const Problem p = make_problem(GetParam());
  const DeviceInputs in(p);
  const ForwardOutputs a = device_forward(blk128_backend(), p, in), b = device_forward(blk128_backend(), p, in);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(0, std::memcmp(a.lse.data(), b.lse.data(), a.lse.size() * sizeof(float)));
}

// Every hand-off delayed by 2 us: a missing wait or an early release shows up as a mismatch.
TEST_P(Sm100aForward128, ProbeVariantMatches) {
  const Problem p = make_problem(GetParam());
  const DeviceInputs in(p);
  Backend& backend = blk128_backend();
  auto out = poisoned_bf16(p.q.size());
  DeviceBuffer<float> lse(std::size_t(p.shape.row_elems()));
  ForwardArgs a;
  a.shape = p.shape;
  a.q = in.q.get();
  a.k = in.k.get();
  a.v = in.v.get();
  a.q2k_idx = in.q2k_idx.get();
  a.q2k_num = in.q2k_num.get();
  a.vbs = in.vbs.get();
  a.out = out.get();
  a.lse = lse.get();
  for (std::size_t i = 0; i < backend.probe_points().size(); ++i) a.probes.nanoseconds[i] = 2000;
  ASSERT_TRUE(ok(backend.forward(a)));
  synchronize();
  expect_matches(p, {out.download(), lse.download()}, naive_forward(p), "probed_" + GetParam().name);
}

INSTANTIATE_TEST_SUITE_P(Cases, Sm100aForward128, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

class Sm100aForward128Kernels : public Sm100aFwd128Test {};
TEST_F(Sm100aForward128Kernels, ReportsLoadedImages) {
  int hot = 0;
  for (const KernelInfo& k : blk128_backend().kernels()) {
    EXPECT_EQ(k.binary_version, 100) << k.name;
    EXPECT_GT(k.registers, 0) << k.name;
    if (k.hot) {
      ++hot;
      EXPECT_EQ(k.local_bytes, 0u) << k.name << " spills to local memory";
    }
  }
  EXPECT_EQ(hot, 1);
}

}  // namespace
}  // namespace vsa::test
