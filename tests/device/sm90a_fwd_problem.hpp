#pragma once
// Block-sparse forward problems for the sm90a timing drivers (tools/): inputs from the
// counter generator, q2k rows either listed explicitly or drawn at random (distinct ids
// in shuffled order), and garbage past each row's count (in-range ids and -1, so a kernel
// that reads past q2k_num gives wrong answers rather than faulting), and the buffers and
// stream of one forward launch on them.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <ostream>
#include <string>
#include <vector>

#include "device_buffers.hpp"
#include "vsa/backend.hpp"
#include "vsa/counter_rng.hpp"

namespace vsa::test::sm90a {

struct FwdSpec {
  std::string name;
  int batch = 1, heads = 1, num_blocks = 2, max_kv = 1;
  std::uint64_t seed = 1;
  float scale = 1.0f;
  // Rows of q2k, cycled over all (b, h, i) rows; empty: random counts in [0, max_kv].
  std::vector<std::vector<int>> rows;
  // vbs per kv block; empty: every block full (64).
  std::vector<int> vbs;
};

// gtest prints a parameter through this (the name says what the case is).
inline void PrintTo(const FwdSpec& spec, std::ostream* os) { *os << spec.name; }

struct FwdProblem {
  Shape shape;
  std::vector<bf16_bits> q, k, v;
  std::vector<std::int32_t> q2k_idx, q2k_num, vbs;
};

class Draw {  // deterministic integers from the counter hash
 public:
  explicit Draw(std::uint64_t seed) : m_seed(seed) {}
  int below(int n) { return int(counter_hash(m_seed, TensorId::aux, m_next++) % std::uint64_t(n)); }

 private:
  std::uint64_t m_seed;
  std::uint64_t m_next = 0;
};

inline std::vector<bf16_bits> counter_tensor(std::uint64_t seed, TensorId id, std::int64_t n, float scale) {
  std::vector<bf16_bits> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) out[std::size_t(i)] = counter_bf16(seed, id, std::uint64_t(i), scale);
  return out;
}

// `count` distinct ids of [0, nb), shuffled (never sorted on purpose).
inline std::vector<int> distinct_ids(Draw& draw, int nb, int count) {
  std::vector<int> ids(static_cast<std::size_t>(nb));
  std::iota(ids.begin(), ids.end(), 0);
  for (int i = 0; i < count; ++i) std::swap(ids[std::size_t(i)], ids[std::size_t(i + draw.below(nb - i))]);
  ids.resize(std::size_t(count));
  return ids;
}

inline FwdProblem make_problem(const FwdSpec& spec) {
  FwdProblem p;
  Shape& s = p.shape;
  s.batch = spec.batch;
  s.heads = spec.heads;
  s.num_blocks = spec.num_blocks;
  s.head_dim = 128;
  s.block = 64;
  s.max_kv = spec.max_kv;
  p.q = counter_tensor(spec.seed, TensorId::q, s.tensor_elems(), spec.scale);
  p.k = counter_tensor(spec.seed, TensorId::k, s.tensor_elems(), spec.scale);
  p.v = counter_tensor(spec.seed, TensorId::v, s.tensor_elems(), spec.scale);
  p.vbs = spec.vbs.empty() ? std::vector<std::int32_t>(std::size_t(s.num_blocks), s.block)
                           : std::vector<std::int32_t>(spec.vbs.begin(), spec.vbs.end());
  Draw draw(spec.seed * 7919 + 5);
  p.q2k_num.assign(std::size_t(s.count_elems()), 0);
  p.q2k_idx.assign(std::size_t(s.q2k_idx_elems()), 0);
  for (std::int64_t row = 0; row < s.count_elems(); ++row) {
    const std::vector<int> ids =
        spec.rows.empty() ? distinct_ids(draw, s.num_blocks, draw.below(std::min(s.max_kv, s.num_blocks) + 1))
                          : spec.rows[std::size_t(row) % spec.rows.size()];
    p.q2k_num[std::size_t(row)] = std::int32_t(ids.size());
    for (int e = 0; e < s.max_kv; ++e)
      p.q2k_idx[std::size_t(row * s.max_kv + e)] =
          e < int(ids.size()) ? ids[std::size_t(e)] : (e % 2 ? -1 : draw.below(s.num_blocks));
  }
  return p;
}

struct FwdDeviceInputs {
  explicit FwdDeviceInputs(const FwdProblem& p)
      : q(p.q), k(p.k), v(p.v), q2k_idx(p.q2k_idx), q2k_num(p.q2k_num), vbs(p.vbs) {}
  DeviceBuffer<bf16_bits> q, k, v;
  DeviceBuffer<std::int32_t> q2k_idx, q2k_num, vbs;
};

inline ForwardArgs forward_args(const FwdProblem& p, FwdDeviceInputs& in) {
  ForwardArgs a;
  a.shape = p.shape;
  a.q = in.q.get();
  a.k = in.k.get();
  a.v = in.v.get();
  a.q2k_idx = in.q2k_idx.get();
  a.q2k_num = in.q2k_num.get();
  a.vbs = in.vbs.get();
  return a;
}

// One forward's outputs, workspace and stream, and the launch arguments that point at them.
// The outputs are poisoned with 0xff bytes first (NaN patterns 0xffff / 0xffffffff that no
// correct run writes), so unwritten elements can be counted after a launch.
struct DriverForward {
  DriverForward(Backend& backend, const FwdProblem& p, FwdDeviceInputs& in)
      : out(p.q.size()),
        lse(std::size_t(p.shape.row_elems())),
        workspace(backend.workspace_bytes(p.shape, Op::forward)) {
    out.fill_bytes(0xff);
    lse.fill_bytes(0xff);
    check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");  // blocking: ordered after the memsets
    args = forward_args(p, in);
    args.out = out.get();
    args.lse = lse.get();
    args.workspace = workspace.get();
    args.stream = stream;
  }
  DriverForward(const DriverForward&) = delete;
  DriverForward& operator=(const DriverForward&) = delete;
  ~DriverForward() { (void)cudaStreamDestroy(stream); }

  DeviceBuffer<bf16_bits> out;
  DeviceBuffer<float> lse;
  DeviceBuffer<unsigned char> workspace;
  cudaStream_t stream = nullptr;
  ForwardArgs args;
};

}  // namespace vsa::test::sm90a
