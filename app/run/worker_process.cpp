#include "run/worker_process.hpp"

#include <chrono>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/json_input.hpp"
#include "util/printable.hpp"

namespace vsa {

std::string self_executable() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot resolve /proc/self/exe");
  return std::string(buf, std::size_t(n));
}

WorkerProcess::WorkerProcess(const std::vector<std::string>& argv)
    : m_child(std::make_unique<ChildProcess>(argv, SpawnStreams{.in = true, .out = true, .err = true})) {
  m_in = m_child->in_fd();
  m_out = m_child->out_fd();
  m_err = m_child->err_fd();
  fcntl(m_err, F_SETFL, O_NONBLOCK);
  signal(SIGPIPE, SIG_IGN);  // a dead worker must not kill the parent on write
}

WorkerProcess::~WorkerProcess() { terminate(); }

void WorkerProcess::send(const nlohmann::json& message) {
  const std::string line = message.dump() + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(m_in, line.data() + done, line.size() - done);
    if (n <= 0) throw std::runtime_error("worker pipe closed");
    done += std::size_t(n);
  }
}

void WorkerProcess::drain_stderr() {
  char buf[4096];
  for (;;) {
    const ssize_t n = read(m_err, buf, sizeof buf);
    if (n <= 0) break;
    m_err_buffer.append(buf, std::size_t(n));
    if (m_err_buffer.size() > 4 * kStderrTailBytes) m_err_buffer.erase(0, m_err_buffer.size() - kStderrTailBytes);
  }
}

std::optional<nlohmann::json> WorkerProcess::receive(double timeout_s) {
  m_timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    while (auto line = m_lines.next_line()) {
      // Stray output on stdout (a library print, a number, `null`) is not protocol. The
      // nesting is bounded: a line of 10^5 '[' would overflow a recursive parser's stack.
      nlohmann::json message;
      try {
        message = parse_json_input(*line);
      } catch (const JsonInputError&) {
        continue;
      }
      if (message.is_object() && message.contains("event") && message["event"].is_string()) return message;
    }
    if (m_lines.overflowed()) return std::nullopt;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      m_timed_out = true;
      return std::nullopt;
    }
    pollfd fds[2] = {{m_out, POLLIN, 0}, {m_err, POLLIN, 0}};
    const int rc = poll(fds, 2, int(std::min<long long>(left.count(), 1000)));
    if (rc < 0 && errno != EINTR) return std::nullopt;
    if (fds[1].revents) drain_stderr();
    if (fds[0].revents & POLLIN) {
      char buf[65536];
      const ssize_t n = read(m_out, buf, sizeof buf);
      if (n <= 0) return std::nullopt;  // EOF: the worker exited
      m_lines.append(std::string_view(buf, std::size_t(n)));
    } else if (fds[0].revents & (POLLHUP | POLLERR)) {
      return std::nullopt;
    }
  }
}

std::string WorkerProcess::terminate() {
  if (m_child->reaped()) return m_end;
  std::optional<int> status = m_child->try_wait();
  if (!status) {
    // Give a worker that is exiting on its own a moment, then kill it.
    for (int i = 0; i < 20 && !status; ++i) {
      usleep(50000);
      status = m_child->try_wait();
    }
    if (!status) {
      m_child->kill_and_wait();
      m_end = "killed";
      drain_stderr();
      return m_end;
    }
  }
  drain_stderr();
  if (WIFSIGNALED(*status))
    m_end = std::string("terminated by signal ") + std::to_string(WTERMSIG(*status)) + " (" +
            strsignal(WTERMSIG(*status)) + ")";
  else if (WIFEXITED(*status))
    m_end = "exited with status " + std::to_string(WEXITSTATUS(*status));
  return m_end;
}

std::string WorkerProcess::stderr_tail() const { return utf8_tail(m_err_buffer, kStderrTailBytes); }

}  // namespace vsa
