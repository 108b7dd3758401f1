#pragma once
// Reports as an NVBench JSON file (docs/report-schema.md, "NVBench export"), so that
// `nvbench_compare` and the other readers of NVBench's output read vsa-bench runs.
//
// NVBench's JSON (its json_printer, file version 1.0.0) holds "meta" (argv, versions),
// "devices" (one object per GPU, keyed by "id") and "benchmarks": each a name, its "axes"
// (name, type, flags, values) and its "states", one per combination of axis values and
// device, each with "axis_values" and "summaries" ({"tag", "name", "hint", "description",
// "hide", "data": [{"name": "value", "type", "value"}]}, numbers written as strings).
//
// The mapping (the facts behind each choice are in docs/report-schema.md):
// - benchmark: a case's name less its sweep part ("perf/topk" for "perf/topk/S=4096,density=0.25");
// - axes: B, H, S, D, density from the case's spec, any other swept key, then backend and op;
//   cases whose axes do not line up (or would give two states one name) become a benchmark each,
//   under their full name;
// - a state per case, backend, op and GPU: the sample of NVBench's "nv/cold/time/gpu/*"
//   summaries is the kept pass medians (seconds), each the median of `iterations` timed
//   iterations; what NVBench has no name for is under "vsa/..." tags (the spread of the
//   median, TFLOPS, passes, how sampling ended, the noise reason);
// - a backend without a timing for an op is a skipped state with the verdict and reason.
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report.hpp"

namespace vsa {

// The NVBench JSON file version this writes ("meta.version.json"), as NVBench's readers expect.
inline constexpr int kNvbenchJsonVersion[3] = {1, 0, 0};

// Reports that cannot share one NVBench file (two of them on the same CUDA ordinal: NVBench
// keys devices by that id). The message names both.
class NvbenchExportError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// `tool`: the report's "tool" object (report_tool_json() for this binary), written as
// meta.producer. Cases without a timing and not in perf mode (checks, stability) are left out.
[[nodiscard]] nlohmann::ordered_json to_nvbench_json(const std::vector<Report>& reports, const nlohmann::json& tool);
[[nodiscard]] std::string render_nvbench(const std::vector<Report>& reports, const nlohmann::json& tool);

// The benchmark a case belongs to: its name less a last "/"-segment of comma-separated
// key=value pairs (how suite sweeps name cases, suite/suite.cpp); the full name otherwise.
[[nodiscard]] std::string nvbench_benchmark_name(const std::string& case_name);

}  // namespace vsa
