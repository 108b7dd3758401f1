#include "util/line_buffer.hpp"

#include <cstring>

namespace vsa {

void LineBuffer::append(std::string_view bytes) {
  if (m_overflowed) return;
  // Taken lines are dropped once they are half the buffer: each byte is moved O(1) times.
  if (m_begin > 0 && m_begin >= m_data.size() / 2) {
    m_data.erase(0, m_begin);
    m_begin = 0;
  }
  m_data.append(bytes);
}

std::optional<std::string> LineBuffer::next_line() {
  const char* start = m_data.data() + m_begin;
  const std::size_t held = m_data.size() - m_begin;
  const void* nl = held > m_scanned ? std::memchr(start + m_scanned, '\n', held - m_scanned) : nullptr;
  if (!nl) {
    m_scanned = held;
    if (held > m_max) {
      m_overflowed = true;
      m_data.clear();
      m_data.shrink_to_fit();
      m_begin = m_scanned = 0;
    }
    return std::nullopt;
  }
  const std::size_t length = std::size_t(static_cast<const char*>(nl) - start);
  if (length > m_max) {
    m_overflowed = true;
    m_data.clear();
    m_begin = m_scanned = 0;
    return std::nullopt;
  }
  std::string line(start, length);
  m_begin += length + 1;
  m_scanned = 0;
  return line;
}

}  // namespace vsa
