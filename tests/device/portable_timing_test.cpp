// cuda-ref speed at a video-like size. Recorded, not a pass/fail bound: the harness
// needs it to decide above which size cuda-ref, not cpu-ref, is the reference.
// The whole path stays on the device: generate_bf16 inputs, max_k2q_len + invert_q2k.
#include <gtest/gtest.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>

#include "event_timer.hpp"
#include "portable_runs.hpp"

namespace vsa::test {
namespace {

class PortableTiming : public DeviceTest {};

// Mean milliseconds of `iterations` calls of `launch` after one warm-up call.
template <class Launch>
float time_ms(Launch launch, int iterations) {
  throw_if_failed(launch());
  synchronize();
  EventTimer timer;
  const float ms = timer.time_ms(nullptr, [&] {
    for (int i = 0; i < iterations; ++i) throw_if_failed(launch());
  });
  return ms / float(iterations);
}

TEST_F(PortableTiming, ForwardAndBackwardAtS16K) {
  Shape s;
  s.batch = 1;
  s.heads = 8;
  s.num_blocks = 256;  // S = 16384
  s.head_dim = 128;
  s.block = 64;
  s.max_kv = 32;  // top-k 32 of 256 blocks (12.5 %)
  std::vector<std::int32_t> idx, num;
  topk_q2k(s, 3, idx, num);
  const std::vector<std::int32_t> vbs(std::size_t(s.num_blocks), s.block);
  DeviceBuffer<std::int32_t> q2k_idx(idx), q2k_num(num), d_vbs(vbs);

  const auto n = std::size_t(s.tensor_elems());
  DeviceBuffer<bf16_bits> q(n), k(n), v(n), d_out(n), out(n), dq(n), dk(n), dv(n);
  ASSERT_TRUE(ok(device::generate_bf16(q.get(), s.tensor_elems(), 21, TensorId::q, 1.0f, nullptr)));
  ASSERT_TRUE(ok(device::generate_bf16(k.get(), s.tensor_elems(), 21, TensorId::k, 1.0f, nullptr)));
  ASSERT_TRUE(ok(device::generate_bf16(v.get(), s.tensor_elems(), 21, TensorId::v, 1.0f, nullptr)));
  ASSERT_TRUE(ok(device::generate_bf16(d_out.get(), s.tensor_elems(), 21, TensorId::d_out, 1.0f, nullptr)));
  DeviceBuffer<float> lse(std::size_t(s.row_elems()));

  DeviceBuffer<std::int32_t> k2q_num(std::size_t(s.count_elems())), longest(1);
  ASSERT_TRUE(ok(device::max_k2q_len(s, q2k_idx.get(), q2k_num.get(), k2q_num.get(), longest.get(), nullptr)));
  s.max_q = std::max(1, longest.download()[0]);
  DeviceBuffer<std::int32_t> k2q_idx(std::size_t(s.k2q_idx_elems()));
  ASSERT_TRUE(ok(device::invert_q2k(s, q2k_idx.get(), q2k_num.get(), k2q_idx.get(), k2q_num.get(), nullptr)));

  Backend& backend = cuda_ref_backend();
  DeviceBuffer<unsigned char> workspace(backend.workspace_bytes(s, Op::backward));
  ForwardArgs f;
  f.shape = s;
  f.q = q.get();
  f.k = k.get();
  f.v = v.get();
  f.q2k_idx = q2k_idx.get();
  f.q2k_num = q2k_num.get();
  f.vbs = d_vbs.get();
  f.out = out.get();
  f.lse = lse.get();
  BackwardArgs b;
  b.shape = s;
  b.q = q.get();
  b.k = k.get();
  b.v = v.get();
  b.out = out.get();
  b.d_out = d_out.get();
  b.lse = lse.get();
  b.q2k_idx = q2k_idx.get();
  b.q2k_num = q2k_num.get();
  b.k2q_idx = k2q_idx.get();
  b.k2q_num = k2q_num.get();
  b.vbs = d_vbs.get();
  b.dq = dq.get();
  b.dk = dk.get();
  b.dv = dv.get();
  b.workspace = workspace.get();

  constexpr int kIterations = 3;
  const float fwd_ms = time_ms([&] { return backend.forward(f); }, kIterations);
  const float bwd_ms = time_ms([&] { return backend.backward(b); }, kIterations);
  for (const auto* t : {&out, &dq, &dk, &dv}) {
    const auto host = t->download();
    const auto bad =
        std::count_if(host.begin(), host.end(), [](bf16_bits x) { return !std::isfinite(bf16_to_float(x)); });
    EXPECT_EQ(bad, 0);
  }
  // docs/spec.md "FLOPs and TFLOPS": F_fwd = 4 D BLK^2 pairs, F_bwd = 2.5 F_fwd.
  const double pairs = double(s.count_elems()) * s.max_kv;
  const double f_fwd = 4.0 * s.head_dim * s.block * s.block * pairs;
  const double fwd_tflops = f_fwd / (fwd_ms * 1e-3) / 1e12;
  const double bwd_tflops = 2.5 * f_fwd / (bwd_ms * 1e-3) / 1e12;
  RecordProperty("forward_ms", std::to_string(fwd_ms));
  RecordProperty("backward_ms", std::to_string(bwd_ms));
  std::cout << "[ timing   ] cuda-ref B=1 H=8 S=16384 D=128 top-32/256: forward " << fwd_ms << " ms (" << fwd_tflops
            << " TFLOPS), backward " << bwd_ms << " ms (" << bwd_tflops << " TFLOPS), mean of " << kIterations
            << " after 1 warm-up\n";
}

}  // namespace
}  // namespace vsa::test
