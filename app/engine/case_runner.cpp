#include "engine/case_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

#include "engine/case_data.hpp"
#include "engine/hang_report.hpp"
#include "engine/schedule_difference.hpp"
#include "model/probe_spec.hpp"
#include "engine/stability.hpp"
#include "engine/timing.hpp"
#include "vsa/device_ops.hpp"

namespace vsa {
namespace {

using Clock = std::chrono::steady_clock;

double macs_of(const Shape& s, std::int64_t pairs) { return double(pairs) * s.block * s.block * s.head_dim * 2.0; }

// Keys were validated when the suite or --probe was read (probe_spec.hpp).
ProbeDelays probes_for(const CaseSpec& spec, const Backend& backend) {
  ProbeDelays delays;
  const auto names = backend.probe_points();
  for (const auto& [key, ns] : spec.probes) {
    ProbeKey probe;
    std::string error;
    if (!parse_probe_key(key, probe, error)) continue;
    for (std::size_t i = 0; i < names.size() && i < std::size_t(kMaxProbePoints); ++i)
      if (names[i] == probe.point) {
        delays.nanoseconds[i] = ns;
        delays.warps[i] = probe.warps;
      }
  }
  return delays;
}

std::string unsupported_probe_mask(const CaseSpec& spec, const Backend& backend) {
  return probe_mask_refusal(spec.probes, backend.probe_points(), backend.probe_warp_masks());
}

void throw_if(const Status& st, const std::string& where) {
  if (!st.ok()) throw CudaError(where + ": " + st.error, false);
}

// Runs the reference once: O/lse always (backward needs them), dQ/dK/dV when asked.
struct ReferenceOutputs {
  HostOutputs fwd, bwd;
};

class CaseRun {
 public:
  CaseRun(const CaseSpec& spec, const WorkerContext& ctx) : m_spec(spec), m_ctx(ctx) {}

