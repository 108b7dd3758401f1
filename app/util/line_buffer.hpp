#pragma once
// Lines out of a byte stream that arrives in pieces (a worker's stdout). Each byte is
// searched for the newline once: a piece is scanned from where the last scan stopped,
// so a long line arriving in many small reads costs linear time, not quadratic (issue
// 20). A line longer than the limit is an overflow and its bytes are dropped, so the
// buffer stays bounded whatever the other side writes.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace vsa {

class LineBuffer {
 public:
  explicit LineBuffer(std::size_t max_line_bytes) : m_max(max_line_bytes) {}

  void append(std::string_view bytes);
  // The next complete line, without its '\n'.
  [[nodiscard]] std::optional<std::string> next_line();
  // A line grew past the limit before its newline came (sticky).
  [[nodiscard]] bool overflowed() const { return m_overflowed; }
  // Bytes held: the unfinished line and lines not taken yet.
  [[nodiscard]] std::size_t held_bytes() const { return m_data.size() - m_begin; }
  [[nodiscard]] std::size_t max_line_bytes() const { return m_max; }

 private:
  std::string m_data;
  std::size_t m_begin = 0;    // first byte not yet returned
  std::size_t m_scanned = 0;  // bytes from m_begin on known to hold no newline
  std::size_t m_max;
  bool m_overflowed = false;
};

}  // namespace vsa
