#pragma once
// Suites: JSON files of defaults + cases, sweeps expanded into the cartesian
// product. Every error names the file and the JSON path of the bad field.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/case_spec.hpp"

namespace vsa {

// Thrown for any bad suite or case; what() reads "FILE: $.cases[2].pattern.density: must be in (0, 1], got 1.5".
class SuiteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Limits on what a suite may ask for, checked before anything is expanded or allocated.
inline constexpr std::uint64_t kMaxSuiteBytes = 16ull << 20;  // the built-in suites are < 10 KB
inline constexpr std::size_t kMaxSuiteCases = 10000;          // after sweeps; each case is a report row
inline constexpr double kMaxTimeoutS = 7 * 24 * 3600.0;       // a week: beyond it the int seconds overflow
inline constexpr std::size_t kMaxSuitePlugins = 64;
inline constexpr std::size_t kMaxPluginPathLength = 4096;  // PATH_MAX

struct Suite {
  std::string name;
  std::string description;
  std::string source;     // "builtin:NAME" or the file path
  nlohmann::json origin;  // optional, free-form: where a repro bundle's case came from (node, GPU, report)
  // Plugin libraries the cases need (docs/plugins.md): as written in "plugins"; load_suite
  // makes a relative one relative to the suite file's folder.
  std::vector<std::string> plugins;
  std::vector<CaseSpec> cases;
  // What the reader accepted but the user should hear about (parse_suite also logs each as a
  // warning): a mode's own settings in a case of another mode, which do nothing there.
  std::vector<std::string> warnings;
};

// The blocks of a case that one mode alone reads: the suite reader warns where a case of another
// mode writes one, and repro bundles leave them out of such a case.
struct ModeSettings {
  const char* field;
  Mode mode;
};
inline constexpr std::array<ModeSettings, 2> kModeSettings{{{"timing", Mode::perf}, {"stability", Mode::stability}}};

// A built-in suite name (suites/*.json, embedded) or a path to a JSON file.
[[nodiscard]] Suite load_suite(const std::string& name_or_path);
// The suite's cases named as reports name them: "SUITE/CASE", SUITE being the suite's
// "name" or, without one, the file's stem. `run` and `dump` share it so their names line up.
[[nodiscard]] std::string qualified_case_name(const Suite& suite, const std::string& name_or_path,
                                              const std::string& case_name);
// Parses suite text; `source` is used in error messages.
[[nodiscard]] Suite parse_suite(const std::string& text, const std::string& source);
// One case in its expanded JSON form (worker protocol, repro bundles); strict like suites.
[[nodiscard]] CaseSpec case_from_json(const nlohmann::json& j, const std::string& source, const std::string& path);
[[nodiscard]] std::vector<std::string> builtin_suite_names();
// `run --target-spread / --timing-budget` on one case (perf cases only; others do not time):
// the same ranges as the suite fields, and the budget must still fit the case's timeout_s.
// Throws SuiteError naming the option and the case.
void apply_sampling_overrides(CaseSpec& c, std::optional<double> target_spread, std::optional<double> time_budget_s);

}  // namespace vsa
