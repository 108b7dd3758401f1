#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "model/exit_codes.hpp"
#include "report/exports.hpp"
#include "report/reason_codes.hpp"
#include "util/json_lookup.hpp"
#include "util/printable.hpp"

namespace vsa {
namespace {

// XML 1.0 allows no C0 controls but tab/newline: printable() turns them into \xNN first.
std::string xml(const std::string& text) {
  std::string out;
  for (char c : printable(text)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void testcase(std::ostringstream& x, const std::string& suite, const std::string& name, Verdict verdict,
              const std::string& code, const std::string& reason, double seconds) {
  // Seconds in fixed point: the common JUnit XSDs (Surefire's, Jenkins') type `time` as a decimal,
  // which an exponent ("2.8e-05") is not.
  x << "    <testcase classname=\"" << xml(suite) << "\" name=\"" << xml(name) << "\" time=\""
    << fmt::format("{:.3f}", std::max(0.0, seconds)) << "\">\n";
  const std::string text = code + ": " + reason;
  if (verdict == kSkip) x << "      <skipped message=\"" << xml(text) << "\"/>\n";
  if (verdict == kFail) x << "      <failure type=\"" << code << "\" message=\"" << xml(text) << "\"/>\n";
  if (verdict == kFault || verdict == kHang)
    x << "      <error type=\"" << code << "\" message=\"" << xml(verdict_name(verdict) + " " + text) << "\"/>\n";
  x << "    </testcase>\n";
}

}  // namespace

std::string render_junit(const std::vector<Report>& reports) {
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"vsa-bench\">\n";
  for (const auto& r : reports) {
    const std::string host = json_value_or(r.node, "hostname", "host");
    const std::string suite = host + "/" + gpu_id_of(r);
    int tests = 0, failures = 0, errors = 0, skipped = 0;
    std::ostringstream body;
    for (const auto& c : r.cases) {
      if (c.backends.empty()) {
        ++tests;
        failures += c.verdict == kFail;
        errors += c.verdict == kFault || c.verdict == kHang;
        skipped += c.verdict == kSkip;
        testcase(body, suite, c.name, c.verdict, reason_code(c), c.message, c.seconds);
      }
      for (const auto& b : c.backends) {
        ++tests;
        failures += b.verdict == kFail;
        errors += b.verdict == kFault || b.verdict == kHang;
        skipped += b.verdict == kSkip;
        const double share = c.backends.empty() ? 0 : c.seconds / double(c.backends.size());
        testcase(body, suite, c.name + " [" + b.backend + "]", b.verdict, reason_code(b), b.reason, share);
      }
    }
    for (const auto& k : r.checks) {  // node checks (docs/qualify.md): classname "check"
      ++tests;
      failures += k.verdict == kFail;
      skipped += k.verdict == kSkip;
      testcase(body, suite, "check " + k.name, k.verdict, k.code, k.reason, 0);
    }
    if (r.cases.empty() && r.exit_code != kExitOk) {  // a refused run: one error case that says why
      ++tests;
      ++errors;
      testcase(body, suite, "run", kFault, run_reason_code(r),
               r.devices_note.is_string() ? r.devices_note.get<std::string>() : "not run", 0);
    }
    x << "  <testsuite name=\"" << xml(suite) << "\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\" timestamp=\"" << xml(r.started_at) << "\">\n"
      << body.str() << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  return x.str();
}

}  // namespace vsa
