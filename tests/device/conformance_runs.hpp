#pragma once
// One launch of any registered backend on a conformance Problem (forward or backward),
// with the variant knobs the suite turns: delay probes and a hang watch (which selects the
// watched, i.e. probe, variant of kernels that have one, with every delay 0). Outputs are
// poisoned first; a launch or device error throws with the hang record's message when the
// watch caught one.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/hang_report.hpp"
#include "portable_runs.hpp"

namespace vsa::test {

struct Variant {
  ProbeDelays probes;
  const MappedHangRecord* watch = nullptr;  // non-null: the watched variant
};

// Every output of one run, forward (out, lse) or backward (dq, dk, dv).
struct RunOutputs {
  ForwardOutputs fwd;
  BackwardOutputs bwd;
};

inline void throw_run_error(const std::string& what, const Variant& v, const std::string& error) {
  throw std::runtime_error(what + ": " + hang_fault_reason(v.watch, error));
}

inline ForwardOutputs run_forward(Backend& backend, const Problem& p, const DeviceInputs& in, const Variant& v) {
  auto out = poisoned_bf16(p.q.size());
  DeviceBuffer<float> lse(std::size_t(p.shape.row_elems()));
  throw_if_failed(device::poison_f32(lse.get(), std::int64_t(lse.size()), kPoisonF32, nullptr));
  DeviceBuffer<unsigned char> workspace(backend.workspace_bytes(p.shape, Op::forward));
  ForwardArgs a;
  a.shape = p.shape;
  a.q = in.q.get();
  a.k = in.k.get();
  a.v = in.v.get();
  a.q2k_idx = in.q2k_idx.get();
  a.q2k_num = in.q2k_num.get();
  a.vbs = in.vbs.get();
  a.out = out.get();
  a.lse = lse.get();
  a.workspace = workspace.get();
  a.probes = v.probes;
  if (v.watch) a.hang_watch = v.watch->watch();
  if (const Status st = backend.forward(a); !st.ok()) throw_run_error(backend.name() + " forward", v, st.error);
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    throw_run_error(backend.name() + " forward", v, std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e));
  return {out.download(), lse.download()};
}

inline BackwardOutputs run_backward(Backend& backend, const Problem& p, const DeviceInputs& in,
                                    const BackwardInputs& host, const Variant& v) {
  BackwardCall call(p, in, host, backend.workspace_bytes(backward_shape(p, host.k2q.max_q), Op::backward));
  call.args.probes = v.probes;
  if (v.watch) call.args.hang_watch = v.watch->watch();
  if (const Status st = backend.backward(call.args); !st.ok())
    throw_run_error(backend.name() + " backward", v, st.error);
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    throw_run_error(backend.name() + " backward", v, std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e));
  return call.outputs();
}

inline RunOutputs run_op(Backend& backend, Op op, const Problem& p, const DeviceInputs& in, const BackwardInputs& host,
                         const Variant& v) {
  RunOutputs r;
  if (op == Op::forward)
    r.fwd = run_forward(backend, p, in, v);
  else
    r.bwd = run_backward(backend, p, in, host, v);
  return r;
}

}  // namespace vsa::test
