#include "qualify/throttle_gate.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "qualify/check_codes.hpp"
#include "telemetry/nvml_api.hpp"
#include "util/strings.hpp"

namespace vsa {
namespace {

using nlohmann::json;

// DCGM's failure mask for clocks-event reasons (dcgmi diag --clocksevent-mask), in NVML bits.
struct Maskable {
  const char* name;
  std::uint64_t bit;
};
constexpr Maskable kMaskable[] = {
    {"hw_slowdown", nvml_api::nvmlClocksEventReasonHwSlowdown},
    {"sw_thermal", nvml_api::nvmlClocksEventReasonSwThermalSlowdown},
    {"hw_thermal", nvml_api::nvmlClocksEventReasonHwThermalSlowdown},
    {"hw_power_brake", nvml_api::nvmlClocksEventReasonHwPowerBrakeSlowdown},
};

std::string lower(std::string s) {
  for (auto& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string known_names() {
  std::string list;
  for (const auto& m : kMaskable) list += (list.empty() ? "" : ", ") + fmt::format("{} ({})", m.name, m.bit);
  return list;
}

// An integer item: NVML's bit values (dcgmi diag --clocksevent-mask style), alone or summed.
bool add_mask(std::string_view item, std::set<std::string>& out) {
  std::uint64_t mask = 0;
  const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), mask);
  if (ec != std::errc() || end != item.data() + item.size()) return false;
  std::uint64_t rest = mask;
  for (const auto& m : kMaskable)
    if (mask & m.bit) {
      out.insert(m.name);
      rest &= ~m.bit;
    }
  if (rest != 0)
    throw std::invalid_argument(fmt::format("bit mask {} has bits ({:#x}) that are not a failing reason; known: {}",
                                            mask, rest, known_names()));
  return true;
}

std::set<std::string> ignored_reasons(const std::string& text) {
  std::set<std::string> out;
  const std::string all(trim(text));
  if (all.empty() || lower(all) == "none") return out;
  if (all.back() == ',') throw std::invalid_argument("\"" + all + "\" ends with a comma; known: " + known_names());
  std::stringstream ss(all);
  for (std::string item; std::getline(ss, item, ',');) {
    if (add_mask(trim(item), out)) continue;
    const std::string name = lower(std::string(trim(item)));
    const bool known =
        std::any_of(std::begin(kMaskable), std::end(kMaskable), [&](const Maskable& m) { return name == m.name; });
    if (!known)
      throw std::invalid_argument("\"" + std::string(trim(item)) + "\" is not a reason the gate fails on; known: " +
                                  known_names() + " (a name, its value, or a sum of values)");
    out.insert(name);
  }
  return out;
}

bool sustained(const json& spec) {
  const auto t = spec.find("timing");
  return t != spec.end() && t->is_object() && t->value("min_pass_ms", 0.0) > 0;
}

std::optional<double> number_at(const json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  const auto v = object.find(key);
  if (v == object.end() || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

// The max of a sample field over a pass: its during summary's max, its before and after samples.
void raise_max(std::optional<double>& max, const json& pass, const char* field) {
  auto take = [&](std::optional<double> v) {
    if (v && (!max || *v > *max)) max = v;
  };
  if (pass.contains("during") && pass["during"].is_object()) {
    const auto stat = pass["during"].find(field);
    if (stat != pass["during"].end()) take(number_at(*stat, "max"));
  }
  for (const char* edge : {"before", "after"})
    if (pass.contains(edge)) take(number_at(pass[edge], field));
}

// What the sustained passes show.
struct Evidence {
  int passes = 0, sampled = 0;
  std::set<std::string> seen;
  std::map<std::string, std::string> first_where;  // reason -> "case backend op"
  std::map<std::string, int> samples_with;         // reason -> during-pass samples that had it
  int samples = 0;                                 // during-pass samples with a reason mask
  double counted_seconds = 0, violation_ns = 0;    // passes with the counter on both edges and a wall time
  int counted_passes = 0;
  std::optional<double> gpu_max_c, memory_max_c;
};

void add_pass(Evidence& e, const json& pass, const std::string& where) {
  ++e.passes;
  if (!pass.is_object()) return;
  raise_max(e.gpu_max_c, pass, "temperature_c");
  raise_max(e.memory_max_c, pass, "memory_temperature_c");
  const auto before = number_at(pass.value("before", json()), "thermal_violation_ns");
  const auto after = number_at(pass.value("after", json()), "thermal_violation_ns");
  const auto seconds = number_at(pass, "seconds");
  if (before && after && seconds && *after >= *before && *seconds > 0) {
    e.violation_ns += *after - *before;
    e.counted_seconds += *seconds;
    ++e.counted_passes;
  }
  if (!pass.contains("during") || !pass["during"].is_object()) return;
  const json& during = pass["during"];
  const auto& reasons = during.value("reasons", json());
  if (!reasons.is_array()) return;
  ++e.sampled;
  for (const auto& name : reasons)
    if (name.is_string()) {
      e.seen.insert(name.get<std::string>());
      e.first_where.emplace(name.get<std::string>(), where);
    }
  const auto counts = during.find("reason_samples");
  const auto total = number_at(during, "reason_sampled");
  if (counts != during.end() && counts->is_object() && total) {
    e.samples += int(*total);
    for (const auto& item : counts->items())
      if (item.value().is_number_integer()) e.samples_with[item.key()] += item.value().get<int>();
  }
}

Evidence gather(const Report& report) {
  Evidence e;
  for (const auto& c : report.cases) {
    if (!sustained(c.spec)) continue;
    for (const auto& b : c.backends)
      for (const auto& t : b.timings)
        if (t.clocks.is_array())
          for (const auto& pass : t.clocks) add_pass(e, pass, c.name + " " + b.backend + " " + t.op);
  }
  return e;
}

// How long sw_thermal (or thermal policy) held the clock, as a share of the sustained time.
struct Share {
  std::optional<double> fraction;
  std::string source;  // "NVML thermal violation time" | "share of during-pass samples"
};

Share thermal_share(const Evidence& e) {
  if (e.counted_passes > 0 && e.counted_seconds > 0)
    return {std::min(1.0, e.violation_ns / 1e9 / e.counted_seconds), "NVML thermal violation time"};
  if (e.samples > 0) {
    const auto it = e.samples_with.find("sw_thermal");
    return {double(it == e.samples_with.end() ? 0 : it->second) / e.samples, "share of during-pass samples"};
  }
  return {};
}

json fact(const NvmlAnswer<unsigned>& a) { return a.value ? json(*a.value) : json(); }

// "GPU up to 86 °C (max operating 87, slowdown 92, shutdown 95), memory up to 94 °C (max operating 95)"
std::string temperatures(const Evidence& e, const HealthSnapshot& s) {
  auto limit = [](const char* what, const NvmlAnswer<unsigned>& a) {
    return a.value ? fmt::format("{} {}", what, *a.value) : std::string();
  };
  auto joined = [](std::vector<std::string> parts) {
    parts.erase(std::remove(parts.begin(), parts.end(), std::string()), parts.end());
    return parts.empty() ? std::string() : " (" + fmt::format("{}", fmt::join(parts, ", ")) + " °C)";
  };
  std::string gpu = e.gpu_max_c ? fmt::format("GPU up to {:.0f} °C", *e.gpu_max_c) : "GPU temperature not sampled";
  gpu += joined({limit("max operating", s.temperature_gpu_max_c), limit("slowdown", s.temperature_slowdown_c),
                 limit("shutdown", s.temperature_shutdown_c)});
  std::string memory = e.memory_max_c ? fmt::format("memory up to {:.0f} °C", *e.memory_max_c)
                                      : std::string("memory temperature not sampled");
  memory += joined({limit("max operating", s.temperature_memory_max_c)});
  return gpu + ", " + memory;
}

// Which sensor reached its NVML limit: what an operator looks at first.
std::string hot_part(const Evidence& e, const HealthSnapshot& s) {
  std::vector<std::string> hot;
  if (e.gpu_max_c && s.temperature_gpu_max_c.value && *e.gpu_max_c >= *s.temperature_gpu_max_c.value)
    hot.push_back("the GPU reached its max operating temperature");
  if (e.memory_max_c && s.temperature_memory_max_c.value && *e.memory_max_c >= *s.temperature_memory_max_c.value)
    hot.push_back("the memory (HBM) reached its max operating temperature");
  if (hot.empty()) return "";
  return fmt::format("{}", fmt::join(hot, " and ")) + "; ";
}

}  // namespace

ThrottlePolicy throttle_policy(const std::string& ignore, double max_fraction) {
  if (!(max_fraction >= 0 && max_fraction <= 1))
    throw std::invalid_argument(fmt::format("{} is not a fraction in [0, 1] (e.g. 5% or 0.05)", max_fraction));
  ThrottlePolicy p;
  const std::set<std::string> drop = ignored_reasons(ignore);
  p.fail_on.erase(
      std::remove_if(p.fail_on.begin(), p.fail_on.end(), [&](const std::string& r) { return drop.count(r); }),
      p.fail_on.end());
  p.ignored.assign(drop.begin(), drop.end());
  p.sw_thermal_max_fraction = max_fraction;
  return p;
}

NodeCheck throttle_check(const Report& report, const HealthRecord& health, const std::vector<NodeCheck>& floors,
                         const ThrottlePolicy& policy) {
  NodeCheck c;
  c.name = "health.throttle";
  c.kind = "throttle";
  c.verdict = kSkip;
  c.code = kCodeHealthUnknown;
  const Evidence e = gather(report);
  if (e.passes == 0) {
    c.reason = "no sustained pass ran: nothing to judge";
    return c;
  }
  if (e.sampled == 0) {
    c.reason = "NVML cannot say: no clock-event reasons were sampled during the sustained passes";
    return c;
  }
  const HealthSnapshot& s = health.before;
  const Share share = thermal_share(e);
  // A failed floor of a sustained case, by the case it judged (NodeCheck::case_name: a check name
  // holding the case's name is not enough; "s16k" is in the name of s16k-burst's floors too).
  std::vector<std::string> slow_floors;
  for (const auto& f : floors)
    if (f.verdict == kFail && judges_a_timing(f) &&
        std::any_of(report.cases.begin(), report.cases.end(),
                    [&](const CaseResult& r) { return sustained(r.spec) && f.case_name == r.name; }))
      slow_floors.push_back(f.name);

  json fractions = json::object();
  for (const auto& [name, n] : e.samples_with)
    if (e.samples > 0) fractions[name] = double(n) / e.samples;
  c.value = {{"reasons", std::vector<std::string>(e.seen.begin(), e.seen.end())},
             {"passes", e.sampled},
             {"sustained_seconds", e.counted_passes > 0 ? json(e.counted_seconds) : json()},
             {"thermal_violation_seconds", e.counted_passes > 0 ? json(e.violation_ns / 1e9) : json()},
             {"thermal_fraction", share.fraction ? json(*share.fraction) : json()},
             {"thermal_fraction_source", share.source.empty() ? json() : json(share.source)},
             {"reason_sample_fraction", fractions},
             {"gpu_temperature_max_c", e.gpu_max_c ? json(*e.gpu_max_c) : json()},
             {"memory_temperature_max_c", e.memory_max_c ? json(*e.memory_max_c) : json()},
             {"temperature_thresholds_c",
              {{"gpu_max", fact(s.temperature_gpu_max_c)},
               {"memory_max", fact(s.temperature_memory_max_c)},
               {"slowdown", fact(s.temperature_slowdown_c)},
               {"shutdown", fact(s.temperature_shutdown_c)}}},
             {"slow_sustained_floors", slow_floors}};
  c.threshold = {{"fail_on", policy.fail_on},
                 {"ignored", policy.ignored},
                 {"sw_thermal_max_fraction", policy.sw_thermal_max_fraction}};

  const std::string heat = temperatures(e, s);
  const std::string held = share.fraction
                               ? fmt::format("{:.0f}% of the sustained time ({})", *share.fraction * 100, share.source)
                               : std::string(
                                     "an unknown share of the sustained time (no thermal violation counter, no "
                                     "per-sample reasons)");
  std::vector<std::string> failing;  // reasons that fail the gate, each with why
  bool sw_thermal_tolerated = false;
  for (const auto& reason : policy.fail_on) {
    if (!e.seen.count(reason)) continue;
    const std::string where = " (first in " + e.first_where.at(reason) + ")";
    if (reason != "sw_thermal") {
      failing.push_back(reason + where);
      continue;
    }
    if (!share.fraction)
      failing.push_back("sw_thermal for " + held + where);
    else if (*share.fraction > policy.sw_thermal_max_fraction)
      failing.push_back(fmt::format("sw_thermal for {} > {:g}%{}", held, policy.sw_thermal_max_fraction * 100, where));
    else if (!slow_floors.empty())
      failing.push_back(fmt::format("sw_thermal for {}{} while {} failed", held, where, fmt::join(slow_floors, ", ")));
    else
      sw_thermal_tolerated = true;
  }
  std::string ignored;
  for (const auto& r : policy.ignored)
    if (e.seen.count(r)) ignored += (ignored.empty() ? "" : ", ") + r;
  const std::string ignored_note = ignored.empty() ? "" : "; seen but ignored (--throttle-ignore): " + ignored;
  if (!failing.empty()) {
    c.verdict = kFail;
    c.code = kCodeThrottled;
    c.reason = "slowdown during sustained load: " + fmt::format("{}", fmt::join(failing, "; ")) + "; " + heat + ": " +
               hot_part(e, s) +
               "check cooling (airflow, fans, inlet temperature, heatsink contact) and power delivery; "
               "docs/qualify.md, \"Throttle\"" +
               ignored_note;
    return c;
  }
  c.verdict = kPass;
  c.code = kCodeCheckOk;
  std::string all;
  for (const auto& r : e.seen) all += (all.empty() ? "" : ", ") + r;
  c.reason = "no failing slowdown in " + std::to_string(e.sampled) + " sustained pass(es)" +
             (all.empty() ? std::string() : " (reasons seen: " + all + ")");
  if (sw_thermal_tolerated)
    c.reason += fmt::format("; sw_thermal for {}, within {:g}%, and no sustained floor failed; {}", held,
                            policy.sw_thermal_max_fraction * 100, heat);
  c.reason += ignored_note;
  return c;
}

}  // namespace vsa
