#include "selftest/selftest.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "engine/devices.hpp"
#include "selftest/cases.hpp"
#include "selftest/lint_rows.hpp"
#include "selftest/stream_safety.hpp"
#include "suite/suite.hpp"
#include "run/gpu_expectation.hpp"
#include "run/output_paths.hpp"
#include "run/suite_runner.hpp"
#include "report/report.hpp"
#include "vsa/registry.hpp"
#include "util/files.hpp"
#include "model/exit_codes.hpp"
#include "report/report_files.hpp"

namespace vsa {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A scratch directory for the suite file and (unless --out) the report.
class WorkDir {
 public:
  explicit WorkDir(const std::string& keep) {
    if (!keep.empty()) {
      fs::create_directories(keep);
      m_path = keep;
      return;
    }
    std::string pattern = (fs::temp_directory_path() / "vsa-selftest-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory for the selftest");
    m_path = pattern;
    m_remove = true;
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  ~WorkDir() {
    std::error_code ignored;
    if (m_remove) fs::remove_all(m_path, ignored);
  }
  [[nodiscard]] const std::string& path() const { return m_path; }
  [[nodiscard]] bool temporary() const { return m_remove; }

 private:
  std::string m_path;
  bool m_remove = false;
};

// The device the in-process two-stream check uses: the first one --devices names.
std::optional<DeviceInfo> pick_device(const std::string& devices, std::string& why_not) {
  if (devices == "none") {
    why_not = "--devices none";
    return std::nullopt;
  }
  const DeviceQuery q = query_devices();
  if (q.devices.empty()) {
    why_not = q.note.empty() ? "no CUDA device" : q.note;
    return std::nullopt;
  }
  if (devices == "all") return q.devices.front();
  const int ordinal = std::atoi(devices.substr(0, devices.find(',')).c_str());
  for (const auto& d : q.devices)
    if (d.ordinal == ordinal) return d;
  why_not = "no CUDA device " + std::to_string(ordinal);
  return std::nullopt;
}

std::string stream_text(const StreamSafetyResult& r) {
  char dev[32];
  std::snprintf(dev, sizeof dev, "%.3g", r.worst_rel_dev);
  return std::to_string(r.mismatched_rounds) + "/" + std::to_string(r.rounds) + " rounds differ" +
         (r.mismatched_rounds > 0
              ? " (up to " + std::to_string(r.max_mismatched_elems) + " elements, rel dev " + dev + ")"
              : "");
}

// The planted stream cache must mismatch when its two calls overlap; cuda-ref, run
// through the same check, must not (otherwise the check itself is not trustworthy).
SelftestRow stream_row(const SelftestOptions& o) {
  SelftestRow row{"stream-unsafe cache, two streams", "selftest-stream-cache", "two-stream mismatch", "", kMissed};
  const Registry registry = make_registry();
  Backend* planted = registry.find("selftest-stream-cache");
  Backend* control = registry.find("cuda-ref");
  if (!planted || !control) {
    row.outcome = kNotRun;
    row.observed = "not compiled into this build";
    return row;
  }
  std::string why_not;
  const auto device = pick_device(o.devices, why_not);
  if (!device) {
    row.outcome = kNotRun;
    row.observed = why_not;
    return row;
  }
  try {
    const CaseSpec spec = case_from_json(stream_case(), "selftest", "$.stream");
    if (const Support s = planted->supports(
            *device, make_block_map(spec.shape, spec.pattern, spec.vbs, spec.seed).shape, Op::forward);
        !s.ok) {
      row.outcome = kNotRun;
      row.observed = s.reason;
      return row;
    }
    const StreamSafetyResult got = check_stream_safety(spec, *planted, *device, o.stream_rounds);
    const StreamSafetyResult clean = check_stream_safety(spec, *control, *device, o.stream_rounds);
    row.observed = stream_text(got) + "; cuda-ref through the same check: " + stream_text(clean);
    if (got.mismatched_rounds > 0 && clean.mismatched_rounds == 0) row.outcome = kDetected;
  } catch (const std::exception& e) {
    row.observed = std::string("error: ") + e.what();
  }
  return row;
}

}  // namespace

int SelftestResult::exit_code() const {
  if (!refusal.empty()) return kExitIncomplete;
  for (const auto& r : rows)
    if (r.outcome == kMissed) return kExitCheckFailed;
  return kExitOk;
}

SelftestResult run_selftest(const SelftestOptions& o) {
  if (!o.out_dir.empty()) check_output_dir("--out", o.out_dir);
  if (const std::string e = devices_flag_error(o.devices, /*list=*/false); !e.empty())
    throw SuiteError("--devices " + o.devices + ": " + e);
  // A GPU named by its ordinal is a request, as in `run --devices N`: if CUDA cannot use it, the
  // selftest says so and exits 4 rather than pass on SKIP rows (run/gpu_expectation.hpp).
  const bool named_gpu = o.devices != "all" && o.devices != "none";
  if (named_gpu) {
    std::string why_not;
    if (!pick_device(o.devices, why_not)) {
      SelftestResult refused;
      refused.refusal = "--devices " + o.devices + " asked for a GPU, but " + why_not;
      return refused;
    }
  }
  const WorkDir work(o.out_dir);
  const std::vector<PlantedCase> cases = planted_cases(o);
  const std::string suite_path = (fs::path(work.path()) / "planted-faults.suite.json").string();
  write_file_atomic(suite_path, planted_suite(cases).dump(2) + "\n");

  RunOptions run;
  run.suites = {suite_path};
  run.out_dir = work.path();
  run.label = "selftest";
  // One GPU: `all` would run the planted cases on every GPU of the node, and the rows read one.
  // Judged as `run --devices all`: a host without GPUs reads SKIP rows with the reason, a node
  // whose GPUs (PCI, NVML) CUDA cannot use is refused (exit 4).
  run.devices = o.devices == "all" ? "0" : o.devices;
  run.fail_closed_devices = o.devices == "all" ? "all" : "";
  run.progress = o.progress;
  run.argv = o.argv;
  const RunSummary summary = run_suites(run);

  std::map<std::string, CaseResult> by_name;
  std::string report_path = summary.report_paths.empty() ? "" : summary.report_paths.front();
  if (!report_path.empty()) {
    Report report = load_report_file(report_path).report;
    if (summary.exit_code == kExitIncomplete && report.cases.empty() && report.devices_note.is_string()) {
      SelftestResult refused;  // fail closed (run/gpu_expectation.hpp): nothing ran
      refused.refusal = report.devices_note.get<std::string>();
      refused.report_path = work.temporary() ? "" : report_path;
      return refused;
    }
    for (auto& c : report.cases) by_name.emplace(c.name, std::move(c));
  }
  auto result_of = [&](const json& spec) -> const CaseResult* {
    if (spec.is_null()) return nullptr;
    const auto it = by_name.find(std::string(kSelftestSuiteName) + "/" + spec.at("name").get<std::string>());
    return it == by_name.end() ? nullptr : &it->second;
  };

  SelftestResult result;
  result.report_path = work.temporary() ? "" : report_path;
  for (const auto& c : cases) {
    result.rows.push_back(judge_planted_case(c, result_of(c.spec), result_of(c.control)));
    if (c.backend == "selftest-unwritten") {
      // The checks that are not suite cases sit with the other GPU-side faults.
      for (auto& row : lint_selftest_rows(o.cuobjdump)) result.rows.push_back(std::move(row));
      result.rows.push_back(stream_row(o));
    }
  }
  return result;
}

std::string format_selftest_table(const SelftestResult& r) {
  std::ostringstream out;
  if (!r.refusal.empty()) {
    out << "not run: " << r.refusal << "\n";
    return out.str();
  }
  char line[512];
  std::snprintf(line, sizeof line, "%-9s %-33s %-32s %-26s %s\n", "outcome", "planted fault", "where", "caught by",
                "observed");
  out << line;
  int detected = 0, missed = 0, skipped = 0;
  for (const auto& row : r.rows) {
    std::snprintf(line, sizeof line, "%-9s %-33s %-32s %-26s %s\n", row.outcome.c_str(), row.fault.c_str(),
                  row.planted.c_str(), row.expected.c_str(), row.observed.c_str());
    out << line;
    detected += row.outcome == kDetected;
    missed += row.outcome == kMissed;
    skipped += row.outcome == kNotRun;
  }
  out << detected << " detected, " << missed << " missed, " << skipped << " skipped (SKIP: not runnable here)";
  if (!r.report_path.empty()) out << "; report: " << r.report_path;
  out << "\n";
  return out.str();
}

json to_json(const SelftestResult& r) {
  json rows = json::array();
  for (const auto& row : r.rows)
    rows.push_back({{"fault", row.fault},
                    {"planted", row.planted},
                    {"expected", row.expected},
                    {"observed", row.observed},
                    {"outcome", row.outcome}});
  return {{"rows", rows},
          {"report", r.report_path.empty() ? json() : json(r.report_path)},
          {"refusal", r.refusal.empty() ? json() : json(r.refusal)},
          {"exit_code", r.exit_code()}};
}

}  // namespace vsa