  CaseOutcome run() {
    const auto t0 = Clock::now();
    CaseOutcome outcome;
    CaseResult& r = outcome.result;
    r.name = m_spec.name;
    r.spec = to_json(m_spec);
    try {
      m_map = make_block_map(m_spec.shape, m_spec.pattern, m_spec.vbs, m_spec.seed);
      r.pairs = m_map.pairs;
      r.flops_fwd = forward_flops(m_map.shape, m_map.pairs);
      r.flops_bwd = backward_flops(r.flops_fwd);
      r.reference = choose_reference(m_spec, m_map.pairs);
      plan_backends(r);
      if (!m_active.empty()) {
        prepare_inputs(r);
        run_reference(r);
        if (r.message.empty() && !m_reference && runs_backward(m_spec.op)) provide_backward_inputs(r);
        if (r.message.empty()) run_backends(r, outcome);
      }
    } catch (const CudaError& e) {
      r.message = e.what();
      outcome.context_lost = e.sticky();
      for (auto& b : r.backends)
        if (b.verdict == kPending) {
          b.verdict = kFault;
          b.reason = std::string("case setup failed: ") + e.what();
        }
    } catch (const std::exception& e) {
      r.message = e.what();
      for (auto& b : r.backends)
        if (b.verdict == kPending) {
          b.verdict = kFail;
          b.reason = std::string("case error: ") + e.what();
        }
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    aggregate_verdict(r);
    if (!r.message.empty() && r.verdict == kSkip) r.verdict = kFail;
    return outcome;
  }

 private:
  bool needs_device() const {
    for (auto* b : m_active)
      if (b->memory() == Memory::device) return true;
    return m_reference && m_reference->memory() == Memory::device;
  }

  void plan_backends(CaseResult& r) {
    const Registry& reg = *m_ctx.registry;
    const bool fwd = runs_forward(m_spec.op), bwd = runs_backward(m_spec.op);
    if (r.reference != "none") {
      m_reference = reg.find(r.reference);
      if (!m_reference) throw std::invalid_argument("reference backend '" + r.reference + "' is not registered");
    }
    for (const auto& name : m_spec.backends) {
      BackendResult br;
      br.backend = name;
      Backend* b = reg.find(name);
      auto skip = [&](std::string why) {
        br.verdict = kSkip;
        br.reason = std::move(why);
      };
      if (!b) {
        skip("not compiled into this build (see the VSA_BUILD_* CMake options)");
      } else if (b == m_reference) {
        skip("is this case's reference");
      } else {
        // The shape-only answer first: a backend added to every case (run --add-backend) was not
        // refused for it before the run, and its supports() need not repeat the shape checks.
        Support s = Support::yes();
        for (Op op : {Op::forward, Op::backward}) {
          if (!s.ok || !(op == Op::forward ? fwd : bwd) || !b->has_op(op)) continue;
          s = b->supports_shape(m_map.shape, op);
          if (s.ok) s = b->supports(m_ctx.device, m_map.shape, op);
        }
        const std::string mask_refusal = unsupported_probe_mask(m_spec, *b);
        if (!s.ok) {
          skip(s.reason);
        } else if (!mask_refusal.empty()) {
          skip(mask_refusal);
        } else if (!((fwd && b->has_op(Op::forward)) || (bwd && b->has_op(Op::backward)))) {
          // Nothing to run: a PASS here would vouch for outputs nobody checked.
          skip(std::string("implements no requested op (") +
               (fwd && bwd ? "forward and backward"
                : fwd      ? "forward"
                           : "backward") +
               ")");
        } else if (m_reference && m_reference->memory() == Memory::device && !m_ctx.device.present()) {
          skip("reference " + m_reference->name() + " needs a CUDA device");
        } else {
          br.verdict = kPending;
          m_active.push_back(b);
        }
      }
      r.backends.push_back(std::move(br));
    }
    if (m_reference && !m_active.empty()) {
      const Support s = m_reference->supports(m_ctx.device, m_map.shape, Op::forward);
      if (!s.ok) {
        for (auto& br : r.backends)
          if (br.verdict == kPending) {
            br.verdict = kSkip;
            br.reason = "reference " + m_reference->name() + " unavailable: " + s.reason;
          }
        m_active.clear();
      }
    }
  }

  void prepare_inputs(CaseResult&) {
    const Shape& s = m_map.shape;
    const auto n = s.tensor_elems();
    m_host.q = generate_host(n, m_spec.seed, TensorId::q, m_spec.scale);
    m_host.k = generate_host(n, m_spec.seed, TensorId::k, m_spec.scale);
    m_host.v = generate_host(n, m_spec.seed, TensorId::v, m_spec.scale);
    m_host.d_out = generate_host(n, m_spec.seed, TensorId::d_out, m_spec.scale);
    if (!needs_device()) return;
    cuda_check(cudaSetDevice(m_ctx.device.ordinal), "cudaSetDevice");
    cuda_check(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking), "cudaStreamCreate");
    m_dev = std::make_unique<DeviceInputs>();
    DeviceInputs& d = *m_dev;
    d.q = DeviceArray<bf16_bits>(std::size_t(n));
    d.k = DeviceArray<bf16_bits>(std::size_t(n));
    d.v = DeviceArray<bf16_bits>(std::size_t(n));
    d.d_out = DeviceArray<bf16_bits>(std::size_t(n));
    d.out = DeviceArray<bf16_bits>(std::size_t(n));
    d.lse = DeviceArray<float>(std::size_t(s.row_elems()));
    // Generated on the device from the same counters: no host-to-device copy of inputs.
    throw_if(device::generate_bf16(d.q.get(), n, m_spec.seed, TensorId::q, m_spec.scale, m_stream), "generate Q");
    throw_if(device::generate_bf16(d.k.get(), n, m_spec.seed, TensorId::k, m_spec.scale, m_stream), "generate K");
    throw_if(device::generate_bf16(d.v.get(), n, m_spec.seed, TensorId::v, m_spec.scale, m_stream), "generate V");
    throw_if(device::generate_bf16(d.d_out.get(), n, m_spec.seed, TensorId::d_out, m_spec.scale, m_stream),
             "generate dO");
    d.q2k_idx = DeviceArray<std::int32_t>(m_map.q2k_idx.size());
    d.q2k_num = DeviceArray<std::int32_t>(m_map.q2k_num.size());
    d.vbs = DeviceArray<std::int32_t>(m_map.vbs.size());
    d.k2q_idx = DeviceArray<std::int32_t>(m_map.k2q_idx.size());
    d.k2q_num = DeviceArray<std::int32_t>(m_map.k2q_num.size());
    d.q2k_idx.upload(m_map.q2k_idx, m_stream);
    d.q2k_num.upload(m_map.q2k_num, m_stream);
    d.vbs.upload(m_map.vbs, m_stream);
    // The backward's k2q comes from the GPU inversion; it must equal the host one.
    throw_if(
        device::invert_q2k(m_map.shape, d.q2k_idx.get(), d.q2k_num.get(), d.k2q_idx.get(), d.k2q_num.get(), m_stream),
        "invert q2k");
    if (d.k2q_idx.download(m_stream) != m_map.k2q_idx || d.k2q_num.download(m_stream) != m_map.k2q_num)
      throw std::runtime_error("GPU q2k -> k2q inversion differs from the host inversion");
    // A spot check that device generation matches the host generator bit for bit.
    if (d.q.download(m_stream) != m_host.q) throw std::runtime_error("GPU input generation differs from the host");
  }

