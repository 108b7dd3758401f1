#pragma once
// Reading reports back from disk for compare and fleet: one file, or every report
// under a directory. A bad file is an input error that names the file; JSON files
// in a directory that are not reports (no "schema": "vsa-bench/report") are skipped
// and listed, so a results folder may hold other tools' output.
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace vsa {

// A report and where it came from. `tool` is the report's own "tool" object
// (version, git sha, toolkit of the binary that wrote it): Report does not keep it.
struct ReportFile {
  std::string path;
  Report report;
  nlohmann::json tool = nlohmann::json::object();
};

class ReportFileError : public std::runtime_error {
 public:
  ReportFileError(const std::string& path, const std::string& why)
      : std::runtime_error(path + ": " + why), m_path(path) {}
  [[nodiscard]] const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

// The one reader of report files: the file's JSON document, checked to be a report
// (its "schema"). Throws ReportFileError naming `path`: cannot read, not valid JSON, not
// a vsa-bench report. For readers that keep the document as it is (repro's case specs,
// sanitize's annotation); the others take load_report_file.
[[nodiscard]] nlohmann::json read_report_document(const std::string& path);

// Parses a report document (throws ReportFileError naming `path`).
[[nodiscard]] ReportFile report_file_from_json(const nlohmann::json& document, const std::string& path);
[[nodiscard]] ReportFile load_report_file(const std::string& path);

struct ReportCollection {
  std::vector<ReportFile> reports;
  std::vector<std::string> skipped;  // "PATH: why", JSON files under a directory that are not reports
};

// Files are read as given; directories are searched recursively for *.json, in
// path order. Throws ReportFileError for a missing path, unreadable or invalid file.
[[nodiscard]] ReportCollection load_report_paths(const std::vector<std::string>& paths);

}  // namespace vsa
