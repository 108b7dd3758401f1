#include "util/printable.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace vsa {
namespace {

std::string hex_escape(unsigned value) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", value & 0xffu);
  return buf;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      out += hex_escape(c);
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      out += "\\u00" + hex_escape(static_cast<unsigned char>(text[i + 1])).substr(2);  // a C1 control, UTF-8 encoded
      ++i;
    } else {  // other bytes >= 0x80 are UTF-8 lead/continuation bytes (e.g. "≠" is e2 89 a0): kept
      out += char(c);
    }
  }
  return out;
}

std::string markdown_inline(std::string_view text) {
  std::string out;
  for (char c : printable(text)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string valid_utf8(std::string_view text) {
  // The JSON library's own UTF-8 check, in its replacing mode: the rule a report write
  // enforces, applied where the text enters.
  const std::string quoted =
      nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(quoted).get<std::string>();
}

std::string utf8_tail(std::string_view text, std::size_t max_bytes) {
  if (text.size() > max_bytes) text.remove_prefix(text.size() - max_bytes);
  // A UTF-8 character has at most 3 continuation bytes (10xxxxxx) after its lead byte.
  for (int i = 0; i < 3 && !text.empty() && (static_cast<unsigned char>(text.front()) & 0xc0) == 0x80; ++i)
    text.remove_prefix(1);
  return valid_utf8(text);
}

std::string file_name_part(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  if (!out.empty() && out[0] == '.') out[0] = '_';
  return out;
}

}  // namespace vsa
