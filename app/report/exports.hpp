#pragma once
// What operators' CI and monitoring read, from the finished reports of one run:
// JUnit XML (one testcase per case and backend), a Prometheus textfile for
// node-exporter's textfile collector, and JSON Lines (one row per measurement).
// Each carries the stable reason code (report/reason_codes.hpp) next to the text.
#include <string>
#include <vector>

#include "report/report.hpp"

namespace vsa {

[[nodiscard]] std::string render_junit(const std::vector<Report>& reports);
// `now_unix_s`: the vsa_last_run_timestamp_seconds value (the run's end).
[[nodiscard]] std::string render_prometheus(const std::vector<Report>& reports, double now_unix_s);
[[nodiscard]] std::string render_jsonl(const std::vector<Report>& reports);

// The GPU a report ran on, as the outputs name it: its UUID, or "cpu" for a CPU-only run.
[[nodiscard]] std::string gpu_id_of(const Report& report);

}  // namespace vsa
