#pragma once
// Reports built in memory for the compare and fleet tests: a GPU with a given
// configuration, then cases with verdicts, errors and timings. No GPU, no files.
#include <nlohmann/json.hpp>
#include <string>

#include "report/report_files.hpp"

namespace vsa::testing {

struct SyntheticGpu {
  std::string host = "node1";
  std::string label;
  int index = 0;
  std::string name = "NVIDIA H200";
  std::string driver = "580.159.04";
  std::string gsp = "580.159.04";
  std::string vbios = "96.00.A5.00.1A";
  std::string inforom = "G520.0200.00.05";
  std::string toolkit = "13.0.88";
  std::string git_sha = "abc123";
};

inline ReportFile synthetic_report(const SyntheticGpu& gpu) {
  ReportFile file;
  file.path = gpu.host + "-gpu" + std::to_string(gpu.index) + ".json";
  Report& r = file.report;
  r.label = gpu.label;
  r.complete = true;
  r.finished_at = "2026-11-29T12:00:00Z";
  r.node = {{"hostname", gpu.host}, {"label", gpu.label.empty() ? nlohmann::json() : nlohmann::json(gpu.label)}};
  r.device = {{"name", gpu.name},
              {"cuda_ordinal", gpu.index},
              {"uuid", "GPU-" + gpu.host + "-" + std::to_string(gpu.index)},
              {"pci_bus_id", "00000000:1" + std::to_string(gpu.index) + ":00.0"},
              {"serial", nullptr},
              {"driver_version", gpu.driver},
              {"gsp_firmware_version", gpu.gsp},
              {"vbios_version", gpu.vbios},
              {"inforom_image_version", gpu.inforom},
              {"cuda_driver_version", 13000},
              {"cuda_runtime_version", 13000},
              {"cc_major", 9},
              {"cc_minor", 0},
              {"sm_count", 132}};
  r.backends = nlohmann::json::array(
      {{{"name", "cuda-ref"}, {"images", {"sm_80", "sm_90"}}}, {{"name", "sm90a"}, {"images", {"sm_90a"}}}});
  file.tool = {
      {"version", "0.1.0"}, {"git_sha", gpu.git_sha}, {"cuda_toolkit", gpu.toolkit}, {"build_type", "Release"}};
  return file;
}

inline CaseResult& case_named(Report& r, const std::string& name, const std::string& reference = "cuda-ref") {
  for (auto& c : r.cases)
    if (c.name == name) return c;
  CaseResult c;
  c.name = name;
  c.reference = reference;
  c.spec = {{"name", name}, {"S", 16384}, {"mode", "perf"}};
  r.cases.push_back(c);
  return r.cases.back();
}

inline BackendResult& backend_named(CaseResult& c, const std::string& backend) {
  for (auto& b : c.backends)
    if (b.backend == backend) return b;
  BackendResult b;
  b.backend = backend;
  c.backends.push_back(b);
  return c.backends.back();
}

// A checked backend: its verdict and one output tensor's rel_max.
inline void add_check(Report& r, const std::string& case_name, const std::string& backend, Verdict verdict,
                      double rel_max = 1e-3, const std::string& tensor = "dq") {
  CaseResult& c = case_named(r, case_name);
  BackendResult& b = backend_named(c, backend);
  b.verdict = verdict;
  if (verdict != kPass) b.reason = "synthetic " + verdict_name(verdict);
  TensorMetrics m;
  m.tensor = tensor;
  m.rel_max = rel_max;
  m.pass = verdict == kPass;
  b.metrics.push_back(m);
  aggregate_verdict(c);
}

// A timed backend: TFLOPS and relative spread for one op. Two pass medians either side of the
// median, the spread apart: the figures follow from them, as a report reader requires
// (report/timing_figures.hpp).
inline void add_timing(Report& r, const std::string& case_name, const std::string& backend, const std::string& op,
                       double tflops, double spread = 0.01) {
  CaseResult& c = case_named(r, case_name);
  BackendResult& b = backend_named(c, backend);
  b.verdict = kPass;
  Timing t;
  t.op = op;
  t.tflops = tflops;
  t.median_ms = 1000.0 / tflops;
  t.spread = spread;
  t.passes = 2;
  t.pass_medians_ms = {t.median_ms * (1 - spread / 2), t.median_ms * (1 + spread / 2)};
  (op == "bwd" ? c.flops_bwd : c.flops_fwd) = 1e12;  // tflops = flops / median_ms / 1e9
  b.timings.push_back(t);
  aggregate_verdict(c);
}

// A GPU report with one sustained case (qualify/fast/sustained-16k, sm90a fwd) whose
// timing has these per-pass clock records (health.throttle's input).
inline Report sustained_report(const nlohmann::json& pass_clocks) {
  Report r;
  r.device = {{"name", "Fake GPU"}};
  CaseResult c;
  c.name = "qualify/fast/sustained-16k";
  c.spec = {{"timing", {{"min_pass_ms", 5000}}}};
  BackendResult b;
  b.backend = "sm90a";
  b.verdict = kPass;
  Timing t;
  t.op = "fwd";
  t.tflops = 475;
  t.clocks = pass_clocks;
  b.timings.push_back(t);
  c.backends.push_back(b);
  r.cases.push_back(c);
  return r;
}

}  // namespace vsa::testing
