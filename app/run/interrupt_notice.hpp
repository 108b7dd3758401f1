#pragma once
// What a Ctrl-C or SIGTERM on `run` says before the run ends. The report on disk already holds
// every finished case (complete: false, exit_code 4) and `--resume` continues it; the run used
// to end without a word. While a notice is alive, SIGINT and SIGTERM write its text to stderr
// and then end the process by the same signal (the default action, raised again), so a shell
// and a job scheduler still see the interruption as they did.
#include <csignal>
#include <string>
#include <vector>

namespace vsa {

class InterruptNotice {
 public:
  // `report_paths`: the reports this run is writing, one per target.
  explicit InterruptNotice(const std::vector<std::string>& report_paths);
  InterruptNotice(const InterruptNotice&) = delete;
  InterruptNotice& operator=(const InterruptNotice&) = delete;
  ~InterruptNotice();  // the previous handlers back

 private:
  struct sigaction m_old_int {};
  struct sigaction m_old_term {};
};

}  // namespace vsa
