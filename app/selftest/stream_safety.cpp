#include "selftest/stream_safety.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "engine/case_data.hpp"
#include "engine/stability.hpp"
#include "vsa/device_ops.hpp"

namespace vsa {
namespace {

class Stream {
 public:
  Stream() { cuda_check(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking), "cudaStreamCreate"); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { cudaStreamDestroy(m_stream); }
  [[nodiscard]] cudaStream_t get() const { return m_stream; }

 private:
  cudaStream_t m_stream = nullptr;
};

void throw_if(const Status& st, const std::string& where) {
  if (!st.ok()) throw CudaError(where + ": " + st.error, false);
}

// The forward's inputs for one seed, generated on the device (same counters as the host).
std::unique_ptr<DeviceInputs> forward_inputs(const BlockMap& map, std::uint64_t seed, float scale,
                                             cudaStream_t stream) {
  const auto n = map.shape.tensor_elems();
  auto d = std::make_unique<DeviceInputs>();
  for (auto [array, id] :
       {std::pair{&d->q, TensorId::q}, std::pair{&d->k, TensorId::k}, std::pair{&d->v, TensorId::v}}) {
    *array = DeviceArray<bf16_bits>(std::size_t(n));
    throw_if(device::generate_bf16(array->get(), n, seed, id, scale, stream), "generate inputs");
  }
  d->q2k_idx = DeviceArray<std::int32_t>(map.q2k_idx.size());
  d->q2k_num = DeviceArray<std::int32_t>(map.q2k_num.size());
  d->vbs = DeviceArray<std::int32_t>(map.vbs.size());
  d->q2k_idx.upload(map.q2k_idx, stream);
  d->q2k_num.upload(map.q2k_num, stream);
  d->vbs.upload(map.vbs, stream);
  cuda_check(cudaStreamSynchronize(stream), "inputs");
  return d;
}

}  // namespace

StreamSafetyResult check_stream_safety(const CaseSpec& spec, Backend& backend, const DeviceInfo& device, int rounds) {
  if (backend.memory() != Memory::device)
    throw std::invalid_argument(backend.name() + " is a host backend: it has no streams to check");
  if (!device.present()) throw std::invalid_argument("the two-stream check needs a CUDA device");
  const BlockMap map = make_block_map(spec.shape, spec.pattern, spec.vbs, spec.seed);
  if (const Support s = backend.supports(device, map.shape, Op::forward); !s.ok)
    throw std::invalid_argument(backend.name() + " cannot run this case: " + s.reason);
  cuda_check(cudaSetDevice(device.ordinal), "cudaSetDevice");

  Stream stream_a, stream_b;
  const auto inputs_a = forward_inputs(map, spec.seed, spec.scale, stream_a.get());
  const auto inputs_b = forward_inputs(map, spec.seed + 1, spec.scale, stream_b.get());
  const HostInputs no_host_inputs;  // device backend: the sessions read the device copies
  BackendSession a(backend, map, no_host_inputs, inputs_a.get(), stream_a.get(), ProbeDelays{});
  BackendSession b(backend, map, no_host_inputs, inputs_b.get(), stream_b.get(), ProbeDelays{});

  auto lone = [&](BackendSession& s, const char* which) {
    s.poison_forward();
    throw_if(s.forward(), backend.name() + " forward (" + which + " alone)");
    return s.fetch_forward();
  };
  const HostOutputs lone_a = lone(a, "call A");
  const HostOutputs lone_b = lone(b, "call B");

  StreamSafetyResult result;
  result.backend = backend.name();
  for (int round = 0; round < rounds; ++round) {
    a.poison_forward();
    b.poison_forward();
    cuda_check(cudaDeviceSynchronize(), "poison");
    // Back to back, no synchronisation in between: the two calls overlap on the device.
    throw_if(a.forward(), backend.name() + " forward (call A, stream 1)");
    throw_if(b.forward(), backend.name() + " forward (call B, stream 2)");
    const HostOutputs got_a = a.fetch_forward();
    const HostOutputs got_b = b.fetch_forward();
    std::int64_t mismatched = 0;
    for (const auto& [got, ref] : {std::pair{&got_a, &lone_a}, std::pair{&got_b, &lone_b}}) {
      const RunDiff o = diff_bf16(ref->o, got->o);
      const RunDiff lse = diff_f32(ref->lse, got->lse);
      mismatched += o.mismatched + lse.mismatched;
      result.worst_rel_dev = std::max(result.worst_rel_dev, o.rel_dev);
    }
    ++result.rounds;
    if (mismatched > 0) ++result.mismatched_rounds;
    result.max_mismatched_elems = std::max(result.max_mismatched_elems, mismatched);
  }
  return result;
}

}  // namespace vsa
