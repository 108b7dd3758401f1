#pragma once
// Runs one Problem (portable_problem.hpp) through cuda-ref on the device and
// through vsa::naive on the host, so tests compare the two in a few lines.
// Device outputs are poisoned first (kPoisonBf16 / kPoisonF32) so an element a
// kernel never writes is counted, not mistaken for a value.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "device_buffers.hpp"
#include "inversion.hpp"
#include "naive_forward_of.hpp"
#include "portable_problem.hpp"
#include "vsa/device_ops.hpp"
#include "vsa/registry.hpp"

namespace vsa::test {

inline Backend& cuda_ref_backend() {
  static Registry registry = [] {
    Registry r;
    register_portable_backends(r);
    return r;
  }();
  Backend* backend = registry.find("cuda-ref");
  if (backend == nullptr) throw std::logic_error("cuda-ref is not registered");
  return *backend;
}

inline void throw_if_failed(const Status& status) {
  if (!status.ok()) throw std::runtime_error(status.error);
}

struct ForwardOutputs {
  std::vector<bf16_bits> out;
  std::vector<float> lse;
};

// What backward needs beyond the Problem: forward outputs and the inverted index.
struct BackwardInputs {
  ForwardOutputs forward;
  ref::InvertedMap k2q;
};

struct BackwardOutputs {
  std::vector<bf16_bits> dq, dk, dv;
};

inline ForwardOutputs naive_forward(const Problem& p) { return naive_forward_of<ForwardOutputs>(p); }

// Backward inputs from the naive forward and the host inversion: both backends get the same O, lse, k2q.
inline BackwardInputs naive_backward_inputs(const Problem& p) {
  return {naive_forward(p), ref::invert_q2k(p.shape, p.q2k_idx.data(), p.q2k_num.data())};
}

inline BackwardOutputs naive_backward(const Problem& p, const BackwardInputs& in) {
  BackwardOutputs g{std::vector<bf16_bits>(p.q.size()), std::vector<bf16_bits>(p.q.size()),
                    std::vector<bf16_bits>(p.q.size())};
  BackwardArgs a;
  a.shape = p.shape;
  a.shape.max_q = in.k2q.max_q;
  a.q = p.q.data();
  a.k = p.k.data();
  a.v = p.v.data();
  a.out = in.forward.out.data();
  a.d_out = p.d_out.data();
  a.lse = in.forward.lse.data();
  a.q2k_idx = p.q2k_idx.data();
  a.q2k_num = p.q2k_num.data();
  a.vbs = p.vbs.data();
  a.dq = g.dq.data();
  a.dk = g.dk.data();
  a.dv = g.dv.data();
  naive::backward(a);
  return g;
}

// The Problem's inputs, resident on the device.
struct DeviceInputs {
  explicit DeviceInputs(const Problem& p)
      : q(p.q), k(p.k), v(p.v), d_out(p.d_out), q2k_idx(p.q2k_idx), q2k_num(p.q2k_num), vbs(p.vbs) {}
  DeviceBuffer<bf16_bits> q, k, v, d_out;
  DeviceBuffer<std::int32_t> q2k_idx, q2k_num, vbs;
};

inline DeviceBuffer<bf16_bits> poisoned_bf16(std::size_t n) {
  DeviceBuffer<bf16_bits> b(n);
  throw_if_failed(device::poison_bf16(b.get(), std::int64_t(n), kPoisonBf16, nullptr));
  return b;
}

// One forward call's device side: poisoned O and lse, a workspace, and the arguments
// pointing at them and at the inputs. Tests adjust `args` (probes, a hang watch) and launch
// it however they need (BackwardCall below is the same for backward).
class ForwardCall {
 public:
  ForwardCall(const Problem& p, const DeviceInputs& in, std::size_t workspace_bytes)
      : m_out(poisoned_bf16(p.q.size())), m_lse(std::size_t(p.shape.row_elems())), m_workspace(workspace_bytes) {
    throw_if_failed(device::poison_f32(m_lse.get(), std::int64_t(m_lse.size()), kPoisonF32, nullptr));
    args.shape = p.shape;
    args.q = in.q.get();
    args.k = in.k.get();
    args.v = in.v.get();
    args.q2k_idx = in.q2k_idx.get();
    args.q2k_num = in.q2k_num.get();
    args.vbs = in.vbs.get();
    args.out = m_out.get();
    args.lse = m_lse.get();
    args.workspace = m_workspace.get();
  }
  ForwardArgs args;

  // Waits for the device, then O and lse.
  ForwardOutputs outputs() const {
    synchronize();
    return {m_out.download(), m_lse.download()};
  }

