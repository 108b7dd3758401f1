#pragma once
// Supervision of one target's isolated worker (run/worker_process.hpp): sends it a case,
// follows its start events, and turns every way it can end into a CaseResult. A worker
// that dies or stops answering becomes FAULT / HANG of the backend it was running (the
// last start event names it); the backends the loss kept from running are re-run in a
// fresh worker. The caller (run/suite_runner.cpp) writes the reports.
#include <memory>
#include <string>
#include <vector>

#include "model/case_result.hpp"
#include "model/case_spec.hpp"
#include "run/worker_process.hpp"

namespace vsa {

// `vsa-bench __worker --device N` of this executable (N = -1: a CPU-only worker).
[[nodiscard]] std::vector<std::string> worker_argv(int ordinal);

class WorkerSupervisor {
 public:
  // worker_argv starts a worker (argv[0] is the executable's path); ordinal names the
  // target in log lines.
  WorkerSupervisor(std::vector<std::string> worker_argv, int ordinal);

  // Runs one case; never leaves a worker that may still answer for this case.
  [[nodiscard]] CaseResult run(const CaseSpec& spec);

 private:
  void ensure_worker();
  // A case-level FAIL with `message`; the worker is ended (it may still answer for this case).
  CaseResult case_error(const CaseSpec& spec, const std::string& message);
  // One attempt: returns the result, or a synthesised one naming the culprit.
  // `reference` gets the reference backend the worker started, when it started one (its
  // start events' phase begins with "reference"): a retry keeps it rather than choosing
  // "auto" again from fewer backends.
  CaseResult attempt(const CaseSpec& spec, bool& worker_lost, std::string& reference);

  std::vector<std::string> m_argv;
  int m_ordinal;
  std::unique_ptr<WorkerProcess> m_worker;
};

}  // namespace vsa
