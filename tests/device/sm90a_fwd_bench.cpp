// Timing driver for the sm90a forward (not a test: DISABLED_, run it with
// --gtest_also_run_disabled_tests --gtest_filter='*Sm90aForwardBench*').
// B = 1, H = 8, D = 128, 25% density random top-k (every row selects nb/4 distinct
// blocks, shuffled), full blocks, S = 4096 / 16384 / 65536. CUDA events around batches
// of back-to-back launches after a warm-up; the median over batches of the per-launch
// time; TFLOPS = 4 * D * 64 * 64 * pairs / s / 1e12. Two query blocks per size are
// checked against fp64 first. The official numbers come from `vsa-bench run perf`.
#include <gtest/gtest.h>

#include <cstdio>

#include "sm90a_fwd_timing.hpp"

namespace vsa::test::sm90a {
namespace {

TEST(Sm90aForwardBench, DISABLED_Tflops) {
#if !defined(VSA_HAVE_SM90A)
  GTEST_SKIP() << sm90a_driver_skip_reason();
#else
  if (const std::string why = sm90a_driver_skip_reason(); !why.empty()) GTEST_SKIP() << why;
  Backend& backend = sm90a_driver_backend();

  std::printf("%-8s %10s %12s %10s %10s %10s\n", "S", "pairs", "median_us", "TFLOPS", "min_us", "max_us");
  for (int seq : {4096, 16384, 65536}) {
    const FwdProblem p = topk_problem(seq, 8, 1000 + seq);
    FwdDeviceInputs in(p);
    DeviceBuffer<bf16_bits> out(p.q.size());
    DeviceBuffer<float> lse(std::size_t(p.shape.row_elems()));
    DeviceBuffer<unsigned char> workspace(backend.workspace_bytes(p.shape, Op::forward));
    out.fill_bytes(0xff);
    lse.fill_bytes(0xff);
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");  // blocking: ordered after the memsets
    ForwardArgs a = forward_args(p, in);
    a.out = out.get();
    a.lse = lse.get();
    a.workspace = workspace.get();
    a.stream = stream;

    ASSERT_TRUE(ok(backend.forward(a)));
    check_cuda(cudaStreamSynchronize(stream), "first run");
    const std::vector<bf16_bits> got = out.download();
    const std::vector<float> got_lse = lse.download();
    for (std::int64_t item : {std::int64_t(0), p.shape.count_elems() - 1}) {
      const ItemError e = check_item(p, item, got, got_lse);
      ASSERT_LT(e.out_rel, 1e-2) << "S " << seq << " item " << item;
      ASSERT_LT(e.lse_abs, 1e-2) << "S " << seq << " item " << item;
    }

    const std::vector<float> ms = time_launches([&] { return backend.forward(a); }, stream);
    const double median_s = ms[ms.size() / 2] * 1e-3;
    const double tflops = forward_tflops(pairs_of(p), median_s);
    std::printf("%-8d %10.0f %12.1f %10.1f %10.1f %10.1f\n", seq, pairs_of(p), median_s * 1e6, tflops,
                ms.front() * 1e3, ms.back() * 1e3);
    RecordProperty("tflops_S" + std::to_string(seq), std::to_string(tflops));
    (void)cudaStreamDestroy(stream);
  }
#endif
}

}  // namespace
}  // namespace vsa::test::sm90a