  void run_reference(CaseResult& r) {
    if (!m_reference) return;
    BackendResult ref;
    ref.backend = m_reference->name() + " (reference)";
    try {
      BackendSession session(*m_reference, m_map, m_host, m_dev.get(), m_stream, ProbeDelays{});
      m_ref.fwd = forward_as_backward_inputs(session, "reference forward");
      if (runs_backward(m_spec.op)) {
        emit_start(m_reference->name(), "reference backward");
        session.poison_backward();
        throw_if(session.backward(), "reference backward");
        m_ref.bwd = session.fetch_backward();
      }
    } catch (const CudaError& e) {
      ref.verdict = kFault;
      ref.reason = e.what();
      r.backends.push_back(ref);
      r.message = std::string("reference failed: ") + e.what();
      skip_pending(r, "reference failed");
      if (e.sticky()) throw;
    }
  }

  // Runs the session's forward once, untimed, and makes its O and lse (M format: a plugin may
  // have its own lse form) the inputs of every backward; returns those outputs.
  HostOutputs forward_as_backward_inputs(BackendSession& session, const std::string& phase) {
    emit_start(session.backend().name(), phase);
    session.poison_forward();
    throw_if(session.forward(), phase);
    HostOutputs fwd = session.fetch_forward();
    session.to_m_format(fwd);
    set_backward_inputs(fwd);
    return fwd;
  }

  // O and lse (M format), the inputs of every backward, where each backend session reads them.
  void set_backward_inputs(const HostOutputs& fwd) {
    m_host.out = fwd.o;
    m_host.lse = fwd.lse;
    if (m_dev) {
      m_dev->out.upload(m_host.out, m_stream);
      m_dev->lse.upload(m_host.lse, m_stream);
    }
  }

  void skip_pending(CaseResult& r, const std::string& reason) {
    for (auto& b : r.backends)
      if (b.verdict == kPending) {
        b.verdict = kSkip;
        b.reason = reason;
      }
  }

  // Without a reference (`reference: none`) the backward still needs O and lse as inputs: the
  // forward of the first backend in the case, in its order, that can run one here (has the op,
  // supports this shape and device, has a usable lse form), run once, untimed and unchecked; if
  // it fails and the context survives, the next one (docs/spec.md, "Reference"). Uninitialised
  // memory instead would make every backward output garbage (NaN from exp overflow, say), which
  // no stability check can tell from a race.
  void provide_backward_inputs(CaseResult& r) {
    const std::string phase = "forward for the backward's inputs";
    std::string failures;
    for (Backend* b : m_active) {
      if (!b->has_op(Op::forward) || !b->supports_shape(m_map.shape, Op::forward).ok ||
          !b->supports(m_ctx.device, m_map.shape, Op::forward).ok || !usable_lse_factor(b->lse_factor(m_map.shape)))
        continue;
      try {
        BackendSession session(*b, m_map, m_host, m_dev.get(), m_stream, ProbeDelays{});
        (void)forward_as_backward_inputs(session, phase);
        r.backward_inputs = b->name();
        return;
      } catch (const CudaError& e) {
        if (e.sticky()) {
          BackendResult source;
          source.backend = b->name() + " (backward inputs)";
          source.verdict = kFault;
          source.reason = e.what();
          r.backends.push_back(source);
          r.message = "the " + phase + " failed: " + e.what();
          skip_pending(r, "the " + phase + " failed");
          throw;
        }
        failures += "; " + b->name() + ": " + e.what();
      } catch (const std::exception& e) {
        failures += "; " + b->name() + ": " + e.what();
      }
    }
    r.message = "reference \"none\": the backward needs O and lse from a forward, and " +
                (failures.empty() ? std::string("no backend in this case can run one here")
                                  : "every forward tried failed (" + failures.substr(2) + ")") +
                "; name a reference";
    skip_pending(r, "no backward inputs");
  }

  void emit_start(const std::string& backend, const std::string& phase) {
    if (m_ctx.emit) m_ctx.emit({{"event", "start"}, {"case", m_spec.name}, {"backend", backend}, {"phase", phase}});
  }

  BackendResult& result_of(CaseResult& r, const Backend& b) {
    for (auto& br : r.backends)
      if (br.backend == b.name()) return br;
    throw std::logic_error("no result slot for " + b.name());
  }

