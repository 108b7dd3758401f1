#include "qualify/floors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/ranges.h>

#include "report/report_fields.hpp"
#include "report/shared_gpu.hpp"
#include "compare/fleet_stats.hpp"
#include "embedded_floors.hpp"
#include "model/exit_codes.hpp"
#include "qualify/check_codes.hpp"
#include "util/json_lookup.hpp"
#include "util/stored_number.hpp"

namespace vsa {

namespace {

using nlohmann::json;

std::string number(double v, int precision = 4) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

std::string percent(double fraction) { return number(100 * fraction, 3) + "%"; }

bool sustained(const json& spec) {
  const auto t = spec.find("timing");
  return t != spec.end() && t->is_object() && t->value("min_pass_ms", 0.0) > 0;
}

bool has_probes(const json& spec) {
  const auto p = spec.find("probes");
  return p != spec.end() && p->is_object() && !p->empty();
}

// Which passes a clock figure reads: a baseline's floor comes from the passes its median came
// from (an off-clock pass, a brake the median left out, must not lower the floor: review of
// 2026-12-06); a node is judged on every pass, so one that braked fails its clock hold.
enum class ClockPasses { kept, all };

// The weakest pass's mean SM clock while it ran (sustained passes only), or nullopt.
std::optional<double> held_clock_mhz(const Timing& t, ClockPasses which) {
  if (!t.clocks.is_array()) return std::nullopt;
  std::set<int> off;
  if (which == ClockPasses::kept)
    for (const auto& o : t.off_clock_passes) off.insert(o.pass);
  std::optional<double> weakest;
  for (std::size_t i = 0; i < t.clocks.size(); ++i) {
    const json& pass = t.clocks[i];
    if (!pass.is_object()) continue;
    if (off.count(int(i))) continue;  // clocks[i] is pass i, as the report readers check it
    const auto during = pass.find("during");
    if (during == pass.end() || !during->is_object()) continue;
    const auto clock = during->find("sm_clock_mhz");
    if (clock == during->end() || !clock->is_object() || !clock->contains("mean")) continue;
    const auto mean = (*clock)["mean"];
    if (!mean.is_number()) continue;
    const double value = mean.get<double>();
    if (!weakest || value < *weakest) weakest = value;
  }
  return weakest;
}

using Key = std::tuple<std::string, int, int, std::string, std::string, std::string, std::string>;
Key key_of(const GpuModel& g, const json& workload, const std::string& backend, const std::string& op,
           const std::string& metric) {
  return {g.name, g.sm_count, g.sm_clock_max_mhz, workload.dump(), backend, op, metric};
}

template <typename T>
T field(const json& j, const char* name, const std::string& where) {
  const auto it = j.find(name);
  if (it == j.end()) throw std::invalid_argument(where + "." + name + ": missing");
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw std::invalid_argument(where + "." + name + ": wrong type (" + std::string(it->type_name()) + ")");
  }
}

}  // namespace

std::optional<GpuModel> gpu_model_of(const json& device) {
  if (!device.is_object()) return std::nullopt;
  const auto name = device.find("name");
  const auto sms = device.find("sm_count");
  const auto clock = device.find("sm_clock_max_mhz");
  if (name == device.end() || !name->is_string() || sms == device.end() || !sms->is_number_integer() ||
      clock == device.end() || !clock->is_number_integer())
    return std::nullopt;
  return GpuModel{name->get<std::string>(), sms->get<int>(), clock->get<int>()};
}

std::string to_string(const GpuModel& m) {
  return m.name + ", " + std::to_string(m.sm_count) + " SMs, " + std::to_string(m.sm_clock_max_mhz) + " MHz";
}

json workload_of(const json& spec) {
  json w = json::object();
  for (const char* k : {"op", "B", "H", "S", "D", "blk", "pattern", "vbs", "scale"})
    if (spec.contains(k)) w[k] = spec[k];
  const auto t = spec.find("timing");
  w["l2_flush"] = t != spec.end() && t->is_object() ? t->value("l2_flush", false) : false;
  w["sustained"] = sustained(spec);
  // op "both" and "fwd" time the same forward: the timing's own op says which.
  w.erase("op");
  return w;
}

