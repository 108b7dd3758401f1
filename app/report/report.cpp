#include "util/printable.hpp"
#include "report/report.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <spdlog/spdlog.h>
#include <fmt/ranges.h>

#include "build_info.hpp"
#include "report/noise_reason.hpp"
#include "report/sanitizer_finding.hpp"
#include "report/shared_gpu.hpp"
#include "report/timing_figures.hpp"
#include "report/timing_text.hpp"
#include "telemetry/clock_summary.hpp"
#include "util/files.hpp"
#include "util/json_path_error.hpp"
#include "util/json_lookup.hpp"

namespace vsa {

std::string utc_now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json summary_counts(const std::vector<CaseResult>& cases) {
  nlohmann::json s = {{"cases", cases.size()},   {verdict_name(kPass), 0}, {verdict_name(kFail), 0},
                      {verdict_name(kFault), 0}, {verdict_name(kHang), 0}, {verdict_name(kSkip), 0}};
  for (const auto& c : cases) s[verdict_name(c.verdict)] = s.value(verdict_name(c.verdict), 0) + 1;
  return s;
}

nlohmann::json check_counts(const std::vector<NodeCheck>& checks) {
  nlohmann::json s = {
      {"checks", checks.size()}, {verdict_name(kPass), 0}, {verdict_name(kFail), 0}, {verdict_name(kSkip), 0}};
  for (const auto& c : checks) s[verdict_name(c.verdict)] = s.value(verdict_name(c.verdict), 0) + 1;
  return s;
}

nlohmann::json report_tool_json() {
  return {{"name", "vsa-bench"},
          {"version", build::kVersion},
          {"git_sha", build::git_sha()},
          {"build_type", build::kBuildType},
          {"cxx_compiler", build::kCxxCompiler},
          {"cuda_compiler", build::kCudaCompiler},
          {"cuda_toolkit", build::kCudaToolkit}};
}

nlohmann::json to_json(const Report& r) {
  nlohmann::json j = {
      {"schema", "vsa-bench/report"},
      {"schema_version", kReportSchemaVersion},
      {"tool", r.tool.is_object() ? r.tool : report_tool_json()},
      {"argv", r.argv},
      {"label", r.label},
      {"started_at", r.started_at},
      {"finished_at", r.finished_at},
      {"node", r.node},
      {"device", r.device},
      {"devices_note", r.devices_note},
      {"suites", r.suites},
      {"backends", r.backends},
      {"probes", r.probes},
      {"plugins", r.plugins},
      {"cases", r.cases},
      {"summary", summary_counts(r.cases)},
      {"checks", r.checks},
      {"checks_summary", check_counts(r.checks)},
      {"health", r.health},
      {"backend_aliases", r.backend_aliases},
      {"complete", r.complete},
      {"exit_code", r.exit_code},
  };
  // Only where there is something to say, so reports of runs that never resumed keep their bytes.
  if (!r.planned_cases.empty()) j["planned_cases"] = r.planned_cases;
  if (r.sanitizer.is_object()) j["sanitizer"] = r.sanitizer;
  if (!r.resumed.empty()) j["resumed"] = r.resumed;
  return j;
}

Report report_from_json(const nlohmann::json& j) {
  if (j.value("schema", "") != "vsa-bench/report")
    throw std::invalid_argument("not a vsa-bench report (missing \"schema\": \"vsa-bench/report\")");
  if (j.contains("schema_version") && !j.at("schema_version").is_number_integer())
    throw std::invalid_argument("$.schema_version: must be an integer, got " +
                                std::string(j.at("schema_version").type_name()));
  // Compared as a double: read as an int, 2^32 + 2 wrapped to 2 and a report of an unknown schema
  // was read (fuzz review, 2026-12-07); a double orders any integer, a huge unsigned one too.
  // Versions start at 1; a report without one predates them.
  if (const double version = j.value("schema_version", 1.0); version > kReportSchemaVersion)
    throw std::invalid_argument("report schema_version " + j.at("schema_version").dump() +
                                " is newer than this tool understands (" + std::to_string(kReportSchemaVersion) + ")");
  else if (version < 1)
    throw std::invalid_argument("report schema_version " + j.at("schema_version").dump() + ": versions start at 1");
  // Each field named by its path when it has the wrong type (util/json_path_error.hpp); the
  // fields kept as JSON are checked for the shape the readers of a report iterate over.
  using T = nlohmann::json::value_t;
  const nlohmann::json null_value;
  Report r;
  r.tool = read_shaped(j, "tool", null_value, {T::object, T::null});
  read_field_or(j, "argv", r.argv, {});
  read_field_or(j, "label", r.label, std::string());
  read_field_or(j, "started_at", r.started_at, std::string());
  read_field_or(j, "finished_at", r.finished_at, std::string());
  r.node = read_shaped(j, "node", null_value, {T::object, T::null});
  r.device = read_shaped(j, "device", null_value, {T::object, T::null});
  r.devices_note = read_shaped(j, "devices_note", null_value, {T::string, T::null});
  r.suites = read_shaped(j, "suites", nlohmann::json::array(), {T::array});
  r.backends = read_shaped(j, "backends", nlohmann::json::array(), {T::array});
  r.probes = read_shaped(j, "probes", nlohmann::json::object(), {T::object});
  r.plugins = read_shaped(j, "plugins", nlohmann::json::array(), {T::array});
  // Required: a report without its cases would read as a GPU that ran nothing and passed.
  read_each(j, "cases", r.cases);
  std::set<std::string> names;
  for (std::size_t i = 0; i < r.cases.size(); ++i)
    if (!names.insert(r.cases[i].name).second)  // compare and fleet key cases by name
      throw JsonPathError(".cases[" + std::to_string(i) + "].name",
                          "\"" + r.cases[i].name + "\" comes twice in this report; a case name is its key");
  // The figures compare, fleet and floors gate on must follow from the pass medians beside them.
  const int schema_version = j.value("schema_version", 1);
  for (std::size_t i = 0; i < r.cases.size(); ++i)
    for (std::size_t b = 0; b < r.cases[i].backends.size(); ++b)
      for (std::size_t k = 0; k < r.cases[i].backends[b].timings.size(); ++k)
        if (const std::string why = timing_figures_inconsistency(
                r.cases[i].backends[b].timings[k], schema_version,
                r.cases[i].backends[b].timings[k].op == "bwd" ? r.cases[i].flops_bwd : r.cases[i].flops_fwd);
            !why.empty())
          throw JsonPathError(fmt::format(".cases[{}].backends[{}].timings[{}]", i, b, k), why);
  if (j.contains("checks")) read_each(j, "checks", r.checks);  // absent in reports before node checks
  r.health = read_shaped(j, "health", null_value, {T::object, T::null});
  r.backend_aliases = read_shaped(j, "backend_aliases", nlohmann::json::array(), {T::array});
  read_field_or(j, "planned_cases", r.planned_cases, {});
  r.resumed = read_shaped(j, "resumed", nlohmann::json::array(), {T::array});
  read_field_or(j, "complete", r.complete, false);
  read_field_or(j, "exit_code", r.exit_code, 0);
  if (r.exit_code < 0 || r.exit_code > 4)
    throw JsonPathError(".exit_code", "must be 0-4, got " + std::to_string(r.exit_code));
  r.sanitizer = read_shaped(j, "sanitizer", null_value, {T::object, T::null});
  return r;
}

namespace {

std::string fmt_num(double v, int precision = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

std::string worst_error(const BackendResult& b) {
  double worst = -1;
  std::string which;
  for (const auto& m : b.metrics)
    if (m.rel_max > worst) {
      worst = m.rel_max;
      which = m.tensor;
    }
  return worst < 0 ? "" : which + " " + fmt_num(worst, 2);
}

// "515.5 (±1.2%) at 1395-1620 MHz, sw_power_cap": the clock goes with the number. One pass
// has no spread to show: "(1 pass)" rather than a "±0%" that would claim a precision.
// Adaptive sampling adds its passes and outcome, "(±0.9%, 12 passes, converged, 1 off-clock
// left out)" (report/timing_text.hpp).
std::string tflops_of(const BackendResult& b, const char* op) {
  for (const auto& t : b.timings)
    if (t.op == op) {
      const std::string clocks = clock_summary(t.clocks);
      return fmt_num(t.tflops, 4) + " (" + spread_text(t) + ")" + (clocks.empty() ? "" : " " + clocks);
    }
  return "";
}

// "dq 3/999 runs differ (band 0.01)" for outputs that moved; "bitwise x999" when none did.
std::string stability_of(const BackendResult& b) {
  if (b.stability.empty()) return "";
  std::vector<std::string> moved;
  int runs = 0;
  for (const auto& s : b.stability) {
    runs = std::max(runs, s.runs - 1);
    if (s.mismatched_runs > 0)
      moved.push_back(s.tensor + " " + std::to_string(s.mismatched_runs) + "/" + std::to_string(s.runs - 1) +
                      " differ (worst " + fmt_num(s.worst_rel_dev, 2) +
                      (s.band > 0 ? ", band " + fmt_num(s.band, 2) : std::string(", must be bitwise")) + ")");
  }
  return moved.empty() ? "bitwise equal over " + std::to_string(runs + 1) + " runs"
                       : fmt::format("{}", fmt::join(moved, "; "));
}

std::string escape_cell(const std::string& s) { return markdown_inline(s); }

// One row per timing whose spread stayed above its target (report/noise_reason.hpp): the
// figure and why, so a perf table states a reason for every figure it cannot vouch for.
// One table row per timing that `text` has something to say about: case, backend, op,
// TFLOPS and the text (the noise reason, or a shared GPU).
std::string timing_rows(const Report& r, const std::function<std::string(const Timing&)>& text) {
  std::string rows;
  for (const auto& c : r.cases)
    for (const auto& b : c.backends)
      for (const auto& t : b.timings) {
        const std::string said = text(t);
        if (said.empty()) continue;
        rows += "| " + escape_cell(c.name) + " | " + escape_cell(b.backend) + " | " + t.op + " | " +
                fmt_num(t.tflops, 4) + " | " + escape_cell(said) + " |\n";
      }
  return rows;
}

// A backend that explores schedules: what ran and the finding's seed, for the note column.
std::string schedules_of(const BackendResult& b) {
  if (!b.schedules) return "";
  const ScheduleRecord& s = *b.schedules;
  const std::string range =
      std::to_string(s.first_seed) + ".." + std::to_string(s.first_seed + std::uint64_t(s.count) - 1);
  if (!s.finding_seed) return "schedules " + range + ": no finding";
  return "found at schedule seed " + std::to_string(*s.finding_seed) + " (of " + range + ")";
}

// A backend with its own lse form (Backend::lse_factor): its lse was converted, untimed.
std::string lse_form_of(const BackendResult& b) {
  if (!b.lse_factor) return "";
  char text[96];
  std::snprintf(text, sizeof text, "lse in its own form (x %.6g), converted untimed", *b.lse_factor);
  return text;
}

std::string note_of(const BackendResult& b) {
  std::string note;
  for (const std::string& part : {schedules_of(b), lse_form_of(b), b.reason})
    if (!part.empty()) note += (note.empty() ? "" : "; ") + part;
  return note;
}

// "- plugin fv-sm100a: /opt/fv.so (1234567 bytes, sha256 ab12..., ABI 2; git=abc, cuda=13.0)".
std::string plugin_line(const nlohmann::json& p) {
  std::string build;
  const nlohmann::json info = p.value("build_info", nlohmann::json::object());  // items() needs it alive
  for (const auto& [key, value] : info.items())
    build += (build.empty() ? "; " : ", ") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  std::vector<std::string> names;
  for (const auto& b : p.value("backends", nlohmann::json::array())) names.push_back(b.value("name", std::string("?")));
  const std::string backends = fmt::format("{}", fmt::join(names, ", "));
  return "- plugin " + escape_cell(p.value("plugin_name", std::string("?"))) + ": " +
         escape_cell(p.value("path", std::string("?"))) + " (" + std::to_string(p.value("size", 0ull)) +
         " bytes, sha256 " + p.value("sha256", std::string("?")) + ", ABI " +
         std::to_string(p.value("abi_version", 0)) + escape_cell(build) + "), backends: " + escape_cell(backends) +
         "\n";
}

}  // namespace

namespace {

// The section of a report run under `vsa-bench sanitize`, from its annotation: what ran, how it
// ended, and the first line of each finding.
std::string sanitizer_section(const nlohmann::json& s) {
  std::ostringstream md;
  std::vector<std::string> words;
  if (const auto c = s.find("command"); c != s.end() && c->is_array())
    for (const auto& w : *c) words.push_back(w.is_string() ? w.get<std::string>() : w.dump());
  const nlohmann::json result = json_value_or(s, "result", nlohmann::json::object());
  const auto summary = json_value_or(result, "summary", std::vector<std::string>{});
  const auto findings = json_value_or(result, "findings", std::vector<std::vector<std::string>>{});
  md << "\n## compute-sanitizer " << json_value_or(s, "tool", "?") << "\n\n";
  md << "- command: `" << fmt::format("{}", fmt::join(words, " ")) << "`\n";
  md << "- exit status: " << json_value_or(s, "exit_status", -1) << "; "
     << (summary.empty() ? std::string("no summary line in the tool's output")
                         : fmt::format("{}", fmt::join(summary, "; ")))
     << "\n";
  md << "- full output: " << json_value_or(s, "log_file", "?") << "\n";
  // The cases' verdicts above are the run's; this is what `sanitize` exited 1 for.
  if (const std::string found = sanitizer_finding(s); !found.empty()) md << "- verdict: **FAIL**, " << found << "\n";
  if (findings.empty()) {
    md << "- findings: none\n";
  } else {
    md << "- findings (" << json_value_or(result, "findings_seen", std::uint64_t(findings.size()))
       << ", first line of each):\n";
    for (const auto& f : findings) md << "  - " << (f.empty() ? std::string() : f.front()) << "\n";
  }
  return md.str();
}

}  // namespace

std::string render_markdown(const Report& r) {
  std::ostringstream md;
  md << "# vsa-bench report" << (r.label.empty() ? "" : ": " + escape_cell(r.label)) << "\n\n";
  const nlohmann::json tool = r.tool.is_object() ? r.tool : report_tool_json();
  const auto field = [&](const char* key) {
    const auto it = tool.find(key);
    return it != tool.end() && it->is_string() ? escape_cell(it->get<std::string>()) : std::string("?");
  };
  md << "- tool: " << field("name") << " " << field("version") << " (" << field("git_sha") << "), CUDA toolkit "
     << field("cuda_toolkit") << "\n";
  md << "- node: " << escape_cell(json_value_or(r.node, "hostname", "?")) << "\n";
  if (r.device.is_object()) {
    md << "- GPU: " << escape_cell(json_value_or(r.device, "name", "?")) << " (index "
       << json_value_or(r.device, "cuda_ordinal", -1) << ", PCI " << json_value_or(r.device, "pci_bus_id", "?")
       << ")\n";
    md << "- driver " << json_value_or(r.device, "driver_version", "?") << ", VBIOS "
       << json_value_or(r.device, "vbios_version", "?") << ", GSP "
       << json_value_or(r.device, "gsp_firmware_version", "?") << "\n";
  } else {
    md << "- GPU: none ("
       << escape_cell(r.devices_note.is_string() ? r.devices_note.get<std::string>() : "CPU-only run")
       << "): GPU backends were skipped\n";
  }
  for (const auto& p : r.plugins) md << plugin_line(p);
  md << "- started " << r.started_at << ", finished " << r.finished_at << (r.complete ? "" : " (incomplete)") << "\n";
  const auto s = summary_counts(r.cases);
  md << "- cases: " << s["cases"] << " — PASS " << s[verdict_name(kPass)] << ", FAIL " << s[verdict_name(kFail)]
     << ", FAULT " << s[verdict_name(kFault)] << ", HANG " << s[verdict_name(kHang)] << ", SKIP "
     << s[verdict_name(kSkip)] << "; exit code " << r.exit_code << "\n\n";
  md << "| case | backend | verdict | worst rel_max | fwd TFLOPS | bwd TFLOPS | stability | note |\n";
  md << "|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : r.cases) {
    if (c.backends.empty())
      md << "| " << escape_cell(c.name) << " | | " << c.verdict << " | | | | | " << escape_cell(c.message) << " |\n";
    for (const auto& b : c.backends)
      md << "| " << escape_cell(c.name) << " | " << escape_cell(b.backend) << " | " << b.verdict << " | "
         << worst_error(b) << " | " << tflops_of(b, "fwd") << " | " << tflops_of(b, "bwd") << " | " << stability_of(b)
         << " | " << escape_cell(note_of(b)) << " |\n";
  }
  const std::string noisy = timing_rows(r, noise_reason);
  if (!noisy.empty())
    md << "\n## Spread above the target\n\n| case | backend | op | TFLOPS | why |\n|---|---|---|---|---|\n" << noisy;
  const std::string shared = timing_rows(r, shared_gpu_text);
  if (!shared.empty())
    md << "\n## Shared GPU\n\nAnother process held a compute context on this GPU while these were timed: its work "
          "time-slices with ours inside the events, so these figures can be low at any spread.\n\n| case | backend | "
          "op | TFLOPS | passes |\n|---|---|---|---|---|\n"
       << shared;
  if (!r.checks.empty()) {
    const auto k = check_counts(r.checks);
    md << "\n## Node checks\n\n- checks: " << k["checks"] << " — PASS " << k[verdict_name(kPass)] << ", FAIL "
       << k[verdict_name(kFail)] << ", SKIP " << k[verdict_name(kSkip)] << " (docs/qualify.md)\n\n";
    md << "| check | verdict | code | reason |\n|---|---|---|---|\n";
    for (const auto& c : r.checks)
      md << "| " << escape_cell(c.name) << " | " << c.verdict << " | " << c.code << " | " << escape_cell(c.reason)
         << " |\n";
  }
  if (!r.backend_aliases.empty()) {
    md << "\nBackend aliases on this GPU:\n\n";
    for (const auto& a : r.backend_aliases)
      md << "- `" << a.value("alias", "") << "` -> " << escape_cell(a.value("backends", nlohmann::json::array()).dump())
         << ": " << escape_cell(a.value("rule", "")) << "\n";
  }
  if (r.sanitizer.is_object()) md << sanitizer_section(r.sanitizer);
  return md.str();
}

void write_report(const Report& report, const std::string& json_path) {
  spdlog::debug("writing {} ({} cases{})", json_path, report.cases.size(), report.complete ? ", complete" : "");
  // Text is made valid UTF-8 where it enters (util/printable.hpp); replacing here too
  // means one overlooked source costs a U+FFFD, not the report (dump throws otherwise).
  write_file_atomic(json_path, to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  std::string md_path = json_path;
  if (md_path.size() > 5 && md_path.compare(md_path.size() - 5, 5, ".json") == 0) md_path.resize(md_path.size() - 5);
  write_file_atomic(md_path + ".md", render_markdown(report));
}

}  // namespace vsa
