#pragma once
// Timing support for the sm90a forward driver: the 25%-density top-k problem, an fp64
// check of single query blocks (a number is never printed for a kernel that computes
// something else), and event timing of batches of back-to-back launches.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "event_timer.hpp"
#include "sm90a_fwd_problem.hpp"
#include "vsa/registry.hpp"

namespace vsa::test::sm90a {

// Why this machine cannot run the sm90a forward drivers, or empty: they need the sm90a
// kernels in the build and a compute capability 9.0 device.
inline std::string sm90a_driver_skip_reason() {
#if !defined(VSA_HAVE_SM90A)
  return "built without the sm90a kernels";
#else
  if (!cuda_device_present()) return "no CUDA device";
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  if (prop.major != 9 || prop.minor != 0) return "needs compute capability 9.0";
  return "";
#endif
}

#if defined(VSA_HAVE_SM90A)
// The registered "sm90a" backend the drivers time (one registry for the process).
inline Backend& sm90a_driver_backend() {
  static Registry registry = [] {
    Registry r;
    register_sm90a_backends(r);
    return r;
  }();
  return *registry.find("sm90a");
}
#endif

// B = 1, H = heads, every row selects exactly `per_row` distinct blocks (shuffled; 0: nb/4,
// 25% density), full blocks.
inline FwdProblem topk_problem(int seq, int heads, std::uint64_t seed, int per_row = 0) {
  FwdSpec spec;
  spec.name = "topk";
  spec.heads = heads;
  spec.num_blocks = seq / 64;
  spec.max_kv = per_row > 0 ? per_row : spec.num_blocks / 4;
  spec.seed = seed;
  FwdProblem p = make_problem(spec);  // random counts, replaced below
  Draw draw(seed * 31 + 7);
  for (std::int64_t row = 0; row < p.shape.count_elems(); ++row) {
    const std::vector<int> ids = distinct_ids(draw, spec.num_blocks, spec.max_kv);
    p.q2k_num[std::size_t(row)] = spec.max_kv;
    std::copy(ids.begin(), ids.end(), p.q2k_idx.begin() + row * spec.max_kv);
  }
  return p;
}

// Each row's selected blocks in ascending order, as the harness's topk cases give them
// (pattern.sorted, the default: FastVideo's order); topk_problem's rows come shuffled. The
// order moves a forward's time: concurrent items then sweep K/V the same way, which L2 rewards
// (kernels/sm90a/notes/runs.md, runs 63 and 64).
inline void sort_rows_ascending(FwdProblem& p) {
  for (std::int64_t row = 0; row < p.shape.count_elems(); ++row) {
    const auto first = p.q2k_idx.begin() + row * p.shape.max_kv;
    std::sort(first, first + p.q2k_num[std::size_t(row)]);
  }
}

// The drivers' issue-22 problem: H = 8, `per_row` blocks per row, a seed fixed by the shape (so
// every driver and call times the same lists), rows ascending or shuffled.
[[nodiscard]] inline FwdProblem driver_problem(int seq, int per_row, bool ascending) {
  FwdProblem p = topk_problem(seq, 8, 1000 + seq + per_row, per_row);
  if (ascending) sort_rows_ascending(p);
  return p;
}
[[nodiscard]] constexpr const char* rows_name(bool ascending) { return ascending ? "ascend" : "shuffled"; }

[[nodiscard]] inline double pairs_of(const FwdProblem& p) {
  double pairs = 0;
  for (auto n : p.q2k_num) pairs += n;
  return pairs;
}

// Largest errors of one query block (item = bh * nb + i) against fp64 from the same bf16
// inputs: O relative to max |O|, lse absolute.
struct ItemError {
  double out_rel = 0, lse_abs = 0;
};

inline ItemError check_item(const FwdProblem& p, std::int64_t item, const std::vector<bf16_bits>& got,
                            const std::vector<float>& got_lse) {
  const Shape& s = p.shape;
  const std::int64_t bh = item / s.num_blocks, D = s.head_dim;
  const double scale = 1.0 / std::sqrt(double(D)), log2e = 1.4426950408889634;
  std::vector<std::int64_t> keys;
  for (int e = 0; e < p.q2k_num[std::size_t(item)]; ++e) {
    const int kb = p.q2k_idx[std::size_t(item * s.max_kv + e)];
    for (int j = 0; j < p.vbs[std::size_t(kb)]; ++j) keys.push_back(bh * s.seq() + std::int64_t(kb) * 64 + j);
  }
  std::vector<double> logit(keys.size()), o(static_cast<std::size_t>(D));
  double max_diff = 0, max_ref = 0, lse_diff = 0;
  for (int r = 0; r < 64; ++r) {
    const std::int64_t row = item * 64 + r;
    const bf16_bits* q = p.q.data() + row * D;
    double m = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < keys.size(); ++j) {
      const bf16_bits* k = p.k.data() + keys[j] * D;
      double dot = 0;
      for (int d = 0; d < D; ++d) dot += double(bf16_to_float(q[d])) * bf16_to_float(k[d]);
      logit[j] = scale * dot;
      m = std::max(m, logit[j]);
    }
    double l = 0;
    for (double x : logit) l += std::exp(x - m);
    std::fill(o.begin(), o.end(), 0.0);
    for (std::size_t j = 0; j < keys.size(); ++j) {
      const double w = std::exp(logit[j] - m) / l;
      const bf16_bits* v = p.v.data() + keys[j] * D;
      for (int d = 0; d < D; ++d) o[std::size_t(d)] += w * bf16_to_float(v[d]);
    }
    for (int d = 0; d < D; ++d) {
      max_diff = std::max(max_diff, std::abs(double(bf16_to_float(got[std::size_t(row * D + d)])) - o[std::size_t(d)]));
      max_ref = std::max(max_ref, std::abs(o[std::size_t(d)]));
    }
    if (!keys.empty())
      lse_diff = std::max(lse_diff, std::abs(double(got_lse[std::size_t(row)]) - log2e * (m + std::log(l))));
  }
  return {max_ref > 0 ? max_diff / max_ref : max_diff, lse_diff};
}

// The device's SM count (the persistent layouts' slots, the floor's grid).
[[nodiscard]] inline int sm_count() {
  int sms = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
  return sms;
}

// Empty, or what is wrong with the first and the last query block of a finished forward against
// fp64 (O relative to max |O| and lse absolute, each under 1e-2): a driver prints no number for
// a kernel that computes something else. with_lse = false checks O alone (a peer's lse may be in
// another form, Backend::lse_factor).
[[nodiscard]] inline std::string first_last_items_error(const FwdProblem& p, const DriverForward& f,
                                                        bool with_lse = true) {
  const std::vector<bf16_bits> got = f.out.download();
  const std::vector<float> got_lse = f.lse.download();
  for (std::int64_t item : {std::int64_t(0), p.shape.count_elems() - 1}) {
    const ItemError e = check_item(p, item, got, got_lse);
    if (!(e.out_rel < 1e-2)) return "item " + std::to_string(item) + ": O rel error " + std::to_string(e.out_rel);
    if (with_lse && !(e.lse_abs < 1e-2))
      return "item " + std::to_string(item) + ": lse abs error " + std::to_string(e.lse_abs);
  }
  return "";
}

[[nodiscard]] inline double forward_tflops(double pairs, double seconds) {
  return 4.0 * 128 * 64 * 64 * pairs / seconds / 1e12;
}

}  // namespace vsa::test::sm90a
