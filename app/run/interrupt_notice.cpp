#include "run/interrupt_notice.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace vsa {
namespace {

// The handler may call only async-signal-safe functions (POSIX.1-2017, 2.4.3): write, sigaction
// and raise are; the text is made beforehand into a fixed buffer.
std::array<char, 8192> g_text{};
std::size_t g_length = 0;

extern "C" void on_interrupt(int signal) {
  std::size_t done = 0;
  while (done < g_length) {
    const ssize_t n = ::write(STDERR_FILENO, g_text.data() + done, g_length - done);
    if (n <= 0) break;
    done += std::size_t(n);
  }
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(signal, &default_action, nullptr);
  ::raise(signal);
}

std::string text_for(const std::vector<std::string>& report_paths) {
  std::string text = "\nvsa-bench run: interrupted. The finished cases are kept (complete: false, exit_code 4) in:\n";
  for (const auto& path : report_paths) text += "  " + path + "\n";
  text += "Continue with the same command plus --resume REPORT.\n";
  return text;
}

}  // namespace

InterruptNotice::InterruptNotice(const std::vector<std::string>& report_paths) {
  const std::string text = text_for(report_paths);
  g_length = std::min(text.size(), g_text.size());
  std::memcpy(g_text.data(), text.data(), g_length);
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  // A signal the process was started ignoring (SIGINT in a script's background job) stays ignored.
  for (const auto& [signal, old] : {std::pair{SIGINT, &m_old_int}, std::pair{SIGTERM, &m_old_term}}) {
    ::sigaction(signal, nullptr, old);
    if (old->sa_handler != SIG_IGN) ::sigaction(signal, &action, nullptr);
  }
}

InterruptNotice::~InterruptNotice() {
  ::sigaction(SIGINT, &m_old_int, nullptr);
  ::sigaction(SIGTERM, &m_old_term, nullptr);
}

}  // namespace vsa
