#pragma once
// Text from a suite, a report or the node (case names, labels, hostnames, worker
// messages) before it reaches a terminal or a Markdown file: control characters
// (ANSI/OSC escape sequences start with ESC 0x1b or the C1 code 0x9b/0x9d) would be
// obeyed by a terminal, and a newline or `|` would break a table row.
#include <cstddef>
#include <string>
#include <string_view>

namespace vsa {

// Every C0 control and DEL (newline and tab included) as a visible \xNN, and a UTF-8
// encoded C1 control (U+0080..U+009F) as \u00NN: one line, nothing a terminal acts on.
// Other UTF-8 ("≠", "±") passes through.
[[nodiscard]] std::string printable(std::string_view text);

// printable() plus `|` as `\|`: one Markdown table cell or inline text.
[[nodiscard]] std::string markdown_inline(std::string_view text);

// `text` as valid UTF-8 (RFC 3629): each invalid byte becomes U+FFFD. nlohmann's JSON
// serializer throws on invalid UTF-8 (type_error 316), so every string that may come
// from outside (a worker's stderr, argv, the hostname) passes here before a report.
[[nodiscard]] std::string valid_utf8(std::string_view text);

// The last at most max_bytes of `text`, starting on a character boundary (no UTF-8
// continuation byte first), as valid_utf8: the tail of a log cut anywhere.
[[nodiscard]] std::string utf8_tail(std::string_view text, std::size_t max_bytes);

// A file-name component from arbitrary text: anything outside [A-Za-z0-9._-] becomes
// '_', and a leading '.' too (no "..", no hidden files), so it cannot leave its folder.
[[nodiscard]] std::string file_name_part(std::string_view text);

}  // namespace vsa
