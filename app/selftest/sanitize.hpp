#pragma once
// `vsa-bench sanitize`: runs a suite (or some of its cases) in-process under
// compute-sanitizer and records the tool's findings in the reports that run wrote
// (a "sanitizer" object next to the cases; a section appended to the Markdown).
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/sanitizer_finding.hpp"  // kSanitizerErrorExit
#include "selftest/sanitizer_log.hpp"

namespace vsa {

// No compute-sanitizer anywhere we looked (exit 2); what() lists the places.
class SanitizerNotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SanitizeOptions {
  std::string tool = "memcheck";          // memcheck | racecheck | synccheck | initcheck
  std::string suite = "sanitize";         // built-in name or JSON file (suites/sanitize.json: small cases)
  std::vector<std::string> cases;         // --case filters, passed to `run`
  std::vector<std::string> backends;      // --backends, passed to `run`
  std::vector<std::string> add_backends;  // --add-backend, passed to `run`
  std::vector<std::string> plugins;       // --plugin, passed to `run`
  std::string devices = "all";
  std::string out_dir = "results/sanitize";
  std::string compute_sanitizer;  // explicit path; empty: search
};

struct SanitizeResult {
  std::string compute_sanitizer;     // the executable used
  std::vector<std::string> command;  // as run
  int exit_status = -1;              // compute-sanitizer's; kSanitizerErrorExit when it found errors
  std::string log_file;              // the tool's full output
  SanitizerLog log;
  std::vector<std::string> report_paths;  // reports written by the sanitized run, now annotated
  int run_exit_code = -1;                 // the worst exit_code recorded in those reports
  // 1 when the tool reported errors or hazards; else 4 when the run wrote no report (it crashed
  // under the tool) or the tool was killed by a signal; else the run's own exit code.
  [[nodiscard]] int exit_code() const;
};

// Search order: explicit path, $VSA_COMPUTE_SANITIZER, PATH, $CUDA_HOME/bin,
// /usr/local/cuda/bin. Throws SanitizerNotFound naming every place looked at.
[[nodiscard]] std::string find_compute_sanitizer(const std::string& explicit_path);

[[nodiscard]] SanitizeResult run_sanitize(const SanitizeOptions& options, const std::string& self_executable);

// The object stored in each report under "sanitizer".
[[nodiscard]] nlohmann::json sanitizer_json(const SanitizeOptions& options, const SanitizeResult& result);
[[nodiscard]] std::string format_sanitize_text(const SanitizeOptions& options, const SanitizeResult& result);

}  // namespace vsa
