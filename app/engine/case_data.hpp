#pragma once
// The inputs of one case, in host and/or device memory, and one backend's
// outputs and workspace. Inputs come from the counter generator, so host and
// device copies are bit-identical without a copy between them.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "model/case_spec.hpp"
#include "engine/cuda_memory.hpp"
#include "model/sparsity.hpp"
#include "vsa/backend.hpp"
#include "vsa/counter_rng.hpp"
#include "vsa/schedule_explorer.hpp"

namespace vsa {

// Host copies of the generated tensors (threads over chunks; same values as the device).
[[nodiscard]] std::vector<bf16_bits> generate_host(std::int64_t count, std::uint64_t seed, TensorId id, float scale);

// Whether a backend's lse form can be converted both ways (Backend::lse_factor), and why not.
[[nodiscard]] bool usable_lse_factor(double factor);
[[nodiscard]] std::string lse_factor_error(const std::string& backend, double factor);
// What BackendSession throws, before it allocates anything, for a factor that is not usable:
// the case fails that backend alone, with this message.
class UnusableLseFactor : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct HostInputs {
  std::vector<bf16_bits> q, k, v, d_out;
  std::vector<bf16_bits> out;  // reference O: backward input for every backend
  std::vector<float> lse;      // reference lse
};

struct DeviceInputs {
  DeviceArray<bf16_bits> q, k, v, d_out, out;
  DeviceArray<float> lse;
  DeviceArray<std::int32_t> q2k_idx, q2k_num, k2q_idx, k2q_num, vbs;
};

// Outputs of one run, on the host.
struct HostOutputs {
  std::vector<bf16_bits> o, dq, dk, dv;
  std::vector<float> lse;
};

// One backend bound to one case: owns its outputs and workspace in the
// backend's memory space, launches forward/backward, copies results back.
class BackendSession {
 public:
  BackendSession(Backend& backend, const BlockMap& map, const HostInputs& host, const DeviceInputs* device,
                 cudaStream_t stream, const ProbeDelays& probes);
  [[nodiscard]] Status forward();
  [[nodiscard]] Status backward();
  void poison_forward();
  void poison_backward();
  // Waits for the stream and copies outputs to the host, as the backend wrote them: a lse in
  // the backend's own form (Backend::lse_factor), which bitwise comparisons of its runs see.
  [[nodiscard]] HostOutputs fetch_forward();
  // A fetched forward's lse in M format, for comparison with the reference.
  void to_m_format(HostOutputs& out) const;
  [[nodiscard]] bool converts_lse() const { return m_lse_factor != 1.0; }
  // Backend::lse_factor of this case's shape, asked once per session (a plugin's answer is
  // not assumed to be free or the same twice).
  [[nodiscard]] double lse_factor() const { return m_lse_factor; }
  // The backward's input lse in the backend's form, made once (an allocation and copies):
  // the engine calls it before any timed call; backward_args() falls back on it.
  const float* prepare_backward_input();
  [[nodiscard]] HostOutputs fetch_backward();
  [[nodiscard]] Backend& backend() const { return m_backend; }
  [[nodiscard]] bool on_device() const { return m_backend.memory() == Memory::device; }
  // Every later launch carries this watch (located hangs; default: off).
  void set_hang_watch(const HangWatch& watch) { m_hang_watch = watch; }
  // Backends that explore schedules (vsa/schedule_explorer.hpp): every later call runs the
  // schedule of this seed. Others have no schedule; explores_schedules() says which.
  [[nodiscard]] bool explores_schedules() const { return m_explorer != nullptr; }
  void set_schedule_seed(std::uint64_t seed);
  [[nodiscard]] std::uint64_t schedule_seed() const { return m_schedule_seed; }

 private:
  [[nodiscard]] ForwardArgs forward_args();
  [[nodiscard]] BackwardArgs backward_args();

  Backend& m_backend;
  const BlockMap& m_map;
  const HostInputs& m_host;
  const DeviceInputs* m_device;
  cudaStream_t m_stream;
  ProbeDelays m_probes;
  HangWatch m_hang_watch;
  ScheduleExplorer* m_explorer = nullptr;
  std::uint64_t m_schedule_seed = 1;
  HostOutputs m_host_out;  // host backends write here directly
  DeviceArray<bf16_bits> m_o, m_dq, m_dk, m_dv;
  DeviceArray<float> m_lse;
  double m_lse_factor = 1.0;          // Backend::lse_factor of this case's shape
  std::vector<float> m_host_lse_own;  // prepare_backward_input(): the converted lse (host backends)
  DeviceArray<float> m_lse_own;       // prepare_backward_input(): its device copy (device backends)
  bool m_lse_own_ready = false;
  DeviceBytes m_ws_fwd, m_ws_bwd;
  std::vector<std::uint8_t> m_host_ws_fwd, m_host_ws_bwd;
};

}  // namespace vsa
