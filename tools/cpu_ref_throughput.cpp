// Throughput of cpu-ref, for reference/NOTES.md: a tool (it measures, it does not check),
// built with the tests. Run it with
//   build/tools/cpu_ref_throughput
// Exit 0 after printing the table, 1 when the reference fails (the message says where).
// Shape of issue 2: S = 4096, H = 2, B = 1, D = 128, BLK = 64, random top-k at 25%
// density (16 of 64 kv blocks per q block). FLOPs per docs/spec.md: F_fwd = 4*D*BLK^2*pairs,
// F_bwd = 2.5 * F_fwd.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cpu_reference.hpp"
#include "test_problems.hpp"

namespace vsa {
namespace {

void require(const Status& status, const char* what) {
  if (status.ok()) return;
  std::fprintf(stderr, "cpu_ref_throughput: %s failed: %s\n", what, status.error.c_str());
  std::exit(1);
}

struct Timing {
  double seconds = 0;  // median wall time
  double cores = 0;    // process CPU time / wall time of that run: below the thread
                       // count means the machine was busy with something else
};

template <typename F>
Timing median_timing(int repeats, F&& run) {
  std::vector<Timing> runs;
  for (int i = 0; i < repeats; ++i) {
    const std::clock_t cpu_start = std::clock();  // all threads of the process (Linux)
    const auto start = std::chrono::steady_clock::now();
    run();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    runs.push_back({wall, double(std::clock() - cpu_start) / CLOCKS_PER_SEC / wall});
  }
  std::sort(runs.begin(), runs.end(), [](const Timing& a, const Timing& b) { return a.seconds < b.seconds; });
  return runs[runs.size() / 2];
}

void s4096_h2_d128_density25() {
  test::ProblemSpec spec;
  spec.shape = {1, 2, 64, 128, 64, 16, 1};  // B, H, nb, D, BLK, max_kv = round(0.25 * 64)
  spec.full_rows = true;
  spec.seed = 81;
  const test::HostProblem p = test::make_problem(spec);
  const double f_fwd = 4.0 * p.shape.head_dim * p.shape.block * p.shape.block * double(p.pairs());
  const double f_bwd = 2.5 * f_fwd;
  const auto n = std::size_t(p.tensor_elems());
  std::vector<bf16_bits> out(n), dq(n), dk(n), dv(n);
  std::vector<float> lse(std::size_t(p.row_elems()));

  const int hardware = int(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("pairs %lld, F_fwd %.3g, F_bwd %.3g, hardware threads %d\n", static_cast<long long>(p.pairs()), f_fwd,
              f_bwd, hardware);
  for (ref::Precision precision : {ref::Precision::fp32, ref::Precision::fp64}) {
    for (int threads : {1, hardware}) {
      const ref::Options options{precision, threads};
      const auto fwd = ref::tensors_of(p.forward_args(out.data(), lse.data()));
      const auto bwd = ref::tensors_of(p.backward_args(out.data(), lse.data(), dq.data(), dk.data(), dv.data()));
      require(ref::forward(fwd, options), "forward");  // warm-up (page faults, scratch)
      const Timing t_fwd = median_timing(5, [&] { require(ref::forward(fwd, options), "forward"); });
      require(ref::backward(bwd, options), "backward");
      const Timing t_bwd = median_timing(5, [&] { require(ref::backward(bwd, options), "backward"); });
      // GFLOP per CPU-second: the per-core rate, meaningful even when the machine is shared.
      std::printf(
          "%s threads=%d  forward %.1f ms %.1f GFLOP/s (%.2f cores, %.1f per CPU-s)"
          "  backward %.1f ms %.1f GFLOP/s (%.2f cores, %.1f per CPU-s)\n",
          precision == ref::Precision::fp32 ? "fp32" : "fp64", threads, t_fwd.seconds * 1e3,
          f_fwd / t_fwd.seconds / 1e9, t_fwd.cores, f_fwd / (t_fwd.seconds * t_fwd.cores) / 1e9, t_bwd.seconds * 1e3,
          f_bwd / t_bwd.seconds / 1e9, t_bwd.cores, f_bwd / (t_bwd.seconds * t_bwd.cores) / 1e9);
      if (threads == hardware) break;
    }
  }
}

}  // namespace
}  // namespace vsa

int main() {
  vsa::s4096_h2_d128_density25();
  return 0;
}
