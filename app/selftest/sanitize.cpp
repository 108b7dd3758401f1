#include "selftest/sanitize.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/report.hpp"
#include "util/files.hpp"
#include "util/process.hpp"
#include "model/exit_codes.hpp"
#include "report/report_files.hpp"

namespace vsa {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kToolName = "compute-sanitizer";

bool is_executable_file(const std::string& path) {
  std::error_code ec;
  return !path.empty() && fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

// Runs argv with this process's stdin/stdout/stderr; the exit status, or 128 + signal.
int run_inheriting(const std::vector<std::string>& argv) {
  ChildProcess child(argv, SpawnStreams{});
  const int status = child.wait();
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

std::set<std::string> report_files(const std::string& dir) {
  std::set<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.insert(entry.path().string());
  return files;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string count_text(const SanitizerLog& log) {
  if (!log.summary.empty()) {
    return fmt::format("{}", fmt::join(log.summary, "; "));
  }
  return "no summary line in the tool's output";
}

// The annotation goes into the JSON, and the Markdown beside it is rendered again from that
// JSON, so `render` gives the same section (report/report.cpp, sanitizer_section).
void annotate_report(const std::string& path, const json& sanitizer) {
  json report = read_report_document(path);
  report["sanitizer"] = sanitizer;
  write_file_atomic(path, report.dump(2) + "\n");
  const std::string md_path = path.substr(0, path.size() - 5) + ".md";
  if (fs::exists(md_path)) write_file_atomic(md_path, render_markdown(load_report_file(path).report));
}

}  // namespace

int SanitizeResult::exit_code() const {
  if (log.found_problems() || exit_status == kSanitizerErrorExit) return kExitCheckFailed;
  // The run refused its input (a bad suite, an unknown backend): that is bad input here too.
  if (report_paths.empty()) return exit_status == kExitUsage ? kExitUsage : kExitIncomplete;
  // The tool was killed by a signal (128 + signal, from run_inheriting): what it checked is not
  // known, so the run is incomplete, not clean (fuzz review, 2026-12-07: a tool killed after one
  // finding read exit 0). 255 is compute-sanitizer's own exit for a target that made no CUDA call.
  if (exit_status > 128 && exit_status <= 128 + 64) return std::max(run_exit_code, int(kExitIncomplete));
  return run_exit_code;
}

std::string find_compute_sanitizer(const std::string& explicit_path) {
  if (!explicit_path.empty()) {
    if (is_executable_file(explicit_path)) return explicit_path;
    throw SanitizerNotFound("--compute-sanitizer " + explicit_path + ": not an executable file");
  }
  if (const char* env = std::getenv("VSA_COMPUTE_SANITIZER"); env && *env) {
    if (is_executable_file(env)) return env;
    throw SanitizerNotFound(std::string("$VSA_COMPUTE_SANITIZER=") + env + ": not an executable file");
  }
  std::vector<std::string> searched;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty()) searched.push_back(dir);
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* home = std::getenv(var); home && *home) searched.push_back(std::string(home) + "/bin");
  searched.push_back("/usr/local/cuda/bin");
  std::vector<std::string> unique;
  for (const auto& dir : searched)
    if (std::find(unique.begin(), unique.end(), dir) == unique.end()) unique.push_back(dir);
  searched = std::move(unique);
  for (const auto& dir : searched)
    if (const std::string candidate = dir + "/" + kToolName; is_executable_file(candidate)) return candidate;
  const std::string where = fmt::format("{}", fmt::join(searched, ", "));
  throw SanitizerNotFound(
      "compute-sanitizer not found (it ships with the CUDA toolkit). Looked in: $VSA_COMPUTE_SANITIZER (unset), " +
      where + ". Pass --compute-sanitizer PATH or set VSA_COMPUTE_SANITIZER.");
}

SanitizeResult run_sanitize(const SanitizeOptions& o, const std::string& self) {
  SanitizeResult r;
  r.compute_sanitizer = find_compute_sanitizer(o.compute_sanitizer);
  fs::create_directories(o.out_dir);
  std::string stamp = utc_now_iso8601();
  std::replace(stamp.begin(), stamp.end(), ':', '-');
  r.log_file = (fs::path(o.out_dir) / ("sanitize-" + o.tool + "-" + stamp + ".log")).string();
  r.command = {r.compute_sanitizer,
               "--tool",
               o.tool,
               "--error-exitcode",
               std::to_string(kSanitizerErrorExit),
               "--log-file",
               r.log_file,
               self,
               "run",
               o.suite,
               "--no-isolate",
               "--out",
               o.out_dir,
               "--label",
               "sanitize-" + o.tool,
               "--devices",
               o.devices};
  for (const auto& c : o.cases) {
    r.command.push_back("--case");
    r.command.push_back(c);
  }
  for (const auto& p : o.plugins) {
    r.command.push_back("--plugin");
    r.command.push_back(p);
  }
  if (!o.backends.empty()) {
    const std::string list = fmt::format("{}", fmt::join(o.backends, ","));
    r.command.push_back("--backends");
    r.command.push_back(list);
  }
  if (!o.add_backends.empty()) {
    r.command.push_back("--add-backend");
    r.command.push_back(fmt::format("{}", fmt::join(o.add_backends, ",")));
  }
  const std::set<std::string> before = report_files(o.out_dir);
  r.exit_status = run_inheriting(r.command);
  r.log = parse_sanitizer_log(read_text(r.log_file));
  for (const auto& path : report_files(o.out_dir))
    if (!before.count(path)) r.report_paths.push_back(path);
  for (const auto& path : r.report_paths)
    r.run_exit_code = std::max(r.run_exit_code, read_report_document(path).value("exit_code", int(kExitIncomplete)));
  const json annotation = sanitizer_json(o, r);
  for (const auto& path : r.report_paths) annotate_report(path, annotation);
  return r;
}

json sanitizer_json(const SanitizeOptions& o, const SanitizeResult& r) {
  return {{"tool", o.tool},         {"compute_sanitizer", r.compute_sanitizer},
          {"command", r.command},   {"exit_status", r.exit_status},
          {"log_file", r.log_file}, {"result", to_json(r.log)}};
}

std::string format_sanitize_text(const SanitizeOptions& o, const SanitizeResult& r) {
  std::ostringstream out;
  out << "compute-sanitizer " << o.tool << ": " << count_text(r.log) << " (exit status " << r.exit_status << ")\n";
  for (const auto& f : r.log.findings) {
    out << "  " << f.front() << "\n";
    for (std::size_t i = 1; i < f.size(); ++i) out << "      " << f[i] << "\n";
  }
  if (r.log.findings_seen > r.log.findings.size())
    out << "  ... " << (r.log.findings_seen - r.log.findings.size()) << " more in " << r.log_file << "\n";
  if (r.report_paths.empty()) out << "the sanitized run wrote no report; full tool output: " << r.log_file << "\n";
  for (const auto& p : r.report_paths) out << "findings recorded in " << p << "\n";
  return out.str();
}

}  // namespace vsa