namespace {

// Why a report cannot be a baseline, or "" when it can.
std::string not_a_baseline(const Report& r) {
  if (!r.complete) return "incomplete (the run did not finish)";
  if (r.exit_code == kExitOk) return "";
  std::vector<std::string> failed;
  for (const auto& c : r.checks)
    if (c.verdict == kFail) failed.push_back(c.name + " " + c.code);
  for (const auto& c : r.cases)
    if (c.verdict != kPass && c.verdict != kSkip) failed.push_back(c.name + " " + std::string(to_string(c.verdict)));
  std::string why = "its run exited " + std::to_string(r.exit_code) + ", not 0";
  if (!failed.empty()) why += fmt::format(" ({})", fmt::join(failed, "; "));
  return why;
}

// Which run a report is: its GPU (by UUID and MIG instance, and by PCI address and CUDA ordinal
// where NVML gave no UUID: one run's reports share the node and their times), node, and start
// and finish times.
std::string run_identity(const Report& r) {
  return device_uuid_of(r.device) + "\n" + json_value_or(r.device, "mig_uuid", "") + "\n" +
         json_value_or(r.device, "pci_bus_id", "") + "\n" +
         std::to_string(json_value_or(r.device, "cuda_ordinal", -1)) + "\n" + json_value_or(r.node, "hostname", "") +
         "\n" + r.started_at + "\n" + r.finished_at;
}

}  // namespace

namespace {

// floor = baseline_median x (1 - margin - baseline_spread); baseline_spread = max(each
// sample's spread, (max - min) / median over the samples). Written into `f` from its samples.
void apply_floor_rule(Floor& f, double margin) {
  std::vector<double> values;
  double spread = 0;
  for (const auto& s : f.samples) {
    values.push_back(s.value);
    spread = std::max(spread, s.spread);
  }
  f.baseline_median = quantile(values, 0.5);
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  spread = std::max(spread, (*hi - *lo) / f.baseline_median);
  f.baseline_spread = spread;
  f.floor = std::max(0.0, f.baseline_median * (1 - margin - spread));
}

}  // namespace

FloorTable derive_floors(const std::vector<ReportFile>& baselines, double margin) {
  if (!(margin >= 0 && margin < 1)) throw std::invalid_argument("margin " + number(margin) + " is not in [0, 1)");
  FloorTable table;
  table.margin = margin;
  std::map<Key, std::size_t> index;
  std::map<std::string, std::string> counted;  // run identity -> the path it was counted from
  auto add = [&](const GpuModel& gpu, const json& workload, const std::string& backend, const std::string& op,
                 const std::string& metric, FloorSample sample) {
    const Key key = key_of(gpu, workload, backend, op, metric);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, table.floors.size()).first;
      table.floors.push_back(Floor{gpu, workload, backend, op, metric, 0, 0, 0, {}});
    }
    table.floors[it->second].samples.push_back(std::move(sample));
  };
  for (const auto& file : baselines) {
    if (const std::string why = not_a_baseline(file.report); !why.empty()) {
      table.left_out.push_back(file.path + ": " + why);
      continue;
    }
    const auto gpu = gpu_model_of(file.report.device);
    if (!gpu) {
      table.left_out.push_back(file.path +
                               ": its GPU model is unknown (device name, sm_count or sm_clock_max_mhz missing)");
      continue;
    }
    // One run given twice (a file and the folder that holds it, or a copy) counts once: twice, it
    // would pull the median towards itself.
    if (const auto [first, fresh] = counted.emplace(run_identity(file.report), file.path); !fresh) {
      table.left_out.push_back(file.path + ": the same run as " + first->second + ", counted once");
      continue;
    }
    const std::string sha = json_value_or(file.tool, "git_sha", "");
    table.sources.push_back(
        {{"path", file.path}, {"git_sha", sha}, {"gpu", to_string(*gpu)}, {"finished_at", file.report.finished_at}});
    for (const auto& c : file.report.cases) {
      if (has_probes(c.spec)) continue;
      const json workload = workload_of(c.spec);
      for (const auto& b : c.backends) {
        if (b.verdict != kPass) continue;
        for (const auto& t : b.timings) {
          // A figure timed beside another process's context is not the GPU model's speed.
          if (!(t.tflops > 0) || shared_gpu(t).passes > 0) continue;
          add(*gpu, workload, b.backend, t.op, kMetricTflops, {file.path, sha, c.name, t.tflops, t.spread});
          if (sustained(c.spec))
            if (const auto clock = held_clock_mhz(t, ClockPasses::kept))
              add(*gpu, workload, b.backend, t.op, kMetricSustainedClock, {file.path, sha, c.name, *clock, 0});
        }
      }
    }
  }
  std::vector<Floor> usable;
  for (auto& f : table.floors) {
    apply_floor_rule(f, margin);
    // A floor of 0 would pass every node and still count as judged under --require-floors: a
    // baseline that noisy gives no floor (the timing then has none, and fails closed there).
    if (!(f.floor > 0)) {
      table.left_out.push_back(fmt::format(
          "{} {} {} {} on {}: no floor, the baseline spread {} leaves nothing above "
          "0 at margin {}",
          to_string(f.gpu), f.backend, f.op, f.metric, f.workload.dump(), percent(f.baseline_spread), percent(margin)));
      continue;
    }
    usable.push_back(std::move(f));
  }
  table.floors = std::move(usable);
  return table;
}

