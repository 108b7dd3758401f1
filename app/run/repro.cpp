#include "run/repro.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <fmt/ranges.h>

#include "suite/suite.hpp"
#include "run/output_paths.hpp"
#include "run/suite_runner.hpp"
#include "report/report.hpp"
#include "util/file_digest.hpp"
#include "util/files.hpp"
#include "util/json_path_error.hpp"
#include "report/report_files.hpp"

namespace vsa {
namespace {

// A path as a shell reads it back: as is when plain, else in single quotes (a bundle path with
// a space printed bare was not the command it claimed to be).
std::string shell_quoted(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("_./:=@%+-,").find(char(c)) != std::string_view::npos;
  });
  if (plain) return text;
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

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

// A case name as a file-name part. A long one is cut and told apart by a hash of the whole
// name: "repro-" + slug + ".suite.json" must stay within a file name's 255 bytes (a 250-letter
// case name ran, and its repro could not be written).
std::string slug(const std::string& name) {
  constexpr std::size_t kMaxChars = 120;
  std::string out;
  for (char ch : name) out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_') ? ch : '-';
  if (out.size() <= kMaxChars) return out;
  std::uint32_t hash = 2166136261u;  // FNV-1a: the same name gives the same file on every machine
  for (const unsigned char ch : name) hash = (hash ^ ch) * 16777619u;
  return out.substr(0, kMaxChars) + fmt::format("-{:08x}", hash);
}

json backend_verdicts(const json& c) {
  json list = json::array();
  for (const json& b : c.value("backends", json::array()))
    list.push_back(
        {{"backend", b.value("backend", "")}, {"verdict", b.value("verdict", "")}, {"reason", b.value("reason", "")}});
  return list;
}

// The first backend whose `schedules` names a finding's seed: the bundle replays the seeds
// that finding needs (report-schema.md, "schedules"). Null when no backend has one.
json schedule_replay(const json& c) {
  for (const json& b : c.value("backends", json::array())) {
    const json s = b.value("schedules", json());
    if (!s.is_object() || !s.contains("finding_seed") || s.at("finding_seed").is_null()) continue;
    const std::uint64_t finding = s.at("finding_seed").get<std::uint64_t>();
    const json& base = s.value("baseline_seed", json());
    const std::uint64_t first = base.is_null() ? finding : base.get<std::uint64_t>();
    if (first > finding)
      throw SuiteError("backend " + b.value("backend", std::string("?")) + ": baseline_seed " + std::to_string(first) +
                       " after finding_seed " + std::to_string(finding));
    return {{"backend", b.value("backend", "")},
            {"finding_seed", finding},
            {"schedule_seed", first},
            {"schedules", finding - first + 1}};
  }
  return json();
}

// The one-case suite of `case_name` (below make_repro_bundle, which names the file on any error).
json bundle_of(const json& report, const std::string& report_path, const std::string& case_name);

}  // namespace

json make_repro_bundle(const std::string& report_path, const std::string& case_name) {
  const json report = read_report(report_path);
  // What the strict reader does not cover (a field read loosely here) is still this file's fault.
  try {
    return bundle_of(report, report_path, case_name);
  } catch (const json::exception& e) {
    throw SuiteError(report_path + ": malformed report, " + json_path_detail::library_message(e) +
                     " (docs/schema/report.schema.json describes a report)");
  }
}

