#include "report/report_files.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "report/report_fields.hpp"
#include "util/json_input.hpp"

namespace vsa {

namespace fs = std::filesystem;

namespace {

constexpr const char* kReportSchema = "vsa-bench/report";

nlohmann::json parse_json_file(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const JsonInputError& e) {
    throw ReportFileError(path, e.what());
  }
  try {
    return parse_json_input(text);
  } catch (const std::exception& e) {
    throw ReportFileError(path, std::string("not valid JSON (") + e.what() + ")");
  }
}

bool is_report_document(const nlohmann::json& j) {
  const auto it = j.is_object() ? j.find("schema") : j.end();
  return j.is_object() && it != j.end() && it->is_string() && it->get<std::string>() == kReportSchema;
}

// What a skipped file is, when it says (e.g. a saved `fleet --format json`).
std::string schema_note(const nlohmann::json& j) {
  const auto it = j.is_object() ? j.find("schema") : j.end();
  return j.is_object() && it != j.end() && it->is_string() ? " (schema " + it->get<std::string>() + ")" : "";
}

std::vector<std::string> json_files_under(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path().string());
  if (ec) throw ReportFileError(dir, "cannot list directory (" + ec.message() + ")");
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

ReportFile report_file_from_json(const nlohmann::json& document, const std::string& path) {
  if (!is_report_document(document))
    throw ReportFileError(path, std::string("not a vsa-bench report (no \"schema\": \"") + kReportSchema + "\")");
  ReportFile file;
  file.path = path;
  try {
    file.report = report_from_json(document);
  } catch (const std::exception& e) {
    throw ReportFileError(path, std::string("malformed report, ") + e.what() +
                                    " (docs/schema/report.schema.json and docs/report-schema.md describe a report)");
  }
  const auto tool = document.find("tool");
  if (tool != document.end() && tool->is_object()) file.tool = *tool;
  // What compare, fleet, floors and render read of every report, read once here: a field of the
  // wrong type in a loosely read part (a case's spec, the fingerprint) is named with this file,
  // not found later among many reports with no file to name (review of 2026-12-06).
  try {
    (void)identity_of(file.report);
    (void)config_key_of(file);
    (void)perf_samples(file.report);
  } catch (const nlohmann::json::exception& e) {
    throw ReportFileError(path, std::string("malformed report, ") + e.what() +
                                    " (docs/schema/report.schema.json and docs/report-schema.md describe a report)");
  }
  return file;
}

nlohmann::json read_report_document(const std::string& path) {
  nlohmann::json document = parse_json_file(path);
  if (!is_report_document(document))
    throw ReportFileError(path, std::string("not a vsa-bench report (no \"schema\": \"") + kReportSchema + "\")");
  return document;
}

ReportFile load_report_file(const std::string& path) { return report_file_from_json(read_report_document(path), path); }

ReportCollection load_report_paths(const std::vector<std::string>& paths) {
  ReportCollection collection;
  for (const auto& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      const auto files = json_files_under(path);
      for (const auto& file : files) {
        const nlohmann::json document = parse_json_file(file);
        if (is_report_document(document))
          collection.reports.push_back(report_file_from_json(document, file));
        else
          collection.skipped.push_back(file + ": not a vsa-bench report" + schema_note(document));
      }
      continue;
    }
    if (!fs::exists(path, ec)) throw ReportFileError(path, "no such file or directory");
    collection.reports.push_back(load_report_file(path));
  }
  return collection;
}

}  // namespace vsa