 private:
  DeviceBuffer<bf16_bits> m_out;
  DeviceBuffer<float> m_lse;
  DeviceBuffer<unsigned char> m_workspace;
};

inline ForwardOutputs device_forward(Backend& backend, const Problem& p, const DeviceInputs& in) {
  ForwardCall call(p, in, backend.workspace_bytes(p.shape, Op::forward));
  throw_if_failed(backend.forward(call.args));
  return call.outputs();
}

// The shape a backward of `p` takes: the problem's, with the k2q row length.
inline Shape backward_shape(const Problem& p, int max_q) {
  Shape s = p.shape;
  s.max_q = max_q;
  return s;
}

// One backward call's device side: O and lse from `host`, the k2q maps (host-inverted,
// or device arrays the caller owns), poisoned dQ, dK, dV, a workspace, and the arguments
// pointing at all of it. Tests adjust `args` (probes) and launch it however they need.
class BackwardCall {
 public:
  BackwardCall(const Problem& p, const DeviceInputs& in, const BackwardInputs& host, std::size_t workspace_bytes)
      : m_k2q_idx(host.k2q.k2q_idx), m_k2q_num(host.k2q.k2q_num) {
    fill(p, in, host, m_k2q_idx.get(), m_k2q_num.get(), host.k2q.max_q, workspace_bytes);
  }
  BackwardCall(const Problem& p, const DeviceInputs& in, const BackwardInputs& host, const std::int32_t* k2q_idx,
               const std::int32_t* k2q_num, int max_q, std::size_t workspace_bytes) {
    fill(p, in, host, k2q_idx, k2q_num, max_q, workspace_bytes);
  }
  BackwardArgs args;

  // Waits for the device, then the three gradients.
  BackwardOutputs outputs() const {
    synchronize();
    return {m_dq.download(), m_dk.download(), m_dv.download()};
  }

 private:
  void fill(const Problem& p, const DeviceInputs& in, const BackwardInputs& host, const std::int32_t* k2q_idx,
            const std::int32_t* k2q_num, int max_q, std::size_t workspace_bytes) {
    m_out = DeviceBuffer<bf16_bits>(host.forward.out);
    m_lse = DeviceBuffer<float>(host.forward.lse);
    m_dq = poisoned_bf16(p.q.size());
    m_dk = poisoned_bf16(p.q.size());
    m_dv = poisoned_bf16(p.q.size());
    m_workspace = DeviceBuffer<unsigned char>(workspace_bytes);
    args.shape = backward_shape(p, max_q);
    args.q = in.q.get();
    args.k = in.k.get();
    args.v = in.v.get();
    args.out = m_out.get();
    args.d_out = in.d_out.get();
    args.lse = m_lse.get();
    args.q2k_idx = in.q2k_idx.get();
    args.q2k_num = in.q2k_num.get();
    args.k2q_idx = k2q_idx;
    args.k2q_num = k2q_num;
    args.vbs = in.vbs.get();
    args.dq = m_dq.get();
    args.dk = m_dk.get();
    args.dv = m_dv.get();
    args.workspace = m_workspace.get();
  }
  DeviceBuffer<std::int32_t> m_k2q_idx, m_k2q_num;
  DeviceBuffer<bf16_bits> m_out, m_dq, m_dk, m_dv;
  DeviceBuffer<float> m_lse;
  DeviceBuffer<unsigned char> m_workspace;
};

// k2q_idx / k2q_num: device arrays of the inverted index with row length max_q.
inline BackwardOutputs device_backward(Backend& backend, const Problem& p, const DeviceInputs& in,
                                       const BackwardInputs& host, const std::int32_t* k2q_idx,
                                       const std::int32_t* k2q_num, int max_q) {
  BackwardCall call(p, in, host, k2q_idx, k2q_num, max_q,
                    backend.workspace_bytes(backward_shape(p, max_q), Op::backward));
  throw_if_failed(backend.backward(call.args));
  return call.outputs();
}

// Backward with the host-inverted k2q of `host`.
inline BackwardOutputs device_backward(Backend& backend, const Problem& p, const DeviceInputs& in,
                                       const BackwardInputs& host) {
  BackwardCall call(p, in, host, backend.workspace_bytes(backward_shape(p, host.k2q.max_q), Op::backward));
  throw_if_failed(backend.backward(call.args));
  return call.outputs();
}

inline std::int64_t count_bits(const std::vector<bf16_bits>& v, bf16_bits pattern) {
  std::int64_t n = 0;
  for (auto x : v) n += x == pattern;
  return n;
}

inline std::int64_t count_bits(const std::vector<float>& v, std::uint32_t pattern) {
  std::int64_t n = 0;
  for (float x : v) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    n += bits == pattern;
  }
  return n;
}

}  // namespace vsa::test