json to_json(const FloorTable& t) {
  json floors = json::array();
  for (const auto& f : t.floors) {
    json samples = json::array();
    for (const auto& s : f.samples)
      samples.push_back({{"report", s.report},
                         {"git_sha", s.git_sha},
                         {"case", s.case_name},
                         {"value", s.value},
                         {"spread", s.spread}});
    floors.push_back(
        {{"gpu", {{"name", f.gpu.name}, {"sm_count", f.gpu.sm_count}, {"sm_clock_max_mhz", f.gpu.sm_clock_max_mhz}}},
         {"workload", f.workload},
         {"backend", f.backend},
         {"op", f.op},
         {"metric", f.metric},
         {"baseline_median", f.baseline_median},
         {"baseline_spread", f.baseline_spread},
         {"floor", f.floor},
         {"samples", samples}});
  }
  return {{"schema", "vsa-bench/floors"},
          {"schema_version", 1},
          {"generated_by", "vsa-bench floors (docs/qualify.md): do not edit, regenerate from the reports in sources"},
          {"margin", t.margin},
          {"rule",
           "floor = baseline_median x (1 - margin - baseline_spread); baseline_spread = max(each sample's "
           "spread, (max - min) / median over the samples)"},
          {"sources", t.sources},
          {"floors", floors}};
}

