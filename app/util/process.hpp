#pragma once
// The one way vsa-bench starts another program (workers, cuobjdump, compute-sanitizer).
//
// - No shell: argv[0] is the executable's path, not searched on PATH.
// - Every descriptor it creates is close-on-exec (pipe2 O_CLOEXEC), so a child started
//   from one thread never inherits the pipe ends of a sibling started from another: an
//   inherited write end would keep a dead worker's pipe open and turn its FAULT into a
//   HANG (issue 20). The child's 0/1/2 are dup2 copies, which exec keeps.
// - The child asks the kernel for SIGKILL when the thread that started it dies
//   (prctl(2) PR_SET_PDEATHSIG), so workers do not outlive a killed run. The signal
//   follows the *thread*: callers wait for or kill the child in the thread that spawned it.
// - A program that cannot be executed is reported by spawn() (an exception naming it
//   and the errno text), not by a child exiting 127.
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace vsa {

// Which of the child's standard streams are pipes to the parent; the others are inherited.
struct SpawnStreams {
  bool in = false;
  bool out = false;
  bool err = false;
};

class ChildProcess {
 public:
  // Throws std::runtime_error ("cannot run PATH: ...") when the program cannot be started.
  ChildProcess(const std::vector<std::string>& argv, SpawnStreams streams);
  ~ChildProcess();  // closes the pipes; a child still running is killed and reaped
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  [[nodiscard]] pid_t pid() const { return m_pid; }
  // The parent's ends of the pipes (-1 where the stream is inherited or closed).
  [[nodiscard]] int in_fd() const { return m_in; }
  [[nodiscard]] int out_fd() const { return m_out; }
  [[nodiscard]] int err_fd() const { return m_err; }
  void close_in();

  // Blocks until the child ends (EINTR retried); its wait status (waitpid(2)).
  int wait();
  // The wait status if the child has ended, without blocking.
  [[nodiscard]] std::optional<int> try_wait();
  // SIGKILL if still running, then reaps; the wait status. Idempotent.
  int kill_and_wait();
  [[nodiscard]] bool reaped() const { return m_pid < 0; }

 private:
  pid_t m_pid = -1;
  int m_status = 0;
  int m_in = -1, m_out = -1, m_err = -1;
};

// Opens /dev/null on whichever of fds 0, 1, 2 is closed (a run started with `<&-` or
// `>&-`, or by a daemon). Otherwise the next file or pipe opened takes that number, and
// a log line or the summary table meant for stderr/stdout lands in a report or in a
// worker's pipe. Called first thing in main(), before any thread exists.
void keep_standard_fds_open();

// Exit code of a wait status; -1 when the process did not exit normally.
[[nodiscard]] int exit_code_of_status(int status);

}  // namespace vsa
