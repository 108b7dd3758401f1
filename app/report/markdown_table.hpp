#pragma once
// A Markdown table built row by row (compare and fleet print several), and the
// number formats their cells share.
#include <string>
#include <vector>

namespace vsa {

class MarkdownTable {
 public:
  explicit MarkdownTable(std::vector<std::string> header) : m_header(std::move(header)) {}
  void add_row(std::vector<std::string> cells) { m_rows.push_back(std::move(cells)); }
  [[nodiscard]] bool empty() const { return m_rows.empty(); }
  // Pipes and newlines inside cells become spaces; short rows are padded.
  [[nodiscard]] std::string str() const;

 private:
  std::vector<std::string> m_header;
  std::vector<std::vector<std::string>> m_rows;
};

// `significant` digits, printf %g style: 412.3, 0.0031.
[[nodiscard]] std::string format_number(double value, int significant = 4);
// 0.052 -> "5.2%" (one decimal).
[[nodiscard]] std::string format_percent(double fraction);
// Column ids A, B, ..., Z, AA, AB, ...
[[nodiscard]] std::string column_id(std::size_t index);

// "5%" -> 0.05, "0.05" -> 0.05. Throws std::invalid_argument unless the result is in [0, 1).
[[nodiscard]] double parse_fraction(const std::string& text);

}  // namespace vsa
