#include "util/process.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

namespace vsa {
namespace {

std::array<int, 2> cloexec_pipe() {
  std::array<int, 2> fds{-1, -1};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  return fds;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Child side, between fork and exec: async-signal-safe calls only (fork(2) in a
// multithreaded process), so argv is prepared by the parent.
[[noreturn]] void exec_child(char* const* args, pid_t parent, const std::array<int, 3>& child_fds, int error_fd) {
  // Linux prctl(2): the signal is sent when the parent thread exits. If the parent already
  // died before this call, the signal never comes: check and leave.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
  for (int target = 0; target < 3; ++target) {
    const int fd = child_fds[target];
    if (fd < 0) continue;
    if (fd == target) {
      ::fcntl(fd, F_SETFD, 0);  // dup2 onto itself keeps O_CLOEXEC: clear it by hand
    } else if (::dup2(fd, target) < 0) {
      break;
    }
  }
  ::execv(args[0], args);
  const int err = errno;
  [[maybe_unused]] const ssize_t n = ::write(error_fd, &err, sizeof err);
  ::_exit(127);
}

}  // namespace

void keep_standard_fds_open() {
  for (int fd = 0; fd < 3; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    const int null_fd = ::open("/dev/null", O_RDWR);  // the lowest free number: fd itself
    if (null_fd >= 0 && null_fd != fd) {
      ::dup2(null_fd, fd);
      ::close(null_fd);
    }
  }
}

int exit_code_of_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

ChildProcess::ChildProcess(const std::vector<std::string>& argv, SpawnStreams streams) {
  if (argv.empty()) throw std::runtime_error("cannot run a program with an empty argv");
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  std::array<int, 2> in{-1, -1}, out{-1, -1}, err{-1, -1};
  std::array<int, 2> exec_error{-1, -1};
  auto close_all = [&] {
    for (auto* p : {&in, &out, &err, &exec_error})
      for (int& fd : *p) close_fd(fd);
  };
  try {
    if (streams.in) in = cloexec_pipe();
    if (streams.out) out = cloexec_pipe();
    if (streams.err) err = cloexec_pipe();
    exec_error = cloexec_pipe();
  } catch (...) {
    close_all();
    throw;
  }
  const pid_t parent = ::getpid();
  m_pid = ::fork();
  if (m_pid < 0) {
    const int e = errno;
    close_all();
    throw std::runtime_error("cannot run " + argv[0] + ": fork: " + std::strerror(e));
  }
  if (m_pid == 0) exec_child(args.data(), parent, {in[0], out[1], err[1]}, exec_error[1]);

  close_fd(in[0]);
  close_fd(out[1]);
  close_fd(err[1]);
  close_fd(exec_error[1]);
  // exec succeeded when the error pipe closes empty (its O_CLOEXEC end went with the exec).
  int child_errno = 0;
  ssize_t n = 0;
  while ((n = ::read(exec_error[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  close_fd(exec_error[0]);
  m_in = in[1];
  m_out = out[0];
  m_err = err[0];
  spdlog::debug("started pid {}: {}", m_pid, fmt::join(argv, " "));
  if (n == sizeof child_errno) {
    wait();
    close_fd(m_in);
    close_fd(m_out);
    close_fd(m_err);
    throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(child_errno));
  }
}

ChildProcess::~ChildProcess() {
  close_fd(m_in);
  close_fd(m_out);
  close_fd(m_err);
  kill_and_wait();
}

void ChildProcess::close_in() { close_fd(m_in); }

int ChildProcess::wait() {
  if (m_pid < 0) return m_status;
  int status = 0;
  while (::waitpid(m_pid, &status, 0) < 0) {
    if (errno != EINTR) break;
  }
  m_status = status;
  m_pid = -1;
  return m_status;
}

std::optional<int> ChildProcess::try_wait() {
  if (m_pid < 0) return m_status;
  int status = 0;
  const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
  if (r == 0) return std::nullopt;
  if (r == m_pid) m_status = status;
  m_pid = -1;
  return m_status;
}

int ChildProcess::kill_and_wait() {
  if (m_pid < 0) return m_status;
  if (try_wait()) return m_status;
  ::kill(m_pid, SIGKILL);
  return wait();
}

}  // namespace vsa