namespace {

json bundle_of(const json& report, const std::string& report_path, const std::string& case_name) {
  const json& c = find_case(report, report_path, case_name);
  if (!c.contains("spec") || !c.at("spec").is_object())
    throw SuiteError(report_path + ": case \"" + c.value("name", "") + "\" has no spec to reproduce");
  const std::string name = c.value("name", "");
  json spec = c.at("spec");
  json replay;
  try {
    replay = schedule_replay(c);
  } catch (const json::exception& e) {
    throw SuiteError(report_path + ": case \"" + name + "\": unreadable schedules: " + e.what());
  } catch (const SuiteError& e) {
    throw SuiteError(report_path + ": case \"" + name + "\": " + e.what());
  }
  // A report's spec holds every block of the case; the bundle keeps those its mode reads, so
  // the suite reader has nothing to warn about (suite.cpp, settings_of_another_mode).
  const std::string mode = spec.value("mode", std::string(to_string(CaseSpec{}.mode)));
  for (const ModeSettings& m : kModeSettings)
    if (mode != to_string(m.mode)) spec.erase(m.field);
  if (!replay.is_null()) {
    spec["schedule_seed"] = replay.at("schedule_seed");
    spec["schedules"] = replay.at("schedules");
  }
  const json device = report.value("device", json());
  const std::string where = report.value("node", json::object()).value("hostname", std::string("?")) +
                            (device.is_object() ? ", " + device.value("name", std::string("GPU")) : ", no GPU");
  json bundle = {{"name", "repro-" + slug(name)},
                 {"description",
                  "Case \"" + name + "\" as it ran on " + where + " (" + report.value("started_at", "") + "): " +
                      c.value("verdict", "") + (c.value("message", "").empty() ? "" : ", " + c.value("message", "")) +
                      (replay.is_null() ? ""
                                        : "; replays the schedule seed " + replay.at("finding_seed").dump() + " of " +
                                              replay.at("backend").get<std::string>() + "'s finding")},
                 {"origin",
                  {{"report", report_path},
                   {"case", name},
                   {"verdict", c.value("verdict", "")},
                   {"message", c.value("message", "")},
                   {"backends", backend_verdicts(c)},
                   {"started_at", report.value("started_at", "")},
                   {"tool", report.value("tool", json())},
                   {"node", report.value("node", json())},
                   {"device", device},
                   {"schedule_replay", replay},
                   {"plugins", report.value("plugins", json::array())}}},
                 {"cases", json::array({spec})}};
  // The libraries it ran with: `vsa-bench run BUNDLE` loads them again.
  json plugins = json::array();
  for (const json& p : report.value("plugins", json::array()))
    if (p.is_object() && p.contains("path") && p.at("path").is_string()) plugins.push_back(p.at("path"));
  if (!plugins.empty()) bundle["plugins"] = plugins;
  // The bundle must load exactly as `vsa-bench run` will load it.
  (void)parse_suite(bundle.dump(), "repro bundle of " + report_path + " case \"" + name + "\"");
  return bundle;
}

// A recorded plugin whose file changed since the report: said, not refused (a rebuilt
// library at the same path is a legitimate thing to re-run, but it is not the same run).
std::string changed_plugins(const json& bundle) {
  std::string text;
  for (const json& p : bundle.at("origin").at("plugins")) {
    const std::string path = p.value("path", ""), recorded = p.value("sha256", "");
    if (const std::string now = sha256_or_unreadable(path); now != recorded)
      text += "note: plugin " + path + " is not the library the report recorded (sha256 " + recorded + ", now " + now +
              ")\n";
  }
  return text;
}

}  // namespace

ReproOutcome run_repro(const ReproOptions& o) {
  check_output_file("--bundle", o.bundle, /*folder_is_made=*/true);
  check_outputs_spare_inputs({{"--bundle", o.bundle}}, {{"report", o.report}});
  if (o.bundle.empty()) check_output_dir("--out", o.out_dir);
  json bundle = make_repro_bundle(o.report, o.case_name);
  if (!o.plugins.empty()) {
    json paths = json::array();
    for (const auto& p : o.plugins) paths.push_back(fs::absolute(p).lexically_normal().string());
    bundle["plugins"] = paths;
  }
  ReproOutcome outcome;
  if (o.plugins.empty()) outcome.text = changed_plugins(bundle);
  if (!o.bundle.empty()) {
    if (const auto dir = fs::path(o.bundle).parent_path(); !dir.empty()) fs::create_directories(dir);
    write_file_atomic(o.bundle, bundle.dump(2) + "\n");
    outcome.text += "wrote " + o.bundle + " (run it with: vsa-bench run " + shell_quoted(o.bundle) + ")\n";
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
  // The case as the bundle resolved it (the filter may be part of its name), whether or not it
  // could run here: the table says which.
  outcome.text += "case \"" + bundle.at("origin").at("case").get<std::string>() + "\" of " + o.report + " (suite " +
                  suite_path + "):\n" + summary.table;
  return outcome;
}

}  // namespace vsa
