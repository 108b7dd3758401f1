#pragma once
// `vsa-bench selftest`: runs every planted fault through the real machinery
// (isolated workers, the report, the linter, the two-stream check) and shows, one
// row per fault, that the check meant to catch it does (docs/design.md, "Finding races
// and faults"). A harness whose checks cannot fail proves nothing; this proves they can.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vsa {

// Row outcomes.
inline constexpr const char* kDetected = "detected";
inline constexpr const char* kMissed = "MISSED";
inline constexpr const char* kNotRun = "SKIP";

struct SelftestRow {
  std::string fault;     // what was planted: "out-of-bounds write"
  std::string planted;   // where: a backend name, or a lint image
  std::string expected;  // the check that must catch it: "FAULT", "HANG", "stability mismatch", ...
  std::string observed;  // what the harness reported (or why the row did not run)
  std::string outcome;   // kDetected, kMissed or kNotRun
};

struct SelftestOptions {
  // The GPU the planted kernels run on: "all" (the first; without one, the GPU rows read SKIP),
  // "none", or an ordinal, which must then be usable (else the selftest is refused, as `run`).
  std::string devices = "all";
  std::string out_dir;             // keep the planted-fault report here; empty: a temporary directory
  double hang_timeout_s = 10;      // the HANG rows wait this long
  int race_runs = 30;              // stability runs of the overlap-race rows
  std::uint32_t probe_ns = 20000;  // delay of probe selftest.overlap
  int stream_rounds = 3;           // concurrent two-stream rounds
  std::string cuobjdump;           // for the lint rows; empty: search
  bool progress = true;            // per-case lines on stderr
  std::vector<std::string> argv;
};

struct SelftestResult {
  std::vector<SelftestRow> rows;
  std::string report_path;  // the planted-fault run's report (removed with a temporary directory)
  // Why nothing ran: a GPU named by --devices that CUDA cannot use (exit 4, as `run --devices N`).
  std::string refusal;
  // 4 when refused; else 0 when every row that ran reads "detected" (SKIP rows do not count), else 1.
  [[nodiscard]] int exit_code() const;
};

[[nodiscard]] SelftestResult run_selftest(const SelftestOptions& options);

[[nodiscard]] std::string format_selftest_table(const SelftestResult& result);
[[nodiscard]] nlohmann::json to_json(const SelftestResult& result);

}  // namespace vsa
