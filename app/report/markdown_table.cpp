#include "report/markdown_table.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "util/printable.hpp"

namespace vsa {

namespace {

std::string escape_cell(const std::string& text) { return markdown_inline(text); }

void write_row(std::ostringstream& out, const std::vector<std::string>& cells, std::size_t width) {
  out << "|";
  for (std::size_t i = 0; i < width; ++i) out << " " << (i < cells.size() ? escape_cell(cells[i]) : "") << " |";
  out << "\n";
}

}  // namespace

std::string MarkdownTable::str() const {
  std::ostringstream out;
  write_row(out, m_header, m_header.size());
  out << "|";
  for (std::size_t i = 0; i < m_header.size(); ++i) out << "---|";
  out << "\n";
  for (const auto& row : m_rows) write_row(out, row, m_header.size());
  return out.str();
}

std::string format_number(double value, int significant) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", significant, value);
  return buf;
}

std::string format_percent(double fraction) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
  return buf;
}

std::string column_id(std::size_t index) {
  std::string id;
  for (std::size_t n = index + 1; n > 0; n = (n - 1) / 26) id.insert(id.begin(), char('A' + (n - 1) % 26));
  return id;
}

double parse_fraction(const std::string& text) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (number.empty() || used != number.size() || !std::isfinite(value))
    throw std::invalid_argument("expected a percentage such as 5% or a fraction such as 0.05, got \"" + text + "\"");
  if (percent) value /= 100;
  if (value < 0 || value >= 1) throw std::invalid_argument("\"" + text + "\" is outside [0%, 100%): write 5% or 0.05");
  return value;
}

}  // namespace vsa
