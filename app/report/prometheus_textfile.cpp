#include <cmath>
#include <map>
#include <sstream>

#include "model/exit_codes.hpp"
#include "report/exports.hpp"
#include "report/reason_codes.hpp"
#include "util/json_lookup.hpp"

namespace vsa {
namespace {

// Label values: backslash, double quote and newline escaped (Prometheus text format).
std::string label(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

// The lowest SM clock seen in a timing's passes (during-pass samples, else after), or NaN.
double min_sm_clock(const Timing& t) {
  double low = NAN;
  if (!t.clocks.is_array()) return low;
  for (const auto& pass : t.clocks) {
    double v = NAN;
    if (pass.contains("during") && pass["during"].contains("sm_clock_mhz") &&
        pass["during"]["sm_clock_mhz"].is_object())
      v = json_value_or(pass["during"]["sm_clock_mhz"], "min", double(NAN));
    else if (pass.contains("after") && pass["after"].is_object())
      v = json_value_or(pass["after"], "sm_clock_mhz", double(NAN));
    if (!std::isnan(v) && (std::isnan(low) || v < low)) low = v;
  }
  return low;
}

}  // namespace

std::string render_prometheus(const std::vector<Report>& reports, double now_unix_s) {
  std::ostringstream verdicts, tflops, clocks, stamps, checks;
  checks << "# HELP vsa_check 1 for the verdict a node check ended with (speed floor, clock hold, health gates).\n"
         << "# TYPE vsa_check gauge\n";
  verdicts << "# HELP vsa_verdict 1 for the verdict a case and backend ended with (one series per verdict).\n"
           << "# TYPE vsa_verdict gauge\n";
  tflops << "# HELP vsa_tflops TFLOPS of a timed case, backend and op (median of pass medians).\n"
         << "# TYPE vsa_tflops gauge\n";
  clocks << "# HELP vsa_sm_clock_min_mhz Lowest SM clock sampled during a timed case's passes.\n"
         << "# TYPE vsa_sm_clock_min_mhz gauge\n";
  stamps << "# HELP vsa_last_run_timestamp_seconds When vsa-bench last finished a run on this GPU.\n"
         << "# TYPE vsa_last_run_timestamp_seconds gauge\n";
  for (const auto& r : reports) {
    const std::string host = json_value_or(r.node, "hostname", "host");
    const std::string gpu = "host=\"" + label(host) + "\",gpu_uuid=\"" + label(gpu_id_of(r)) + "\"";
    stamps << "vsa_last_run_timestamp_seconds{" << gpu << "} " << std::fixed << now_unix_s << std::defaultfloat << "\n";
    if (r.cases.empty() && r.exit_code != kExitOk)
      verdicts << "vsa_verdict{" << gpu << ",case=\"run\",backend=\"\",verdict=\"FAULT\",code=\"" << run_reason_code(r)
               << "\"} 1\n";
    for (const auto& c : r.cases) {
      if (c.backends.empty())  // a case-level result (the case could not be set up or answered)
        verdicts << "vsa_verdict{" << gpu << ",case=\"" << label(c.name) << "\",backend=\"\",verdict=\"" << c.verdict
                 << "\",code=\"" << reason_code(c) << "\"} 1\n";
      for (const auto& b : c.backends) {
        const std::string id = gpu + ",case=\"" + label(c.name) + "\",backend=\"" + label(b.backend) + "\"";
        verdicts << "vsa_verdict{" << id << ",verdict=\"" << b.verdict << "\",code=\"" << reason_code(b) << "\"} 1\n";
        for (const auto& t : b.timings) {
          tflops << "vsa_tflops{" << id << ",op=\"" << label(t.op) << "\"} " << t.tflops << "\n";
          const double mhz = min_sm_clock(t);
          if (!std::isnan(mhz))
            clocks << "vsa_sm_clock_min_mhz{" << id << ",op=\"" << label(t.op) << "\"} " << mhz << "\n";
        }
      }
    }
    for (const auto& k : r.checks)
      checks << "vsa_check{" << gpu << ",check=\"" << label(k.name) << "\",kind=\"" << label(k.kind) << "\",case=\""
             << label(k.case_name) << "\",backend=\"" << label(k.backend) << "\",op=\"" << label(k.op)
             << "\",verdict=\"" << k.verdict << "\",code=\"" << label(k.code) << "\"} 1\n";
  }
  return verdicts.str() + tflops.str() + clocks.str() + checks.str() + stamps.str();
}

}  // namespace vsa
