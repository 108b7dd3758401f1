#include "run/repro.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <fmt/ranges.h>

#include "suite/suite.hpp"
#include "run/suite_runner.hpp"
#include "report/report.hpp"
#include "util/files.hpp"
#include "report/report_files.hpp"

namespace vsa {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_report(const std::string& path) {
  json doc;
  try {
    doc = read_report_document(path);
  } catch (const ReportFileError& e) {
    throw SuiteError(e.what());  // bad input: exit 2
  }
  if (!doc.contains("cases") || !doc.at("cases").is_array()) throw SuiteError(path + ": the report has no cases");
  return doc;
}

// Exact name first; otherwise the one case whose name contains the text.
const json& find_case(const json& report, const std::string& path, const std::string& wanted) {
  const json& cases = report.at("cases");
  for (const json& c : cases)
    if (c.value("name", "") == wanted) return c;
  std::vector<const json*> matches;
  for (const json& c : cases)
    if (c.value("name", "").find(wanted) != std::string::npos) matches.push_back(&c);
  if (matches.size() == 1) return *matches.front();
  std::vector<std::string> names;
  for (const json& c : cases) names.push_back(c.value("name", std::string("?")));
  throw SuiteError(path + ": " +
                   (matches.empty() ? "no case named \"" + wanted + "\""
                                    : "\"" + wanted + "\" matches " + std::to_string(matches.size()) + " cases") +
                   " (cases: " + fmt::format("{}", fmt::join(names, ", ")) + ")");
}

std::string slug(const std::string& name) {
  std::string out;
  for (char ch : name) out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_') ? ch : '-';
  return out;
}

json backend_verdicts(const json& c) {
  json list = json::array();
  for (const json& b : c.value("backends", json::array()))
    list.push_back(
        {{"backend", b.value("backend", "")}, {"verdict", b.value("verdict", "")}, {"reason", b.value("reason", "")}});
  return list;
}

}  // namespace

json make_repro_bundle(const std::string& report_path, const std::string& case_name) {
  const json report = read_report(report_path);
  const json& c = find_case(report, report_path, case_name);
  if (!c.contains("spec") || !c.at("spec").is_object())
    throw SuiteError(report_path + ": case \"" + c.value("name", "") + "\" has no spec to reproduce");
  const std::string name = c.value("name", "");
  const json device = report.value("device", json());
  const std::string where = report.value("node", json::object()).value("hostname", std::string("?")) +
                            (device.is_object() ? ", " + device.value("name", std::string("GPU")) : ", no GPU");
  json bundle = {{"name", "repro-" + slug(name)},
                 {"description", "Case \"" + name + "\" as it ran on " + where + " (" + report.value("started_at", "") +
                                     "): " + c.value("verdict", "") +
                                     (c.value("message", "").empty() ? "" : ", " + c.value("message", ""))},
                 {"origin",
                  {{"report", report_path},
                   {"case", name},
                   {"verdict", c.value("verdict", "")},
                   {"message", c.value("message", "")},
                   {"backends", backend_verdicts(c)},
                   {"started_at", report.value("started_at", "")},
                   {"tool", report.value("tool", json())},
                   {"node", report.value("node", json())},
                   {"device", device}}},
                 {"cases", json::array({c.at("spec")})}};
  // The bundle must load exactly as `vsa-bench run` will load it.
  (void)parse_suite(bundle.dump(), "repro bundle of " + report_path + " case \"" + name + "\"");
  return bundle;
}

ReproOutcome run_repro(const ReproOptions& o) {
  const json bundle = make_repro_bundle(o.report, o.case_name);
  ReproOutcome outcome;
  if (!o.bundle.empty()) {
    if (const auto dir = fs::path(o.bundle).parent_path(); !dir.empty()) fs::create_directories(dir);
    write_file_atomic(o.bundle, bundle.dump(2) + "\n");
    outcome.text = "wrote " + o.bundle + " (run it with: vsa-bench run " + o.bundle + ")\n";
    return outcome;
  }
  fs::create_directories(o.out_dir);
  const std::string suite_path =
      (fs::path(o.out_dir) / (bundle.at("name").get<std::string>() + ".suite.json")).string();
  write_file_atomic(suite_path, bundle.dump(2) + "\n");
  RunOptions run;
  run.suites = {suite_path};
  run.out_dir = o.out_dir;
  run.label = "repro";
  run.devices = o.devices;
  run.isolate = o.isolate;
  run.progress = o.progress;
  run.argv = o.argv;
  const RunSummary summary = run_suites(run);
  outcome.exit_code = summary.exit_code;
  outcome.text = "re-ran \"" + o.case_name + "\" from " + o.report + " (suite " + suite_path + ")\n" + summary.table;
  return outcome;
}

}  // namespace vsa
