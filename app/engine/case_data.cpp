#include "engine/case_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "vsa/device_ops.hpp"

namespace vsa {

void BackendSession::set_schedule_seed(std::uint64_t seed) {
  m_schedule_seed = seed;
  if (m_explorer) m_explorer->set_schedule_seed(seed);
}

std::vector<bf16_bits> generate_host(std::int64_t count, std::uint64_t seed, TensorId id, float scale) {
  std::vector<bf16_bits> out(static_cast<std::size_t>(count));
  const int threads =
      int(std::clamp<std::int64_t>(count / (1 << 20), 1, std::max(1u, std::thread::hardware_concurrency())));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const std::int64_t begin = count * t / threads, end = count * (t + 1) / threads;
      for (std::int64_t i = begin; i < end; ++i) out[std::size_t(i)] = counter_bf16(seed, id, std::uint64_t(i), scale);
    });
  for (auto& th : pool) th.join();
  return out;
}

bool usable_lse_factor(double factor) { return std::isfinite(factor) && factor != 0.0 && std::isfinite(1.0 / factor); }

std::string lse_factor_error(const std::string& backend, double factor) {
  char text[64];
  std::snprintf(text, sizeof text, "%g", factor);
  return backend + " declares lse factor " + text +
         " for this shape: it and its inverse must be finite and nonzero (docs/plugins.md)";
}

BackendSession::BackendSession(Backend& backend, const BlockMap& map, const HostInputs& host,
                               const DeviceInputs* device, cudaStream_t stream, const ProbeDelays& probes)
    : m_backend(backend),
      m_map(map),
      m_host(host),
      m_device(device),
      m_stream(stream),
      m_probes(probes),
      m_explorer(dynamic_cast<ScheduleExplorer*>(&backend)) {
  set_schedule_seed(m_schedule_seed);  // the backend object outlives cases: no seed carried over
  const Shape& s = map.shape;
  m_lse_factor = backend.lse_factor(s);
  if (!usable_lse_factor(m_lse_factor)) throw UnusableLseFactor(lse_factor_error(backend.name(), m_lse_factor));
  const auto n = std::size_t(s.tensor_elems());
  const auto rows = std::size_t(s.row_elems());
  if (on_device()) {
    m_o = DeviceArray<bf16_bits>(n);
    m_dq = DeviceArray<bf16_bits>(n);
    m_dk = DeviceArray<bf16_bits>(n);
    m_dv = DeviceArray<bf16_bits>(n);
    m_lse = DeviceArray<float>(rows);
    m_ws_fwd = DeviceBytes(backend.workspace_bytes(s, Op::forward));
    m_ws_bwd = DeviceBytes(backend.workspace_bytes(s, Op::backward));
  } else {
    m_host_out.o.resize(n);
    m_host_out.dq.resize(n);
    m_host_out.dk.resize(n);
    m_host_out.dv.resize(n);
    m_host_out.lse.resize(rows);
    m_host_ws_fwd.resize(backend.workspace_bytes(s, Op::forward));
    m_host_ws_bwd.resize(backend.workspace_bytes(s, Op::backward));
  }
}

ForwardArgs BackendSession::forward_args() {
  ForwardArgs a;
  a.shape = m_map.shape;
  a.probes = m_probes;
  a.hang_watch = m_hang_watch;
  if (on_device()) {
    a.q = m_device->q.get();
    a.k = m_device->k.get();
    a.v = m_device->v.get();
    a.q2k_idx = m_device->q2k_idx.get();
    a.q2k_num = m_device->q2k_num.get();
    a.vbs = m_device->vbs.get();
    a.out = m_o.get();
    a.lse = m_lse.get();
    a.workspace = m_ws_fwd.get();
    a.stream = m_stream;
  } else {
    a.q = m_host.q.data();
    a.k = m_host.k.data();
    a.v = m_host.v.data();
    a.q2k_idx = m_map.q2k_idx.data();
    a.q2k_num = m_map.q2k_num.data();
    a.vbs = m_map.vbs.data();
    a.out = m_host_out.o.data();
    a.lse = m_host_out.lse.data();
    a.workspace = m_host_ws_fwd.data();
  }
  return a;
}