FloorTable floor_table_from_json(const json& j, const std::string& origin) {
  if (!j.is_object() || j.value("schema", "") != "vsa-bench/floors")
    throw std::invalid_argument(origin + ": not a floors table (missing \"schema\": \"vsa-bench/floors\")");
  if (j.value("schema_version", 0) != 1)
    throw std::invalid_argument(origin + ": floors schema_version " + std::to_string(j.value("schema_version", 0)) +
                                " is not 1");
  FloorTable t;
  t.margin = field<double>(j, "margin", origin + ": $");
  if (!(t.margin >= 0 && t.margin < 1))
    throw std::invalid_argument(origin + ": $.margin: " + number(t.margin) + " is not in [0, 1)");
  t.sources = j.value("sources", json::array());
  const auto floors = field<json>(j, "floors", origin + ": $");
  if (!floors.is_array()) throw std::invalid_argument(origin + ": $.floors: not an array");
  for (std::size_t i = 0; i < floors.size(); ++i) {
    const std::string where = origin + ": $.floors[" + std::to_string(i) + "]";
    const json& f = floors[i];
    if (!f.is_object()) throw std::invalid_argument(where + ": not an object");
    Floor out;
    const auto gpu = field<json>(f, "gpu", where);
    const auto model = gpu_model_of(gpu);
    if (!model) throw std::invalid_argument(where + ".gpu: needs name, sm_count and sm_clock_max_mhz");
    out.gpu = *model;
    out.workload = field<json>(f, "workload", where);
    out.backend = field<std::string>(f, "backend", where);
    out.op = field<std::string>(f, "op", where);
    out.metric = field<std::string>(f, "metric", where);
    if (out.metric != kMetricTflops && out.metric != kMetricSustainedClock)
      throw std::invalid_argument(where + ".metric: \"" + out.metric + "\" is not tflops or sustained_sm_clock_mhz");
    out.baseline_median = field<double>(f, "baseline_median", where);
    out.baseline_spread = field<double>(f, "baseline_spread", where);
    out.floor = field<double>(f, "floor", where);
    const json samples = f.contains("samples") ? field<json>(f, "samples", where) : json::array();
    if (!samples.is_array()) throw std::invalid_argument(where + ".samples: not an array");
    for (std::size_t k = 0; k < samples.size(); ++k) {
      const std::string at = where + ".samples[" + std::to_string(k) + "]";
      if (!samples[k].is_object()) throw std::invalid_argument(at + ": not an object");
      out.samples.push_back({field<std::string>(samples[k], "report", at), json_value_or(samples[k], "git_sha", ""),
                             field<std::string>(samples[k], "case", at), field<double>(samples[k], "value", at),
                             samples[k].contains("spread") ? field<double>(samples[k], "spread", at) : 0.0});
    }
    if (out.samples.empty())
      throw std::invalid_argument(where + ".samples: a floor must name the baseline reports it came from");
    // The table judges nodes with `floor` as stored: it must be what the rule gives from the
    // samples it names (a hand-lowered floor passes slow nodes), and above 0.
    Floor derived = out;
    apply_floor_rule(derived, t.margin);
    if (!same_stored_value(out.floor, derived.floor) ||
        !same_stored_value(out.baseline_median, derived.baseline_median) ||
        !same_stored_value(out.baseline_spread, derived.baseline_spread))
      throw std::invalid_argument(fmt::format(
          "{}: floor {} (median {}, spread {}) is not what its samples give at margin {}: floor {} (median {}, spread "
          "{}); regenerate the table with `vsa-bench floors`",
          where, number(out.floor), number(out.baseline_median), percent(out.baseline_spread), percent(t.margin),
          number(derived.floor), number(derived.baseline_median), percent(derived.baseline_spread)));
    if (!(out.floor > 0)) throw std::invalid_argument(where + ".floor: must be > 0 (a floor of 0 passes every node)");
    t.floors.push_back(std::move(out));
  }
  return t;
}

const FloorTable& builtin_floors() {
  static const FloorTable table = floor_table_from_json(json::parse(embedded_floors()), "builtin:floors");
  return table;
}

namespace {

const Floor* find_floor(const FloorTable& t, const GpuModel& gpu, const json& workload, const std::string& backend,
                        const std::string& op, const char* metric) {
  for (const auto& f : t.floors)
    if (f.gpu == gpu && f.workload == workload && f.backend == backend && f.op == op && f.metric == metric) return &f;
  return nullptr;
}

std::string sources_of(const Floor& f) {
  std::vector<std::string> files;
  for (const auto& s : f.samples)
    if (std::find(files.begin(), files.end(), s.report) == files.end()) files.push_back(s.report);
  return fmt::format("{}", fmt::join(files, ", "));
}

// The timing a floor or clock-hold check judges: its name ("KIND CASE BACKEND OP") and the
// three fields that say the same for readers (NodeCheck::case_name).
NodeCheck timing_check(const char* kind, const std::string& case_name, const std::string& backend,
                       const std::string& op) {
  NodeCheck c;
  c.name = std::string(kind) + " " + case_name + " " + backend + " " + op;
  c.kind = kind;
  c.case_name = case_name;
  c.backend = backend;
  c.op = op;
  return c;
}

NodeCheck judge(NodeCheck c, double value, const Floor& f, double margin, const std::string& unit,
                const std::string& what, const char* fail_code) {
  c.value = value;
  c.threshold = {{"floor", f.floor},
                 {"baseline_median", f.baseline_median},
                 {"baseline_spread", f.baseline_spread},
                 {"margin", margin}};
  const std::string basis = "floor " + number(f.floor) + " " + unit + " for " + to_string(f.gpu) +
                            " (baseline median " + number(f.baseline_median) + ", spread " +
                            percent(f.baseline_spread) + ", margin " + percent(margin) + "; " + sources_of(f) + ")";
  if (value < f.floor) {
    c.verdict = kFail;
    c.code = fail_code;
    c.reason = what + " " + number(value) + " " + unit + " is below the " + basis;
  } else {
    c.verdict = kPass;
    c.code = kCodeCheckOk;
    c.reason = what + " " + number(value) + " " + unit + " meets the " + basis;
  }
  return c;
}

NodeCheck skipped(NodeCheck c, std::string why) {
  c.verdict = kSkip;
  c.code = kCodeNoFloor;
  c.reason = std::move(why);
  return c;
}

}  // namespace

