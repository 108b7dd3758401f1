#include "selftest/sanitizer_log.hpp"

#include <limits>

namespace vsa {
namespace {

constexpr std::string_view kPrefix = "=========";

// The count in "N word" (the first such), by hand: std::regex recursed per digit and overflowed
// the stack on a 50,000-digit count, and std::stoll threw on a count past int64. A count too
// large for int64 reads as the largest (a count of errors, not none).
std::optional<std::int64_t> number_before(const std::string& line, const std::string& word) {
  const std::string tail = " " + word;
  for (std::size_t at = line.find(tail); at != std::string::npos; at = line.find(tail, at + 1)) {
    std::size_t first = at;
    while (first > 0 && line[first - 1] >= '0' && line[first - 1] <= '9') --first;
    if (first == at) continue;  // no digits before this one
    std::int64_t n = 0;
    for (std::size_t i = first; i < at; ++i) {
      const int d = line[i] - '0';
      if (n > (std::numeric_limits<std::int64_t>::max() - d) / 10) return std::numeric_limits<std::int64_t>::max();
      n = n * 10 + d;
    }
    return n;
  }
  return std::nullopt;
}

}  // namespace

SanitizerLog parse_sanitizer_log(std::string_view text, std::size_t max_findings, std::size_t lines_per_finding) {
  SanitizerLog log;
  std::vector<std::string>* current = nullptr;  // the finding being read, when kept
  bool in_finding = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.starts_with(kPrefix)) continue;  // the application's own output
    std::string_view body = line.substr(kPrefix.size());
    if (body.starts_with(' ')) body.remove_prefix(1);
    if (body.find_first_not_of(' ') == std::string_view::npos) {  // bare "=========": end of a finding
      current = nullptr;
      in_finding = false;
      continue;
    }
    const std::string content(body);
    if (content.starts_with("COMPUTE-SANITIZER")) continue;
    if (content.find("ERROR SUMMARY:") != std::string::npos) {
      log.errors = number_before(content, "error");
      log.summary.push_back(content);
      current = nullptr;
      in_finding = false;
      continue;
    }
    if (content.find("RACECHECK SUMMARY:") != std::string::npos) {
      log.hazards = number_before(content, "hazard");
      log.hazard_errors = number_before(content, "error");
      log.hazard_warnings = number_before(content, "warning");
      log.summary.push_back(content);
      current = nullptr;
      in_finding = false;
      continue;
    }
    if (content.find("SUMMARY:") != std::string::npos || content.starts_with("Target application")) {
      log.notes.push_back(content);
      continue;
    }
    if (content.starts_with(' ') || content.starts_with('\t')) {  // continuation of a finding
      if (in_finding && current && current->size() < lines_per_finding) {
        const auto first = content.find_first_not_of(" \t");
        current->push_back(content.substr(first));
      }
      continue;
    }
    ++log.findings_seen;
    in_finding = true;
    current = nullptr;
    if (log.findings.size() < max_findings) {
      log.findings.push_back({content});
      current = &log.findings.back();
    }
  }
  return log;
}

nlohmann::json to_json(const SanitizerLog& log) {
  auto opt = [](const std::optional<std::int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"errors", opt(log.errors)},
          {"hazards", opt(log.hazards)},
          {"hazard_errors", opt(log.hazard_errors)},
          {"hazard_warnings", opt(log.hazard_warnings)},
          {"summary", log.summary},
          {"notes", log.notes},
          {"findings", log.findings},
          {"findings_seen", log.findings_seen}};
}

}  // namespace vsa