BackwardArgs BackendSession::backward_args() {
  BackwardArgs a;
  a.shape = m_map.shape;
  a.probes = m_probes;
  a.hang_watch = m_hang_watch;
  if (on_device()) {
    a.q = m_device->q.get();
    a.k = m_device->k.get();
    a.v = m_device->v.get();
    a.out = m_device->out.get();
    a.d_out = m_device->d_out.get();
    a.lse = prepare_backward_input();  // M format, or the backend's own form
    a.q2k_idx = m_device->q2k_idx.get();
    a.q2k_num = m_device->q2k_num.get();
    a.k2q_idx = m_device->k2q_idx.get();
    a.k2q_num = m_device->k2q_num.get();
    a.vbs = m_device->vbs.get();
    a.dq = m_dq.get();
    a.dk = m_dk.get();
    a.dv = m_dv.get();
    a.workspace = m_ws_bwd.get();
    a.stream = m_stream;
  } else {
    a.q = m_host.q.data();
    a.k = m_host.k.data();
    a.v = m_host.v.data();
    a.out = m_host.out.data();
    a.d_out = m_host.d_out.data();
    a.lse = prepare_backward_input();  // M format, or the backend's own form
    a.q2k_idx = m_map.q2k_idx.data();
    a.q2k_num = m_map.q2k_num.data();
    a.k2q_idx = m_map.k2q_idx.data();
    a.k2q_num = m_map.k2q_num.data();
    a.vbs = m_map.vbs.data();
    a.dq = m_host_out.dq.data();
    a.dk = m_host_out.dk.data();
    a.dv = m_host_out.dv.data();
    a.workspace = m_host_ws_bwd.data();
  }
  return a;
}

Status BackendSession::forward() { return m_backend.forward(forward_args()); }

namespace {
// lse_own = factor x lse, and back. The poison pattern stays the poison pattern, so an
// element the backend never wrote still reads as unwritten.
void scale_lse(std::vector<float>& lse, double factor) {
  for (float& x : lse)
    if (!is_poison_f32(x)) x = float(double(x) * factor);
}
}  // namespace

const float* BackendSession::prepare_backward_input() {
  if (m_lse_factor == 1.0) return on_device() ? m_device->lse.get() : m_host.lse.data();
  if (!m_lse_own_ready) {
    // The forward's lse as the case holds it (M format): the reference's, or without one the
    // forward that provided the backward's inputs (engine/case_runner.cpp), on the host.
    std::vector<float> lse = m_host.lse;
    if (lse.empty() && m_device != nullptr && m_device->lse.size() > 0) lse = m_device->lse.download(m_stream);
    scale_lse(lse, m_lse_factor);
    m_host_lse_own = std::move(lse);
    if (on_device()) {
      m_lse_own = DeviceArray<float>(m_host_lse_own.size());
      m_lse_own.upload(m_host_lse_own, m_stream);
    }
    m_lse_own_ready = true;
  }
  return on_device() ? m_lse_own.get() : m_host_lse_own.data();
}
Status BackendSession::backward() { return m_backend.backward(backward_args()); }

namespace {
void check_status(const Status& st, const char* where) {
  if (!st.ok()) throw CudaError(std::string(where) + ": " + st.error, false);
}
}  // namespace

void BackendSession::poison_forward() {
  if (on_device()) {
    check_status(device::poison_bf16(m_o.get(), std::int64_t(m_o.size()), kPoisonBf16, m_stream), "poison O");
    check_status(device::poison_f32(m_lse.get(), std::int64_t(m_lse.size()), kPoisonF32, m_stream), "poison lse");
  } else {
    std::fill(m_host_out.o.begin(), m_host_out.o.end(), kPoisonBf16);
    float poison;
    std::memcpy(&poison, &kPoisonF32, sizeof poison);
    std::fill(m_host_out.lse.begin(), m_host_out.lse.end(), poison);
  }
}

void BackendSession::poison_backward() {
  if (on_device()) {
    for (auto* t : {&m_dq, &m_dk, &m_dv})
      check_status(device::poison_bf16(t->get(), std::int64_t(t->size()), kPoisonBf16, m_stream), "poison dQ/dK/dV");
  } else {
    for (auto* t : {&m_host_out.dq, &m_host_out.dk, &m_host_out.dv}) std::fill(t->begin(), t->end(), kPoisonBf16);
  }
}

void BackendSession::to_m_format(HostOutputs& out) const {
  if (m_lse_factor != 1.0) scale_lse(out.lse, 1.0 / m_lse_factor);
}

HostOutputs BackendSession::fetch_forward() {
  HostOutputs out;
  if (on_device()) {
    out.o = m_o.download(m_stream);
    out.lse = m_lse.download(m_stream);
  } else {
    out.o = m_host_out.o;
    out.lse = m_host_out.lse;
  }
  return out;
}

HostOutputs BackendSession::fetch_backward() {
  HostOutputs out;
  if (on_device()) {
    out.dq = m_dq.download(m_stream);
    out.dk = m_dk.download(m_stream);
    out.dv = m_dv.download(m_stream);
  } else {
    out.dq = m_host_out.dq;
    out.dk = m_host_out.dk;
    out.dv = m_host_out.dv;
  }
  return out;
}

}  // namespace vsa
