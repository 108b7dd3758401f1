#include "sass/subprocess.hpp"

#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace vsa::sass {

namespace {

constexpr std::size_t kMaxErrorText = 64 * 1024;

class Pipe {
 public:
  Pipe() {
    if (::pipe(m_fds.data()) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe() {
    close_read();
    close_write();
  }
  [[nodiscard]] int read_end() const { return m_fds[0]; }
  [[nodiscard]] int write_end() const { return m_fds[1]; }
  void close_read() { close_fd(m_fds[0]); }
  void close_write() { close_fd(m_fds[1]); }

 private:
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  std::array<int, 2> m_fds{-1, -1};
};

class SpawnActions {
 public:
  SpawnActions() { posix_spawn_file_actions_init(&m_actions); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  ~SpawnActions() { posix_spawn_file_actions_destroy(&m_actions); }
  posix_spawn_file_actions_t* get() { return &m_actions; }

 private:
  posix_spawn_file_actions_t m_actions{};
};

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::function<void(std::string_view)>& on_line) {
  if (argv.empty()) throw std::runtime_error("run_process: empty argv");
  Pipe out;
  Pipe err;
  SpawnActions actions;
  posix_spawn_file_actions_adddup2(actions.get(), out.write_end(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(actions.get(), err.write_end(), STDERR_FILENO);
  posix_spawn_file_actions_addclose(actions.get(), out.read_end());
  posix_spawn_file_actions_addclose(actions.get(), err.read_end());

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  pid_t pid = 0;
  if (const int rc = posix_spawn(&pid, argv[0].c_str(), actions.get(), nullptr, args.data(), environ); rc != 0) {
    throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(rc));
  }
  out.close_write();
  err.close_write();

  ProcessResult result;
  std::string partial;  // stdout bytes after the last newline
  std::array<pollfd, 2> fds{pollfd{out.read_end(), POLLIN, 0}, pollfd{err.read_end(), POLLIN, 0}};
  std::array<char, 1 << 16> buf{};
  int open_fds = 2;
  while (open_fds > 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (auto& fd : fds) {
      if (fd.fd < 0 || (fd.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::read(fd.fd, buf.data(), buf.size());
      if (n <= 0) {
        fd.fd = -1;  // the Pipe objects close the descriptors
        --open_fds;
        continue;
      }
      const std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
      if (fd.fd == err.read_end()) {
        if (result.error_text.size() < kMaxErrorText) result.error_text.append(chunk);
        continue;
      }
      partial.append(chunk);
      std::size_t start = 0;
      for (auto nl = partial.find('\n'); nl != std::string::npos; nl = partial.find('\n', start)) {
        on_line(std::string_view(partial).substr(start, nl - start));
        start = nl + 1;
      }
      partial.erase(0, start);
    }
  }
  if (!partial.empty()) on_line(partial);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace vsa::sass