  std::vector<TensorMetrics> compare_outputs(const HostOutputs& got, bool fwd) const {
    std::vector<TensorMetrics> metrics;
    if (!m_reference) return metrics;
    const Tolerance& tol = m_spec.tolerance;
    const auto n = m_map.shape.tensor_elems();
    if (fwd) {
      metrics.push_back(compare_bf16("o", got.o.data(), m_ref.fwd.o.data(), n, tol));
      metrics.push_back(compare_f32("lse", got.lse.data(), m_ref.fwd.lse.data(), m_map.shape.row_elems(), tol));
    } else {
      metrics.push_back(compare_bf16("dq", got.dq.data(), m_ref.bwd.dq.data(), n, tol));
      metrics.push_back(compare_bf16("dk", got.dk.data(), m_ref.bwd.dk.data(), n, tol));
      metrics.push_back(compare_bf16("dv", got.dv.data(), m_ref.bwd.dv.data(), n, tol));
    }
    return metrics;
  }

  void run_backends(CaseResult& r, CaseOutcome& outcome) {
    std::vector<std::unique_ptr<BackendSession>> sessions;
    if (m_spec.hang_watch_ms > 0 && m_dev) m_watch = std::make_unique<MappedHangRecord>(m_spec.hang_watch_ms);
    for (Backend* b : m_active) {
      // A backend with its own lse form (Backend::lse_factor): the report says so; a factor
      // that cannot be converted with fails this backend alone, before it runs. Its setup is
      // a phase of its own, so a plugin that crashes there is the one the case names.
      emit_start(b->name(), "setup");
      BackendResult& br = result_of(r, *b);
      std::unique_ptr<BackendSession> session;
      try {
        session = std::make_unique<BackendSession>(*b, m_map, m_host, m_dev.get(), m_stream, probes_for(m_spec, *b));
      } catch (const UnusableLseFactor& e) {
        br.verdict = kFail;
        br.reason = e.what();
        continue;
      }
      if (session->converts_lse()) br.lse_factor = session->lse_factor();
      sessions.push_back(std::move(session));
      if (m_watch) sessions.back()->set_hang_watch(m_watch->watch());
      if (runs_backward(m_spec.op) && b->has_op(Op::backward)) (void)sessions.back()->prepare_backward_input();
    }
    // Correctness once per backend in every mode: a timing of wrong outputs is worthless.
    for (auto& s : sessions) {
      BackendResult& br = result_of(r, s->backend());
      try {
        run_check(*s, br);
      } catch (const CudaError& e) {
        if (br.schedules) br.schedules->finding_seed = s->schedule_seed();
        br.verdict = kFault;
        br.reason = hang_fault_reason(m_watch.get(), e.what());
        if (e.sticky()) {
          outcome.context_lost = true;
          return;
        }
      }
    }
    BackendSession* current = nullptr;  // the session running when a stability run throws
    try {
      if (m_spec.mode == Mode::stability) {
        for (auto& s : sessions) {
          BackendResult& br = result_of(r, s->backend());
          if (br.verdict != kPass) continue;
          emit_start(s->backend().name(), "stability");
          current = s.get();
          run_stability(*s, br, m_spec);
          current = nullptr;
        }
      } else if (m_spec.mode == Mode::perf) {
        std::vector<BackendSession*> timed;
        std::vector<BackendResult*> slots;
        for (auto& s : sessions) {
          BackendResult& br = result_of(r, s->backend());
          if (br.verdict != kPass) continue;
          if (!s->on_device()) {  // CUDA events time device work only
            br.reason = "not timed: host backend (perf timing uses CUDA events)";
            continue;
          }
          timed.push_back(s.get());
          slots.push_back(&br);
        }
        if (!timed.empty()) {
          emit_start("*", "timing");
          time_backends(timed, slots, m_spec, r.flops_fwd, m_stream, m_ctx.sample_clocks);
        }
      }
    } catch (const CudaError& e) {
      if (current) {
        BackendResult& br = result_of(r, current->backend());
        if (br.schedules) br.schedules->finding_seed = current->schedule_seed();
      }
      // The backend named in the last start event is the one at fault.
      for (auto& br : r.backends)
        if (br.verdict == kPass) {
          br.verdict = kFault;
          br.reason =
              std::string("during ") + to_string(m_spec.mode) + ": " + hang_fault_reason(m_watch.get(), e.what());
        }
      outcome.context_lost = e.sticky();
    }
  }

