#include "report/nvbench_json.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/noise_reason.hpp"
#include "telemetry/clock_summary.hpp"
#include "util/json_lookup.hpp"

namespace vsa {

namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

// One axis value of a state. NVBench's axis types: "int64", "float64", "string" (and
// "type", which has no counterpart here).
struct AxisValue {
  std::string name;
  std::string type;
  json value;
};

// As NVBench writes a state's axis_values and summary data: numbers as strings (its JSON
// writer keeps int64 exact that way), doubles in their shortest round-trip form.
std::string value_text(const AxisValue& a) {
  if (a.type == "int64") return std::to_string(a.value.get<std::int64_t>());
  if (a.type == "float64") return fmt::to_string(a.value.get<double>());
  return a.value.get<std::string>();
}

// As NVBench names a state ("Device=0 S=4096 density=0.25 ..."): float64 with 5 significant digits.
std::string state_name_text(const AxisValue& a) {
  if (a.type == "float64") return fmt::format("{:.5g}", a.value.get<double>());
  return value_text(a);
}

std::vector<std::pair<std::string, std::string>> sweep_pairs(const std::string& case_name) {
  const auto slash = case_name.rfind('/');
  if (slash == std::string::npos) return {};
  std::vector<std::pair<std::string, std::string>> pairs;
  const std::string segment = case_name.substr(slash + 1);
  std::size_t start = 0;
  while (start <= segment.size()) {
    const auto comma = std::min(segment.find(',', start), segment.size());
    const std::string item = segment.substr(start, comma - start);
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return {};
    pairs.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    start = comma + 1;
  }
  return pairs;
}

const std::set<std::string> kShapeAxes = {"B", "H", "S", "D", "density"};

// The axes of a case: its shape from the spec, then any other key its sweep varied.
std::vector<AxisValue> case_axes(const CaseResult& c) {
  std::vector<AxisValue> axes;
  for (const char* name : {"B", "H", "S", "D"}) {
    const auto v = c.spec.find(name);
    if (v != c.spec.end() && v->is_number_integer()) axes.push_back({name, "int64", *v});
  }
  if (c.spec.contains("pattern") && c.spec["pattern"].is_object()) {
    const auto d = c.spec["pattern"].find("density");
    if (d != c.spec["pattern"].end() && d->is_number()) axes.push_back({"density", "float64", *d});
  }
  for (const auto& [key, text] : sweep_pairs(c.name)) {
    if (kShapeAxes.count(key) != 0 || key == "backend" || key == "op") continue;
    const json parsed = json::parse(text, nullptr, false);
    if (parsed.is_number_integer())
      axes.push_back({key, "int64", parsed});
    else if (parsed.is_number())
      axes.push_back({key, "float64", parsed});
    else
      axes.push_back({key, "string", text});
  }
  return axes;
}

int device_id_of(const Report& r) { return json_value_or(r.device, "cuda_ordinal", -1); }

// The ops a case's states cover: those timed, else those its spec asks for.
std::vector<std::string> case_ops(const CaseResult& c) {
  std::set<std::string> timed;
  for (const auto& b : c.backends)
    for (const auto& t : b.timings) timed.insert(t.op);
  if (!timed.empty()) {
    std::vector<std::string> ops;
    for (const char* op : {"fwd", "bwd"})
      if (timed.count(op) != 0) ops.push_back(op);
    for (const auto& op : timed)
      if (op != "fwd" && op != "bwd") ops.push_back(op);
    return ops;
  }
  const std::string op = json_value_or(c.spec, "op", "both");
  if (op == "fwd" || op == "bwd") return {op};
  return {"fwd", "bwd"};
}

bool exported(const CaseResult& c) {
  if (json_value_or(c.spec, "mode", "") == "perf") return true;
  return std::any_of(c.backends.begin(), c.backends.end(), [](const BackendResult& b) { return !b.timings.empty(); });
}

struct Entry {
  std::string benchmark;
  std::vector<AxisValue> axes;
  const CaseResult* result = nullptr;
  const Report* report = nullptr;
  int device = -1;
};

std::string axes_signature(const std::vector<AxisValue>& axes) {
  std::string s;
  for (const auto& a : axes) s += a.name + ":" + a.type + ";";
  return s;
}

std::string state_name(int device, const std::vector<AxisValue>& axes) {
  std::string name = "Device=" + std::to_string(device);
  for (const auto& a : axes) name += " " + a.name + "=" + state_name_text(a);
  return name;
}

// A group whose cases disagree on their axes, or where two cases would give one state
// name, is split: each case its own benchmark under its full name.
bool consistent(const std::vector<Entry*>& group) {
  std::set<std::string> names;
  for (const Entry* e : group) {
    if (axes_signature(e->axes) != axes_signature(group.front()->axes)) return false;
    if (!names.insert(state_name(e->device, e->axes)).second) return false;
  }
  return true;
}

std::vector<std::vector<Entry*>> group_by_benchmark(std::vector<Entry>& entries) {
  auto group = [](std::vector<Entry*> list) {
    std::vector<std::vector<Entry*>> groups;
    std::map<std::string, std::size_t> index;
    for (Entry* e : list) {
      const auto [it, fresh] = index.emplace(e->benchmark, groups.size());
      if (fresh) groups.emplace_back();
      groups[it->second].push_back(e);
    }
    return groups;
  };
  std::vector<Entry*> all;
  for (auto& e : entries) all.push_back(&e);
  std::vector<std::vector<Entry*>> out;
  for (auto& g : group(all)) {
    if (consistent(g)) {
      out.push_back(g);
      continue;
    }
    for (Entry* e : g) e->benchmark = e->result->name;
    for (auto& sub : group(g)) out.push_back(sub);
  }
  return out;
}

// ---- summaries ---------------------------------------------------------------------------

ojson summary(const std::string& tag, const std::string& name, const std::string& hint, const std::string& description,
              bool hidden) {
  ojson s;
  s["tag"] = tag;
  s["name"] = name;
  s["description"] = description;
  if (!hint.empty()) s["hint"] = hint;
  if (hidden) s["hide"] = "Hidden by default.";
  return s;
}

void add_value(ojson& summaries, ojson s, const std::string& type, const std::string& text) {
  s["data"] = ojson::array({ojson{{"name", "value"}, {"type", type}, {"value", text}}});
  summaries.push_back(std::move(s));
}

void add_float(ojson& summaries, const std::string& tag, const std::string& name, const std::string& hint,
               const std::string& description, double value, bool hidden = true) {
  add_value(summaries, summary(tag, name, hint, description, hidden), "float64", fmt::to_string(value));
}

void add_int(ojson& summaries, const std::string& tag, const std::string& name, const std::string& hint,
             const std::string& description, std::int64_t value, bool hidden = true) {
  add_value(summaries, summary(tag, name, hint, description, hidden), "int64", std::to_string(value));
}

void add_string(ojson& summaries, const std::string& tag, const std::string& name, const std::string& description,
                const std::string& value, bool hidden = true) {
  add_value(summaries, summary(tag, name, "", description, hidden), "string", value);
}

// NVBench's percentiles: the sorted sample at rank round(q (n - 1)).
double nearest_rank(const std::vector<double>& sorted, double q) {
  return sorted[std::size_t(std::lround(q * double(sorted.size() - 1)))];
}

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// NVBench's cold-measurement summaries over our sample: the kept pass medians, in seconds.
void add_time_summaries(ojson& out, const Timing& t, const std::vector<double>& seconds) {
  const std::string each = "pass medians kept (each the median of " + std::to_string(t.iterations) +
                           " timed iterations, CUDA events" + (t.l2_flush ? ", L2 flushed" : ", L2 not flushed") +
                           "; off-clock passes left out)";
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  const double n = double(sorted.size());
  double mean = 0;
  for (double x : sorted) mean += x / n;
  double ss = 0;
  for (double x : sorted) ss += (x - mean) * (x - mean);
  // NVBench reports the noise as unknown (infinity) below its sample minimum; each of our
  // samples is already a median of many iterations, so two are enough for a deviation.
  const double stdev = sorted.size() >= 2 ? std::sqrt(ss / (n - 1)) : kInfinity;
  const double median = t.median_ms * 1e-3;
  const double q1 = nearest_rank(sorted, 0.25), q3 = nearest_rank(sorted, 0.75);
  add_int(out, "nv/cold/sample_size", "Samples", "sample_size", "Number of " + each, std::int64_t(sorted.size()),
          false);
  add_float(out, "nv/cold/time/gpu/min", "Min GPU Time", "duration", "Fastest of the " + each, sorted.front());
  add_float(out, "nv/cold/time/gpu/max", "Max GPU Time", "duration", "Slowest of the " + each, sorted.back());
  add_float(out, "nv/cold/time/gpu/mean", "GPU Time", "duration", "Mean of the " + each, mean, false);
  add_float(out, "nv/cold/time/gpu/stdev/absolute", "Noise", "duration", "Standard deviation of the " + each, stdev);
  add_float(out, "nv/cold/time/gpu/stdev/relative", "Noise", "percentage", "Relative standard deviation of the " + each,
            std::isfinite(stdev) && mean > 0 ? stdev / mean : kInfinity, false);
  add_float(out, "nv/cold/time/gpu/q1", "Q1 GPU Time", "duration", "First quartile of the " + each, q1);
  add_float(out, "nv/cold/time/gpu/median", "Median GPU Time", "duration",
            "Median of the " + each + ": vsa-bench's figure, its TFLOPS come from it", median);
  add_float(out, "nv/cold/time/gpu/q3", "Q3 GPU Time", "duration", "Third quartile of the " + each, q3);
  add_float(out, "nv/cold/time/gpu/iqr/absolute", "IQR", "duration", "Interquartile range of the " + each, q3 - q1);
  if (sorted.size() >= 2 && median > 0)
    add_float(out, "nv/cold/time/gpu/iqr/relative", "Rel IQR", "percentage",
              "Relative interquartile range of the " + each, (q3 - q1) / median);
}

void add_clock_summaries(ojson& out, const Timing& t, const Report& r) {
  double sum = 0;
  int count = 0;
  for (const auto& mhz : kept_pass_clocks_mhz(t))
    if (mhz) {
      sum += *mhz;
      ++count;
    }
  if (count == 0) return;
  const double mean_hz = sum / count * 1e6;
  add_float(
      out, "nv/cold/sm_clock_rate/mean", "Clock Rate", "frequency",
      "Mean SM clock of the kept passes (NVML, sampled during each pass, else after a pass too short for one sample)",
      mean_hz);
  const double peak_khz = json_value_or(r.device, "sm_clock_peak_khz", 0.0);
  if (peak_khz > 0)
    add_float(out, "nv/cold/sm_clock_rate/scaling/percent", "Clock Scaling", "percentage",
              "Mean SM clock of the kept passes as a fraction of the device's default clock",
              mean_hz / (peak_khz * 1e3));
}

// What NVBench has no name for, under vsa/ tags.
void add_vsa_summaries(ojson& out, const Timing& t, const BackendResult& b) {
  add_float(out, "vsa/time/gpu/median_interval/relative", "Spread", "percentage",
            "vsa-bench's spread: relative width of the >= 95% distribution-free interval of the median of the kept "
            "pass medians (what its adaptive sampling and regression gate use)",
            t.spread, false);
  add_float(out, "vsa/tflops", "TFLOPS", "", "docs/spec.md FLOPs / median time, in 10^12 per second", t.tflops, false);
  add_float(out, "vsa/time/gpu/pass_range/relative", "Pass Range", "percentage",
            "(max - min) / median of the kept pass medians", t.pass_range);
  add_int(out, "vsa/passes", "Passes", "sample_size", "Timed passes run, off-clock ones included", t.passes, false);
  add_int(out, "vsa/off_clock_passes", "Off-clock", "sample_size",
          "Passes left out: their SM clock left the other passes' range", std::int64_t(t.off_clock_passes.size()));
  add_int(out, "vsa/iterations", "Iterations", "sample_size", "Timed iterations per pass", t.iterations);
  if (t.launches_per_iteration > 1)
    add_int(out, "vsa/launches_per_iteration", "Launches", "sample_size",
            "Launches per timed iteration (sustained passes); times are per launch", t.launches_per_iteration);
  add_string(out, "vsa/sampling/stop", "Sampling",
             "How sampling ended: converged (spread <= target), budget_exhausted, max_passes, fixed", t.sampling.stop,
             false);
  add_float(out, "vsa/sampling/target_spread", "Target", "percentage", "Spread target (0: fixed passes)",
            t.sampling.target_spread);
  add_float(out, "vsa/sampling/time_budget", "Budget", "duration",
            "Seconds of passes allowed for this op, all backends together", t.sampling.time_budget_s);
  const std::string clocks = clock_summary(t.clocks);
  if (!clocks.empty()) add_string(out, "vsa/clocks", "Clocks", "SM clock range and slowdown reasons seen", clocks);
  const std::string reason = noise_reason(t);
  if (!reason.empty())
    add_string(out, "vsa/noise/reason", "Noise Reason", "Why the spread is above its target", reason, false);
  add_string(out, "vsa/verdict", "Verdict", "The backend's verdict in the case (correctness)", verdict_name(b.verdict));
}

const Timing* timing_of(const BackendResult& b, const std::string& op) {
  for (const auto& t : b.timings)
    if (t.op == op) return &t;
  return nullptr;
}

ojson state_json(const Entry& e, const BackendResult& b, const std::string& op) {
  std::vector<AxisValue> axes = e.axes;
  axes.push_back({"backend", "string", b.backend});
  axes.push_back({"op", "string", op});
  ojson st;
  st["name"] = state_name(e.device, axes);
  const Timing* t = timing_of(b, op);
  st["min_samples"] = t != nullptr ? t->sampling.min_passes : 0;
  st["device"] = e.device;
  st["type_config_index"] = 0;
  ojson values = ojson::array();
  for (const auto& a : axes) values.push_back({{"name", a.name}, {"type", a.type}, {"value", value_text(a)}});
  st["axis_values"] = values;
  ojson summaries = ojson::array();
  const std::vector<double> kept = t != nullptr ? kept_pass_medians_ms(*t) : std::vector<double>();
  if (t != nullptr && !kept.empty()) {
    std::vector<double> seconds;
    for (double ms : kept) seconds.push_back(ms * 1e-3);
    add_time_summaries(summaries, *t, seconds);
    add_clock_summaries(summaries, *t, *e.report);
    add_vsa_summaries(summaries, *t, b);
  }
  st["summaries"] = summaries;
  st["is_skipped"] = summaries.empty();
  if (summaries.empty())
    st["skip_reason"] = verdict_name(b.verdict) + ": " + (b.reason.empty() ? "no timing of " + op : b.reason);
  return st;
}

// The backends a case's states are for: its results, or, for a case that ended before any
// backend ran (its reference failed, its worker was lost), the spec's backends with the
// case's verdict and message.
std::vector<BackendResult> state_backends(const CaseResult& c) {
  if (!c.backends.empty()) return c.backends;
  std::vector<BackendResult> out;
  const auto names = c.spec.find("backends");
  if (names == c.spec.end() || !names->is_array()) return out;
  for (const auto& name : *names) {
    if (!name.is_string()) continue;
    BackendResult b;
    b.backend = name.get<std::string>();
    b.verdict = c.verdict;
    b.reason = c.message;
    out.push_back(std::move(b));
  }
  return out;
}

ojson axes_json(const std::vector<Entry*>& group) {
  std::vector<std::string> names;
  std::map<std::string, std::string> types;
  std::map<std::string, std::vector<AxisValue>> values;
  auto add = [&](const AxisValue& a) {
    if (types.emplace(a.name, a.type).second) names.push_back(a.name);
    auto& list = values[a.name];
    if (std::none_of(list.begin(), list.end(), [&](const AxisValue& v) { return v.value == a.value; }))
      list.push_back(a);
  };
  for (const Entry* e : group)
    for (const auto& a : e->axes) add(a);
  for (const Entry* e : group)
    for (const auto& b : state_backends(*e->result)) add({"backend", "string", b.backend});
  for (const Entry* e : group)
    for (const auto& op : case_ops(*e->result)) add({"op", "string", op});
  ojson axes = ojson::array();
  for (const auto& name : names) {
    ojson list = ojson::array();
    for (const auto& v : values[name]) {
      ojson entry;
      entry["input_string"] = value_text(v);
      entry["description"] = "";
      entry["value"] = v.value;
      list.push_back(std::move(entry));
    }
    axes.push_back({{"name", name}, {"type", types[name]}, {"flags", ""}, {"values", std::move(list)}});
  }
  return axes;
}

// NVBench's device fields that a report's fingerprint holds (telemetry/fingerprint.hpp), in
// NVBench's units (Hz, bytes); the ones the fingerprint lacks are left out.
bool is_number_at(const json& g, const char* key) { return g.contains(key) && g[key].is_number(); }

ojson device_json(const Report& r) {
  ojson d;
  d["id"] = device_id_of(r);
  if (!r.device.is_object()) {
    d["name"] = "cpu (no GPU)";
    return d;
  }
  const json& g = r.device;
  d["name"] = json_value_or(g, "name", "?");
  if (is_number_at(g, "cc_major") && is_number_at(g, "cc_minor"))
    d["sm_version"] = json_value_or(g, "cc_major", 0) * 100 + json_value_or(g, "cc_minor", 0) * 10;
  if (json_value_or(g, "sm_clock_peak_khz", 0.0) > 0)
    d["sm_default_clock_rate"] = std::int64_t(json_value_or(g, "sm_clock_peak_khz", 0.0)) * 1000;
  if (is_number_at(g, "sm_count")) d["number_of_sms"] = json_value_or(g, "sm_count", 0);
  if (is_number_at(g, "cuda_global_memory_bytes"))
    d["global_memory_size"] = json_value_or(g, "cuda_global_memory_bytes", std::int64_t(0));
  const auto mem_hz = std::int64_t(json_value_or(g, "mem_clock_peak_khz", 0.0)) * 1000;
  const auto width = json_value_or(g, "memory_bus_width_bits", std::int64_t(0));
  if (mem_hz > 0) d["global_memory_bus_peak_clock_rate"] = mem_hz;
  if (width > 0) d["global_memory_bus_width"] = width;
  if (mem_hz > 0 && width > 0) d["global_memory_bus_bandwidth"] = 2 * mem_hz * (width / 8);  // DDR: 2 per clock
  if (is_number_at(g, "l2_cache_bytes")) d["l2_cache_size"] = json_value_or(g, "l2_cache_bytes", std::int64_t(0));
  if (is_number_at(g, "smem_per_sm_bytes"))
    d["shared_memory_per_sm"] = json_value_or(g, "smem_per_sm_bytes", std::int64_t(0));
  if (g.contains("ecc_enabled") && g["ecc_enabled"].is_boolean()) d["ecc_state"] = g["ecc_enabled"].get<bool>();
  return d;
}

}  // namespace

