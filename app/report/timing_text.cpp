#include "report/timing_text.hpp"

#include <cstdio>

namespace vsa {

namespace {

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g%%", 100 * fraction);
  return buf;
}

std::string count(int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

bool noteworthy(const Timing& t) {
  return !t.off_clock_passes.empty() || t.sampling.stop == "budget_exhausted" || t.sampling.stop == "max_passes";
}

}  // namespace

std::string stop_text(const Timing& t) {
  if (t.sampling.stop == "budget_exhausted") return "budget exhausted";
  if (t.sampling.stop == "max_passes") return "max passes";
  if (t.sampling.stop == "converged") return "converged";
  return "";
}

std::string spread_text(const Timing& t) {
  std::string text = t.passes == 1 ? std::string("1 pass") : "±" + percent(t.spread);
  const std::string stop = stop_text(t);
  if (!stop.empty()) text += ", " + count(t.passes, "pass", "passes") + ", " + stop;
  if (!t.off_clock_passes.empty()) text += ", " + std::to_string(t.off_clock_passes.size()) + " off-clock left out";
  return text;
}

std::string timing_note(const CaseResult& c) {
  std::string note;
  for (const auto& b : c.backends)
    for (const auto& t : b.timings) {
      if (!noteworthy(t)) continue;
      std::string what;
      if (t.sampling.stop == "budget_exhausted" || t.sampling.stop == "max_passes")
        what = "±" + percent(t.spread) + " after " + count(t.passes, "pass", "passes") + ", " + stop_text(t);
      if (!t.off_clock_passes.empty())
        what += (what.empty() ? "" : ", ") +
                count(int(t.off_clock_passes.size()), "off-clock pass", "off-clock passes") + " left out";
      note += (note.empty() ? "" : "; ") + b.backend + " " + t.op + ": " + what;
    }
  return note;
}

}  // namespace vsa
