// Timing driver for the sm90a forward (a tool, not a test): build/tools/sm90a_fwd_bench.
// B = 1, H = 8, D = 128, 25% density random top-k (every row selects nb/4 distinct
// blocks, shuffled), full blocks, S = 4096 / 16384 / 65536. CUDA events around batches
// of back-to-back launches after a warm-up; the median over batches of the per-launch
// time; TFLOPS = 4 * D * 64 * 64 * pairs / s / 1e12. Two query blocks per size are
// checked against fp64 first. The official numbers come from `vsa-bench run perf`.
#include <cstdio>
#include <string>

#include "sm90a_forward_driver.hpp"

namespace vsa::test::sm90a {
namespace {

void run() {
  Backend& backend = sm90a_backend_or_skip();

  std::printf("%-8s %10s %12s %10s %10s %10s\n", "S", "pairs", "median_us", "TFLOPS", "min_us", "max_us");
  for (int seq : {4096, 16384, 65536}) {
    const FwdProblem p = topk_problem(seq, 8, 1000 + seq);
    FwdDeviceInputs in(p);
    DriverForward f(backend, p, in);
    tools::require(backend.forward(f.args), "forward");
    check_cuda(cudaStreamSynchronize(f.stream), "first run");
    const std::string bad = first_last_items_error(p, f);
    tools::require(bad.empty(), "S " + std::to_string(seq) + " " + bad);

    const std::vector<float> ms = time_launches([&] { return backend.forward(f.args); }, f.stream);
    const double median_s = ms[ms.size() / 2] * 1e-3;
    const double tflops = forward_tflops(pairs_of(p), median_s);
    std::printf("%-8d %10.0f %12.1f %10.1f %10.1f %10.1f\n", seq, pairs_of(p), median_s * 1e6, tflops, ms.front() * 1e3,
                ms.back() * 1e3);
  }
}

}  // namespace
}  // namespace vsa::test::sm90a

int main() { return vsa::tools::run_driver(vsa::test::sm90a::run); }
