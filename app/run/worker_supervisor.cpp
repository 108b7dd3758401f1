#include "run/worker_supervisor.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace vsa {

std::vector<std::string> worker_argv(int ordinal) {
  return {self_executable(), "__worker", "--device", std::to_string(ordinal)};
}

WorkerSupervisor::WorkerSupervisor(std::vector<std::string> worker_argv, int ordinal)
    : m_argv(std::move(worker_argv)), m_ordinal(ordinal) {}

CaseResult WorkerSupervisor::case_error(const CaseSpec& spec, const std::string& message) {
  CaseResult r;
  r.name = spec.name;
  r.spec = to_json(spec);
  r.message = message;
  r.verdict = kFail;
  // Whatever the worker still sends for this case would be read as the next case's answer.
  m_worker->terminate();
  m_worker.reset();
  return r;
}

void WorkerSupervisor::ensure_worker() {
  if (!m_worker) m_worker = std::make_unique<WorkerProcess>(m_argv);
}

namespace {

bool is_reference_phase(const std::string& phase) { return phase.rfind("reference", 0) == 0; }

}  // namespace

CaseResult WorkerSupervisor::attempt(const CaseSpec& spec, bool& worker_lost, std::string& reference) {
  // A case the worker did not answer for still took the time until it was given up on (a
  // HANG's timeout, a FAULT's run up to the crash): its report says so, not 0 s.
  const auto started = std::chrono::steady_clock::now();
  const auto lost_after = [&](CaseResult r) {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return r;
  };
  ensure_worker();
  worker_lost = false;
  std::string backend = "worker", phase = "startup";
  try {
    m_worker->send({{"op", "case"}, {"case", to_json(spec)}});
  } catch (const std::exception&) {
    // The worker is gone (it died between cases); start over once.
    m_worker.reset();
    ensure_worker();
    m_worker->send({{"op", "case"}, {"case", to_json(spec)}});
  }
  for (;;) {
    auto msg = m_worker->receive(spec.timeout_s);
    if (msg) {
      const std::string ev = msg->at("event").get<std::string>();  // receive() passes only string events
      // A message of the protocol with a field missing or of the wrong type is the worker's
      // failure, named in the case; it must not end the run (issue 20: an exception here
      // escaped the target's thread and aborted the parent).
      try {
        if (ev == "start") {
          backend = msg->value("backend", backend);
          phase = msg->value("phase", phase);
          if (is_reference_phase(phase)) reference = backend;
          continue;
        }
        if (ev == "result") {
          CaseResult r = msg->at("result").get<CaseResult>();
          if (msg->value("context_lost", false)) {
            spdlog::debug("{}: the CUDA context of device {} is lost; restarting its worker", spec.name, m_ordinal);
            m_worker->terminate();
            m_worker.reset();
            worker_lost = true;
          }
          return r;
        }
        if (ev == "error") return lost_after(case_error(spec, msg->value("message", "worker error")));
      } catch (const std::exception& e) {  // nlohmann's type/out_of_range errors, an unknown verdict
        return lost_after(case_error(spec, "the worker sent a malformed \"" + ev + "\" message: " + e.what()));
      }
      continue;
    }
    // Timed out or the worker died: the backend of the last start event is the culprit.
    const bool hung = m_worker->timed_out();
    const bool overflowed = m_worker->overflowed();
    const std::string end = m_worker->terminate();
    const std::string tail = m_worker->stderr_tail();
    spdlog::debug("{}: worker for device {} lost during {} of {} ({}); a fresh one takes the next case", spec.name,
                  m_ordinal, phase, backend, hung ? "no answer, killed" : end);
    m_worker.reset();
    worker_lost = true;
    CaseResult r;
    r.name = spec.name;
    r.spec = to_json(spec);
    const std::string why =
        overflowed ? "the worker wrote more than " + std::to_string(kMaxWorkerLineBytes >> 20) +
                         " MiB to stdout without a newline during " + phase + " (worker killed)"
        : hung ? fmt::format("no answer within {:g} s during {} (worker killed)", spec.timeout_s, phase)
               : "worker " + end + " during " + phase + (tail.empty() ? "" : ": " + tail);
    BackendResult br;
    // Named as the worker's own error path names a failed reference, so the retry below
    // sees that the case has no reference left to check against.
    br.backend = is_reference_phase(phase) ? backend + " (reference)" : backend;
    br.verdict = hung && !overflowed ? kHang : kFault;
    br.reason = why;
    r.backends.push_back(br);
    r.message = why;
    r.verdict = br.verdict;
    return lost_after(std::move(r));
  }
}