  // One op, judged against the reference. A backend that explores schedules runs it once per
  // seed of the case's `schedules`; every schedule is judged, and the outputs that must not
  // depend on the schedule are compared bit for bit with the first schedule's. The first
  // finding ends the op; the backend's first finding keeps its seed in br.schedules (a failed
  // call throws: run_backends records the session's seed).
  void check_op(BackendSession& s, BackendResult& br, bool fwd) {
    const Backend& b = s.backend();
    const std::string op = fwd ? "forward" : "backward";
    const int count = br.schedules ? m_spec.schedules : 1;
    HostOutputs first;
    std::vector<TensorMetrics> metrics;
    bool passed = true;
    for (int i = 0; i < count && passed; ++i) {
      const std::uint64_t seed = m_spec.schedule_seed + std::uint64_t(i);
      if (br.schedules) {
        s.set_schedule_seed(seed);
        emit_start(b.name(), op + " (schedule " + std::to_string(i + 1) + "/" + std::to_string(count) + ", seed " +
                                 std::to_string(seed) + ")");
      } else {
        emit_start(b.name(), op);
      }
      if (fwd)
        s.poison_forward();
      else
        s.poison_backward();
      throw_if(fwd ? s.forward() : s.backward(), b.name() + " " + op);
      HostOutputs got = fwd ? s.fetch_forward() : s.fetch_backward();
      // Judged in M format; schedules are compared below in the backend's own form.
      std::vector<float> own_lse;
      if (fwd && s.converts_lse()) {
        own_lse = got.lse;
        s.to_m_format(got);
      }
      metrics = compare_outputs(got, fwd);
      if (fwd && s.converts_lse()) got.lse = std::move(own_lse);
      passed = std::all_of(metrics.begin(), metrics.end(), [](const TensorMetrics& m) { return m.pass; });
      if (!passed) {
        if (br.schedules && !br.schedules->finding_seed) br.schedules->finding_seed = seed;
      } else if (i == 0) {
        first = std::move(got);
      } else if (const std::string d = schedule_difference(first, got, fwd, b.nondeterministic_outputs()); !d.empty()) {
        if (!br.schedules->finding_seed) {
          br.schedules->finding_seed = seed;
          br.schedules->baseline_seed = m_spec.schedule_seed;
        }
        if (br.verdict != kFail)
          br.reason = op + " " + d + " between schedule seeds " + std::to_string(m_spec.schedule_seed) + " and " +
                      std::to_string(seed);
        br.verdict = kFail;
        passed = false;
      }
    }
    br.metrics.insert(br.metrics.end(), metrics.begin(), metrics.end());
  }

  void run_check(BackendSession& s, BackendResult& br) {
    const Backend& b = s.backend();
    if (s.explores_schedules()) br.schedules = ScheduleRecord{m_spec.schedules, m_spec.schedule_seed, {}, {}};
    if (runs_forward(m_spec.op) && b.has_op(Op::forward)) check_op(s, br, true);
    if (runs_backward(m_spec.op) && b.has_op(Op::backward)) check_op(s, br, false);
    if (br.verdict == kFail) return;  // a schedule-dependent output, reason given
    br.verdict = kPass;
    for (const auto& m : br.metrics)
      if (!m.pass) {
        br.verdict = kFail;
        if (br.reason.empty())
          br.reason = m.tensor + ": " + m.why +
                      (br.schedules && br.schedules->finding_seed
                           ? " (schedule seed " + std::to_string(*br.schedules->finding_seed) + ")"
                           : "");
      }
  }

  const CaseSpec& m_spec;
  const WorkerContext& m_ctx;
  BlockMap m_map;
  Backend* m_reference = nullptr;
  std::vector<Backend*> m_active;
  HostInputs m_host;
  std::unique_ptr<DeviceInputs> m_dev;
  std::unique_ptr<MappedHangRecord> m_watch;  // spec.hang_watch_ms > 0 on a device
  cudaStream_t m_stream = nullptr;
  ReferenceOutputs m_ref;

 public:
  ~CaseRun() {
    m_dev.reset();
    m_watch.reset();
    if (m_stream) cudaStreamDestroy(m_stream);
  }
};

}  // namespace

double forward_flops(const Shape& s, std::int64_t pairs) {
  return 4.0 * s.head_dim * double(s.block) * double(s.block) * double(pairs);
}

std::string choose_reference(const CaseSpec& spec, std::int64_t pairs) {
  if (spec.reference != "auto") return spec.reference;
  const bool only_cpu_ref =
      std::all_of(spec.backends.begin(), spec.backends.end(), [](const std::string& b) { return b == "cpu-ref"; });
  if (only_cpu_ref) return "cpu-naive";
  return macs_of(spec.shape, pairs) <= spec.cpu_reference_limit ? "cpu-ref" : "cuda-ref";
}

CaseOutcome run_case(const CaseSpec& spec, const WorkerContext& ctx) { return CaseRun(spec, ctx).run(); }

}  // namespace vsa
