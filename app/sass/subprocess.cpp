#include "sass/subprocess.hpp"

#include <poll.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "util/process.hpp"

namespace vsa::sass {

namespace {

constexpr std::size_t kMaxErrorText = 64 * 1024;

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::function<void(std::string_view)>& on_line) {
  ChildProcess child(argv, SpawnStreams{.in = false, .out = true, .err = true});

  ProcessResult result;
  std::string partial;  // stdout bytes after the last newline
  std::array<pollfd, 2> fds{pollfd{child.out_fd(), POLLIN, 0}, pollfd{child.err_fd(), POLLIN, 0}};
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
        fd.fd = -1;  // the ChildProcess closes the descriptors
        --open_fds;
        continue;
      }
      const std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
      if (fd.fd == child.err_fd()) {
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

  result.exit_status = exit_code_of_status(child.wait());
  return result;
}

}  // namespace vsa::sass