CaseResult WorkerSupervisor::run(const CaseSpec& spec) {
  bool lost = false;
  std::string reference;
  CaseResult r = attempt(spec, lost, reference);
  // The reference failed (its row, named "X (reference)" by the worker or above), or the worker
  // was lost before it ran anything: nothing is left to check the other backends against.
  const auto reference_lost = [](const CaseResult& c) {
    return std::any_of(c.backends.begin(), c.backends.end(), [&](const BackendResult& b) {
      return b.backend.find("(reference)") != std::string::npos || b.backend == "worker" ||
             (b.backend == c.reference && (b.verdict == kFault || b.verdict == kHang || b.verdict == kFail));
    });
  };
  // After a crash, hang or sticky fault: re-run the backends it kept from running.
  for (int retry = 0; lost && retry < int(spec.backends.size()); ++retry) {
    std::set<std::string> finished;
    for (const auto& b : r.backends)
      if (b.verdict != kPending) finished.insert(b.backend);
    std::vector<std::string> remaining;
    for (const auto& b : spec.backends)
      if (!finished.count(b)) remaining.push_back(b);
    if (remaining.empty() || reference_lost(r)) break;
    CaseSpec rest = spec;
    rest.backends = remaining;
    // The backends --add-backend added, of those left (the worker refuses a spec whose added
    // backends it does not list), and the reference the first attempt chose.
    std::erase_if(rest.added_backends, [&](const std::string& b) {
      return std::find(remaining.begin(), remaining.end(), b) == remaining.end();
    });
    if (!reference.empty()) rest.reference = reference;
    CaseResult more = attempt(rest, lost, reference);
    r.backends.erase(std::remove_if(r.backends.begin(), r.backends.end(),
                                    [](const BackendResult& b) { return b.verdict == kPending; }),
                     r.backends.end());
    for (auto& b : more.backends) r.backends.push_back(b);
    if (r.reference.empty()) r.reference = more.reference;
    if (!more.message.empty() && more.backends.empty())  // the retry itself was refused: say so
      r.message = (r.message.empty() ? "" : r.message + "; ") + "the retry after a lost worker: " + more.message;
    // Without a reference the retry's backwards took their inputs from its own first forward.
    if (!r.backward_inputs)
      r.backward_inputs = more.backward_inputs;
    else if (more.backward_inputs && *more.backward_inputs != *r.backward_inputs)
      r.backward_inputs = *r.backward_inputs + ", then " + *more.backward_inputs + " (after a lost worker)";
    r.pairs = std::max(r.pairs, more.pairs);
    r.flops_fwd = std::max(r.flops_fwd, more.flops_fwd);
    r.flops_bwd = std::max(r.flops_bwd, more.flops_bwd);
    r.seconds += more.seconds;
  }
  if (r.reference.empty()) r.reference = reference;
  for (auto& b : r.backends)
    if (b.verdict == kPending) {
      b.verdict = kSkip;
      b.reason = "not run: the worker was lost earlier in this case";
    }
  // Every backend of the case has a row: one the lost workers never reached is a stated SKIP.
  const bool reference_failed = reference_lost(r);
  if (lost || reference_failed)
    for (const auto& name : spec.backends) {
      const bool has_row =
          std::any_of(r.backends.begin(), r.backends.end(), [&](const BackendResult& b) { return b.backend == name; });
      if (has_row) continue;
      BackendResult skipped;
      skipped.backend = name;
      skipped.verdict = kSkip;
      skipped.reason = !reference_failed   ? "not run: the worker was lost earlier in this case"
                       : reference.empty() ? "not run: the worker was lost before any backend ran"
                                           : "not run: the reference " + reference + " failed (its row says how)";
      r.backends.push_back(skipped);
    }
  // Rows in the case's order, as a case without a lost worker has them (a failed reference's
  // row, which is no backend of the case, first).
  const auto position = [&](const BackendResult& b) {
    const auto it = std::find(spec.backends.begin(), spec.backends.end(), b.backend);
    return it == spec.backends.end() ? -1 : int(it - spec.backends.begin());
  };
  std::stable_sort(r.backends.begin(), r.backends.end(),
                   [&](const BackendResult& a, const BackendResult& b) { return position(a) < position(b); });
  // A case-level message is a FAIL at least (as in-process, engine/case_runner.cpp):
  // a worker loss is already a more severe FAULT/HANG in a backend.
  aggregate_verdict(r);
  return r;
}

}  // namespace vsa
