#include "engine/stability.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace vsa {
namespace {

template <class T, class ToDouble>
RunDiff diff(const std::vector<T>& first, const std::vector<T>& run, ToDouble to_double) {
  RunDiff d;
  double max_first = 0, max_dev = 0;
  for (std::size_t i = 0; i < first.size(); ++i) {
    const double a = to_double(first[i]);
    if (std::isfinite(a)) max_first = std::max(max_first, std::abs(a));
    if (std::memcmp(&first[i], &run[i], sizeof(T)) == 0) continue;
    ++d.mismatched;
    const double b = to_double(run[i]);
    max_dev = std::max(max_dev, std::isfinite(a) && std::isfinite(b) ? std::abs(a - b) : INFINITY);
  }
  d.rel_dev = max_first > 0 ? max_dev / max_first : (max_dev > 0 ? INFINITY : 0.0);
  return d;
}

}  // namespace

RunDiff diff_bf16(const std::vector<bf16_bits>& first, const std::vector<bf16_bits>& run) {
  return diff(first, run, [](bf16_bits b) { return double(bf16_to_float(b)); });
}

RunDiff diff_f32(const std::vector<float>& first, const std::vector<float>& run) {
  return diff(first, run, [](float f) { return double(f); });
}

void run_stability(BackendSession& s, BackendResult& br, const CaseSpec& spec) {
  const Backend& b = s.backend();
  const auto nondet = b.nondeterministic_outputs();
  auto band_for = [&](const std::string& tensor) {
    if (auto it = spec.stability.bands.find(tensor); it != spec.stability.bands.end()) return it->second;
    // Declared nondeterministic by the backend but given no band: the correctness tolerance.
    if (std::find(nondet.begin(), nondet.end(), tensor) != nondet.end()) return spec.tolerance.rel_max;
    return 0.0;
  };
  std::map<std::string, StabilityOutput> outs;
  auto record = [&](const std::string& tensor, const RunDiff& d) {
    StabilityOutput& o = outs[tensor];
    o.tensor = tensor;
    o.band = band_for(tensor);
    ++o.runs;
    if (d.mismatched > 0) ++o.mismatched_runs;
    o.max_mismatched_elems = std::max(o.max_mismatched_elems, d.mismatched);
    o.worst_rel_dev = std::max(o.worst_rel_dev, d.rel_dev);
  };
  const bool fwd = runs_forward(spec.op) && b.has_op(Op::forward);
  const bool bwd = runs_backward(spec.op) && b.has_op(Op::backward);
  HostOutputs first_f, first_b;
  for (int run = 0; run < spec.stability.runs; ++run) {
    // New schedules for a backend that explores them: the seeds after the check's.
    if (s.explores_schedules())
      s.set_schedule_seed(spec.schedule_seed + std::uint64_t(spec.schedules) + std::uint64_t(run));
    if (fwd) {
      s.poison_forward();
      if (auto st = s.forward(); !st.ok()) throw CudaError(b.name() + " forward (stability run): " + st.error, false);
      HostOutputs o = s.fetch_forward();
      if (run == 0) {
        first_f = std::move(o);
      } else {
        record("o", diff_bf16(first_f.o, o.o));
        record("lse", diff_f32(first_f.lse, o.lse));
      }
    }
    if (bwd) {
      s.poison_backward();
      if (auto st = s.backward(); !st.ok()) throw CudaError(b.name() + " backward (stability run): " + st.error, false);
      HostOutputs o = s.fetch_backward();
      if (run == 0) {
        first_b = std::move(o);
      } else {
        record("dq", diff_bf16(first_b.dq, o.dq));
        record("dk", diff_bf16(first_b.dk, o.dk));
        record("dv", diff_bf16(first_b.dv, o.dv));
      }
    }
  }
  for (auto& [name, o] : outs) {
    ++o.runs;  // the first run, which every other is compared with
    o.pass = o.band == 0 ? o.mismatched_runs == 0 : o.worst_rel_dev <= o.band;
    if (!o.pass && br.verdict == kPass) {
      br.verdict = kFail;
      br.reason = name + ": " + std::to_string(o.mismatched_runs) + " of " + std::to_string(o.runs - 1) +
                  " runs differ from the first (worst rel dev " + std::to_string(o.worst_rel_dev) + ")";
    }
    br.stability.push_back(o);
  }
}

}  // namespace vsa
