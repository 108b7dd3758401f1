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

// A launch's status, then the device's: either failing throws, with the hang record's
// message when the watch caught one.
inline void check_run(const std::string& what, const Variant& v, const Status& launched) {
  std::string error = launched.error;
  if (launched.ok())
    if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
      error = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  if (!error.empty()) throw std::runtime_error(what + ": " + hang_fault_reason(v.watch, error));
}

// The probes and hang watch of a variant, on a call's arguments.
template <class Args>
void apply_variant(Args& args, const Variant& v) {
  args.probes = v.probes;
  if (v.watch) args.hang_watch = v.watch->watch();
}

inline ForwardOutputs run_forward(Backend& backend, const Problem& p, const DeviceInputs& in, const Variant& v) {
  ForwardCall call(p, in, backend.workspace_bytes(p.shape, Op::forward));
  apply_variant(call.args, v);
  check_run(backend.name() + " forward", v, backend.forward(call.args));
  return call.outputs();
}

inline BackwardOutputs run_backward(Backend& backend, const Problem& p, const DeviceInputs& in,
                                    const BackwardInputs& host, const Variant& v) {
  BackwardCall call(p, in, host, backend.workspace_bytes(backward_shape(p, host.k2q.max_q), Op::backward));
  apply_variant(call.args, v);
  check_run(backend.name() + " backward", v, backend.backward(call.args));
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