std::string nvbench_benchmark_name(const std::string& case_name) {
  if (sweep_pairs(case_name).empty()) return case_name;
  return case_name.substr(0, case_name.rfind('/'));
}

ojson to_nvbench_json(const std::vector<Report>& reports, const json& tool) {
  ojson root;
  ojson& meta = root["meta"];
  meta["argv"] = reports.empty() ? json::array() : json(reports.front().argv);
  ojson& version = meta["version"]["json"];
  version["major"] = kNvbenchJsonVersion[0];
  version["minor"] = kNvbenchJsonVersion[1];
  version["patch"] = kNvbenchJsonVersion[2];
  version["string"] = fmt::format("{}.{}.{}", kNvbenchJsonVersion[0], kNvbenchJsonVersion[1], kNvbenchJsonVersion[2]);
  meta["producer"] = {{"name", "vsa-bench"}, {"tool", tool}};

  std::map<int, const Report*> by_device;
  for (const auto& r : reports) {
    const auto [it, fresh] = by_device.emplace(device_id_of(r), &r);
    if (!fresh)
      throw NvbenchExportError("two reports are on device " + std::to_string(it->first) + " (" +
                               it->second->started_at + " and " + r.started_at +
                               "): NVBench keys devices by CUDA ordinal, so they need separate files");
  }
  root["devices"] = ojson::array();
  for (const auto& [id, r] : by_device) root["devices"].push_back(device_json(*r));

  std::vector<Entry> entries;
  for (const auto& r : reports)
    for (const auto& c : r.cases)
      if (exported(c)) entries.push_back({nvbench_benchmark_name(c.name), case_axes(c), &c, &r, device_id_of(r)});
  root["benchmarks"] = ojson::array();
  for (const auto& group : group_by_benchmark(entries)) {
    ojson bench;
    bench["name"] = group.front()->benchmark;
    bench["index"] = root["benchmarks"].size();
    std::set<int> devices;
    for (const Entry* e : group) devices.insert(e->device);
    bench["devices"] = devices;
    bench["axes"] = axes_json(group);
    ojson states = ojson::array();
    for (const Entry* e : group)
      for (const auto& b : state_backends(*e->result))
        for (const auto& op : case_ops(*e->result)) states.push_back(state_json(*e, b, op));
    bench["states"] = std::move(states);
    root["benchmarks"].push_back(std::move(bench));
  }
  return root;
}

std::string render_nvbench(const std::vector<Report>& reports, const json& tool) {
  return to_nvbench_json(reports, tool).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace vsa