std::vector<NodeCheck> floor_checks(const Report& report, const FloorTable& table) {
  std::vector<NodeCheck> checks;
  const auto gpu = gpu_model_of(report.device);
  for (const auto& c : report.cases) {
    const json workload = workload_of(c.spec);
    for (const auto& b : c.backends) {
      if (b.verdict != kPass) continue;  // a failed or skipped backend says so itself
      for (const auto& t : b.timings) {
        const NodeCheck floor = timing_check("floor", c.name, b.backend, t.op);
        if (!gpu) {
          checks.push_back(skipped(floor,
                                   "the report does not name the GPU model (name, sm_count, sm_clock_max_mhz): no "
                                   "floor can apply"));
          continue;
        }
        if (has_probes(c.spec)) {
          checks.push_back(skipped(floor, "delay probes slow the kernel on purpose: no floor applies"));
          continue;
        }
        const std::string add =
            " (a floor comes from a baseline report of this GPU model: `vsa-bench floors "
            "REPORT.json... > suites/floors/floors.json`, docs/qualify.md)";
        if (const Floor* f = find_floor(table, *gpu, workload, b.backend, t.op, kMetricTflops))
          checks.push_back(judge(floor, t.tflops, *f, table.margin, "TFLOPS", "measured", kCodeSlowNode));
        else
          checks.push_back(skipped(
              floor, "no floor for " + to_string(*gpu) + ", " + b.backend + " " + t.op + " on this workload" + add));
        if (!sustained(c.spec)) continue;
        const NodeCheck clock_hold = timing_check("clock_hold", c.name, b.backend, t.op);
        const auto held = held_clock_mhz(t, ClockPasses::all);
        if (!held) {
          checks.push_back(
              skipped(clock_hold, "no NVML clock samples during the sustained pass: the clock it held is unknown"));
          continue;
        }
        if (const Floor* f = find_floor(table, *gpu, workload, b.backend, t.op, kMetricSustainedClock))
          checks.push_back(judge(clock_hold, *held, *f, table.margin, "MHz",
                                 "weakest sustained pass held a mean SM clock of", kCodeClockHold));
        else
          checks.push_back(skipped(clock_hold, "no sustained clock floor for " + to_string(*gpu) + ", " + b.backend +
                                                   " " + t.op + " on this workload" + add));
      }
    }
  }
  return checks;
}

NodeCheck required_floor_failure(std::string name, std::string why) {
  NodeCheck c;
  c.name = std::move(name);
  c.kind = "floor";
  c.verdict = kFail;
  c.code = kCodeNoFloor;
  c.reason = "--require-floors: " + std::move(why);
  return c;
}

void require_floors(const Report& report, std::vector<NodeCheck>& checks) {
  bool judged = false;
  for (auto& c : checks) {
    if (!judges_a_timing(c)) continue;
    if (c.verdict != kSkip) {
      judged = judged || c.kind == "floor";
      continue;
    }
    c.verdict = kFail;
    c.reason = "--require-floors: nothing judged this timing's speed: " + c.reason;
  }
  // A backend that was to be timed and SKIPped (not built, refused the shape) left no timing for a
  // floor to judge: the node would pass on the others' speed alone.
  for (const auto& c : report.cases) {
    if (!c.spec.is_object() || c.spec.value("mode", std::string()) != "perf") continue;
    for (const auto& b : c.backends) {
      if (b.verdict != kSkip || b.backend == c.reference) continue;
      NodeCheck untimed = required_floor_failure(
          "floor " + c.name + " " + b.backend, b.backend + " SKIPped (" + b.reason + "), so nothing judged its speed");
      untimed.case_name = c.name;
      untimed.backend = b.backend;
      checks.push_back(std::move(untimed));
    }
  }
  if (!judged)
    checks.push_back(required_floor_failure("floor (any)", "no timing of this run was judged by a speed floor"));
}

}  // namespace vsa
