// Timing driver for the sm90a forward (a tool, not a test): build/tools/sm90a_fwd_bench.
// B = 1, H = 8, D = 128, 25% density random top-k (every row selects nb/4 distinct
// blocks, shuffled), full blocks, S = 4096 / 16384 / 65536. CUDA events around batches
// of back-to-back launches after a warm-up; the median over batches of the per-launch
// time; TFLOPS = 4 * D * 64 * 64 * pairs / s / 1e12. Two query blocks per size are
// checked against fp64 first. The official numbers come from `vsa-bench run perf`.
#include <cstdio>
#include <exception>
#include <string>

#include "driver_checks.hpp"
#include "sm90a_fwd_timing.hpp"

namespace vsa::test::sm90a {
namespace {

void run() {
#if !defined(VSA_HAVE_SM90A)
  tools::cannot_run(sm90a_driver_skip_reason());
#else
  if (const std::string why = sm90a_driver_skip_reason(); !why.empty()) tools::cannot_run(why);
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

    tools::require(backend.forward(a), "forward");
    check_cuda(cudaStreamSynchronize(stream), "first run");
    const std::vector<bf16_bits> got = out.download();
    const std::vector<float> got_lse = lse.download();
    for (std::int64_t item : {std::int64_t(0), p.shape.count_elems() - 1}) {
      const ItemError e = check_item(p, item, got, got_lse);
      const std::string where = "S " + std::to_string(seq) + " item " + std::to_string(item);
      tools::require(e.out_rel < 1e-2, where + ": O rel error " + std::to_string(e.out_rel));
      tools::require(e.lse_abs < 1e-2, where + ": lse abs error " + std::to_string(e.lse_abs));
    }

    const std::vector<float> ms = time_launches([&] { return backend.forward(a); }, stream);
    const double median_s = ms[ms.size() / 2] * 1e-3;
    const double tflops = forward_tflops(pairs_of(p), median_s);
    std::printf("%-8d %10.0f %12.1f %10.1f %10.1f %10.1f\n", seq, pairs_of(p), median_s * 1e6, tflops, ms.front() * 1e3,
                ms.back() * 1e3);
    (void)cudaStreamDestroy(stream);
  }
#endif
}

}  // namespace
}  // namespace vsa::test::sm90a

int main() {
  try {
    vsa::test::sm90a::run();
  } catch (const std::exception& e) {
    vsa::tools::fail(e.what());
  }
  return vsa::tools::exit_code();
}
