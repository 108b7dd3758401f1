#include "run/suite_runner.hpp"

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <spdlog/spdlog.h>

#include "engine/case_runner.hpp"
#include "engine/devices.hpp"
#include "model/case_footprint.hpp"
#include "model/exit_codes.hpp"
#include "suite/suite.hpp"
#include "qualify/backend_alias.hpp"
#include "run/gpu_expectation.hpp"
#include "run/kernel_images.hpp"
#include "run/node_qualification.hpp"
#include "run/interrupt_notice.hpp"
#include "run/output_paths.hpp"
#include "run/plugin_inspection.hpp"
#include "plugins/described_backend.hpp"
#include "plugins/plugin_registry.hpp"
#include "run/device_facts.hpp"
#include "run/resume.hpp"
#include "run/suite_plugins.hpp"
#include "run/worker_process.hpp"
#include "run/worker_supervisor.hpp"
#include "telemetry/clock_sampler.hpp"
#include "telemetry/node_fingerprint.hpp"
#include "telemetry/nvml.hpp"
#include "telemetry/pci_gpus.hpp"
#include "report/exports.hpp"
#include "report/nvbench_json.hpp"
#include "report/report.hpp"
#include "report/timing_text.hpp"
#include "util/files.hpp"
#include "util/json_input.hpp"
#include "model/probe_spec.hpp"
#include "util/printable.hpp"
#include "vsa/registry.hpp"
#include "report/report_files.hpp"

namespace vsa {
namespace {

constexpr std::size_t kMaxLabelChars = 120;

namespace fs = std::filesystem;
using nlohmann::json;

std::mutex g_print_mutex;

// Whether `name` is one of the backends `run --add-backend` appended to case `c`.
bool is_added(const CaseSpec& c, const std::string& name) {
  return std::find(c.added_backends.begin(), c.added_backends.end(), name) != c.added_backends.end();
}

// The first op case `c` runs on backend `b` whose shape `b` refuses (the refusal), else yes.
Support shape_support(const Backend& b, const CaseSpec& c) {
  for (Op op : {Op::forward, Op::backward}) {
    if ((op == Op::forward && !runs_forward(c.op)) || (op == Op::backward && !runs_backward(c.op))) continue;
    if (!b.has_op(op)) continue;
    if (Support s = b.supports_shape(c.shape, op); !s.ok) return s;
  }
  return Support::yes();
}

// "this build has: ..." for an unknown backend name.
std::string built_backends(const Registry& registry) {
  std::vector<std::string> built;
  for (const auto& r : registry.all()) built.push_back(r->name());
  return "this build has: " + fmt::format("{}", fmt::join(built, ", "));
}

// Whether `name` is a backend of this build or of any build (one not built here SKIPs later).
bool known_backend(const Registry& registry, const std::string& name) {
  const auto known = known_backend_names();
  return registry.find(name) || std::find(known.begin(), known.end(), name) != known.end();
}

// Whether `listed` (a case's backend, or an alias) is the backend `name` or may become it.
bool names_backend(const std::string& listed, const std::string& name) {
  if (listed == name) return true;
  const auto candidates = alias_candidates(listed);
  return std::find(candidates.begin(), candidates.end(), name) != candidates.end();
}

// A --backends name that no case selected by the suites and --case lists would silently run
// nothing of that backend (a plugin's kernel left out of a comparison without a word).
void check_backend_filter(const RunOptions& o, const std::vector<std::string>& listed) {
  for (const auto& name : o.backends) {
    if (std::find(o.add_backends.begin(), o.add_backends.end(), name) != o.add_backends.end()) continue;
    if (std::any_of(listed.begin(), listed.end(), [&](const std::string& l) { return names_backend(l, name); }))
      continue;
    throw SuiteError("--backends " + name + ": no selected case lists this backend (they list: " +
                     fmt::format("{}", fmt::join(listed, ", ")) + "); --backends only narrows each case's " +
                     "`backends`, --add-backend " + name + " runs it on every selected case");
  }
}

// Suites -> one flat list of cases, names prefixed by their suite, CLI filters applied;
// the suites' plugins after --plugin's.
std::vector<CaseSpec> collect_cases(const RunOptions& o, json& suites_json, std::vector<std::string>& plugins) {
  std::vector<CaseSpec> cases;
  std::vector<std::string> listed;  // the backends the selected cases name, before --backends
  plugins = o.plugins;
  std::map<std::string, std::string> case_source;  // qualified case name -> the suite argument it came from
  for (const auto& name : o.suites) {
    Suite s = load_suite(name);
    suites_json.push_back({{"name", s.name}, {"source", s.source}, {"description", s.description}});
    SuitePlugins found = resolve_suite_plugins(s, name, o.plugins);
    for (const auto& note : found.notes) spdlog::warn("{}", note);
    plugins.insert(plugins.end(), found.load.begin(), found.load.end());
    for (auto& c : s.cases) {
      c.name = qualified_case_name(s, name, c.name);
      // A report's rows, repro --case and --resume find a case by its name: two must not share one.
      if (const auto [it, fresh] = case_source.emplace(c.name, name); !fresh)
        throw SuiteError("case " + c.name + " comes twice (from " + it->second + " and " + name +
                         "): give each suite once, and suites of one name their own names");
      if (!o.cases.empty() && std::none_of(o.cases.begin(), o.cases.end(),
                                           [&](const std::string& f) { return c.name.find(f) != std::string::npos; }))
        continue;
      for (const auto& b : c.backends)
        if (std::find(listed.begin(), listed.end(), b) == listed.end()) listed.push_back(b);
      if (!o.backends.empty()) {
        std::vector<std::string> kept;
        for (const auto& b : c.backends) {
          // An alias stays while one of its backends is asked for; it is narrowed per GPU.
          const bool wanted = std::any_of(o.backends.begin(), o.backends.end(),
                                          [&](const std::string& n) { return names_backend(b, n); });
          if (wanted) kept.push_back(b);
        }
        c.backends = kept;
      }
      // --add-backend: after the suite's own (so a plugin's kernel sits beside ours in the
      // interleaved timing), once per case. The automatic reference is the suite's choice for its
      // own backends: a case of cpu-ref alone is checked against cpu-naive (choose_reference),
      // and stays so with a backend added, rather than turning cpu-ref into the reference.
      if (!o.add_backends.empty() && c.reference == "auto" && !c.backends.empty() &&
          std::all_of(c.backends.begin(), c.backends.end(), [](const std::string& b) { return b == "cpu-ref"; }))
        c.reference = "cpu-naive";
      for (const auto& b : o.add_backends)
        if (std::find(c.backends.begin(), c.backends.end(), b) == c.backends.end()) {
          c.backends.push_back(b);
          c.added_backends.push_back(b);
        }
      if (c.backends.empty()) continue;
      if (o.hang_watch_ms > 0) {
        if (!(o.hang_watch_ms < c.timeout_s * 1000))
          throw SuiteError("--hang-watch-ms " + std::to_string(o.hang_watch_ms) + " is not below " + c.name +
                           "'s timeout_s (" + std::to_string(c.timeout_s) + " s)");
        c.hang_watch_ms = o.hang_watch_ms;
      }
      apply_sampling_overrides(c, o.target_spread, o.time_budget_s);
      if (o.schedules) c.schedules = *o.schedules;
      if (o.schedule_seed) c.schedule_seed = *o.schedule_seed;
      cases.push_back(std::move(c));
    }
  }
  // Cases selected by the suites and --case, before --backends: none at all is the caller's
  // "no case matches"; some, with a --backends name none of them lists, is that name's error.
  if (!listed.empty()) check_backend_filter(o, listed);
  return cases;
}

// The probe point a `probes` key names (the key without its @warps: mask); keys were parsed
// when the suite or --probe was read, so a key that does not parse is returned whole.
std::string probe_point_of(const std::string& key) {
  ProbeKey parsed;
  std::string error;
  return parse_probe_key(key, parsed, error) ? parsed.point : key;
}

// The probe points the built backends among `names` offer; `any_built` says whether any is built.
std::set<std::string> offered_probe_points(const std::vector<std::string>& names, const Registry& registry,
                                           bool& any_built) {
  std::set<std::string> offered;
  for (const auto& name : names)
    if (const Backend* b = registry.find(name)) {
      any_built = true;
      for (const auto& p : b->probe_points()) offered.insert(p);
    }
  return offered;
}

// The first probe key whose point none of `offered` is, or null.
const std::string* unknown_probe(const std::map<std::string, std::uint32_t>& probes,
                                 const std::set<std::string>& offered) {
  for (const auto& [probe, ns] : probes)
    if (!offered.count(probe_point_of(probe))) return &probe;
  return nullptr;
}

// A mistyped probe would run with no delay and PASS: the worst outcome for a race hunt.
// Every probe must be a probe point of one of the case's backends in this build (a
// case whose backends are all left out of this build is SKIPped, its probes unused).
// The suite's own backends only: one added by --add-backend neither makes a mistyped probe of
// the suite's kernels valid nor turns a probe of theirs into an error.
void check_probes(const CaseSpec& c, const Registry& registry) {
  if (c.probes.empty()) return;
  bool any_built = false;
  std::vector<std::string> own;
  for (const auto& b : c.backends)
    if (!is_added(c, b)) own.push_back(b);
  const std::set<std::string> offered = offered_probe_points(own, registry, any_built);
  if (!any_built) return;
  if (const std::string* probe = unknown_probe(c.probes, offered)) {
    const std::string list = fmt::format("{}", fmt::join(offered, ", "));
    throw SuiteError(c.origin + ".probes." + *probe + ": no backend of case \"" + c.name + "\" has this probe point (" +
                     (list.empty() ? std::string("its backends have none") : "known: " + list) +
                     "; --probe applies to every case)");
  }
}

// --probe goes to every case: it must be a probe point of some backend the run has.
void check_cli_probes(const std::map<std::string, std::uint32_t>& probes, const std::vector<CaseSpec>& cases,
                      const Registry& registry) {
  std::set<std::string> offered;
  bool any_built = false;
  for (const auto& c : cases) offered.merge(offered_probe_points(c.backends, registry, any_built));
  if (const std::string* probe = unknown_probe(probes, offered)) {
    const std::string list = fmt::format("{}", fmt::join(offered, ", "));
    throw SuiteError("--probe " + *probe + ": no backend of this run (in this build) has this probe point (" +
                     (list.empty() ? std::string("they have none") : "known: " + list) + ")");
  }
}

// Refuses what no machine could run: unknown backends, shapes a named backend cannot take.
// A backend added to a case by --add-backend (CaseSpec::added_backends) is not refused for a
// shape: it SKIPs the cases it cannot take, with its reason (engine/case_runner.cpp).
void validate_cases(const std::vector<CaseSpec>& cases, const Registry& registry) {
  for (const auto& c : cases) {
    for (std::size_t i = 0; i < c.backends.size(); ++i) {
      const Backend* b = registry.find(c.backends[i]);
      if (!b && known_backend(registry, c.backends[i])) continue;  // not built: SKIP later
      if (!b)
        throw SuiteError(c.origin + ".backends[" + std::to_string(i) + "]: unknown backend \"" + c.backends[i] +
                         "\" (" + built_backends(registry) + ")");
      if (is_added(c, b->name())) continue;
      if (const Support s = shape_support(*b, c); !s.ok)
        throw SuiteError(c.origin + ".backends[" + std::to_string(i) + "]: backend \"" + b->name() +
                         "\" cannot run case \"" + c.name + "\": " + s.reason);
    }
    check_probes(c, registry);
    if (c.reference != "auto" && c.reference != "none" && !registry.find(c.reference))
      throw SuiteError(c.origin + ".reference: unknown backend \"" + c.reference + "\"");
  }
}

struct Discovery {
  std::vector<json> devices;  // worker hello device entries
  std::string note;
  // Backend name -> the images its kernels load from, as the discovery worker found them. An
  // isolated run's supervisor takes them from here and never initialises CUDA itself: on the
  // H200 the cuda-ref backend's question (cudaFuncGetAttributes) left a 518 MiB context of the
  // supervisor on the GPU for the whole run, beside every worker (notes/runs.md, run 49).
  json images = json::object();
  // GPU ordinal (as a string) -> the images of that GPU's own kernels, where the worker could
  // ask it (run/kernel_images.hpp); a report of a GPU records these, not `images`.
  json images_by_device = json::object();
};

Discovery discover_devices(bool isolate, const Registry& registry) {
  Discovery d;
  if (!isolate) {
    const DeviceQuery q = query_devices();
    // The same facts a discovery worker gives (its CUDA half of the fingerprint included).
    for (const auto& dev : q.devices) d.devices.push_back(device_facts(dev));
    d.note = q.note;
    // What a discovery worker answers, asked in this process: `run --no-isolate` initialises CUDA here anyway.
    d.images = registry_images(registry);
    d.images_by_device =
        images_per_capability(q.devices, [&](int ordinal) { return registry_images_on(registry, ordinal); });
    return d;
  }
  WorkerProcess worker({self_executable(), "__worker", "--device", "-1"});
  worker.send({{"op", "hello"}});
  auto reply = worker.receive(120);
  if (!reply || reply->value("event", "") != "hello") {
    d.note = "device discovery worker failed: " + worker.terminate() + " " + worker.stderr_tail();
    return d;
  }
  worker.send({{"op", "exit"}});
  for (const auto& dev : reply->at("devices")) d.devices.push_back(dev);
  d.note = reply->value("note", "");
  if (const auto images = reply->find("images"); images != reply->end() && images->is_object()) d.images = *images;
  if (const auto per = reply->find("images_by_device"); per != reply->end() && per->is_object())
    d.images_by_device = *per;
  return d;
}

std::vector<int> select_targets(const RunOptions& o, const Discovery& d) {
  std::vector<int> all;
  for (const auto& dev : d.devices) all.push_back(dev.at("ordinal").get<int>());
  if (o.devices == "none" || all.empty()) return {-1};
  if (o.devices == "all") return all;
  std::vector<int> chosen;
  std::stringstream ss(o.devices);
  for (std::string item; std::getline(ss, item, ',');) {
    int ordinal = -1;
    try {
      ordinal = std::stoi(item);
    } catch (const std::exception&) {
      throw SuiteError("--devices: \"" + item + "\" is not a device index (use all, none or a list like 0,2)");
    }
    if (std::find(all.begin(), all.end(), ordinal) == all.end())
      throw SuiteError("--devices: no CUDA device " + item + " (found " + std::to_string(all.size()) + ")");
    chosen.push_back(ordinal);
  }
  return chosen;
}

std::string report_path(const RunOptions& o, const json& node, int ordinal) {
  std::string host = node.value("hostname", "host");
  std::string stamp = utc_now_iso8601();
  std::replace(stamp.begin(), stamp.end(), ':', '-');
  // The label is checked in run_suites; the hostname comes from the node and is made a plain name here.
  host = file_name_part(host);
  std::string base = (o.label.empty() ? "" : o.label + "-") + host + "-" +
                     (ordinal >= 0 ? "gpu" + std::to_string(ordinal) : std::string("cpu")) + "-" + stamp;
  // Two runs in the same second with the same --out and --label: the second gets "-2".
  return reserve_new_file((fs::path(o.out_dir) / base).string(), ".json");
}

// Runs cases for one target (a GPU, or the CPU when ordinal is -1) through
// isolated workers; restarts a worker after a fault or hang and re-runs the
// backends the fault kept from running.
// A target's worker: the plain worker command, and the plugins it loads before each case.
std::vector<std::string> target_worker_argv(int ordinal, const std::vector<std::string>& plugins) {
  std::vector<std::string> argv = worker_argv(ordinal);
  for (const auto& a : plugin_worker_args(plugins)) argv.push_back(a);
  return argv;
}

class TargetRun {
 public:
  TargetRun(const RunOptions& o, const std::vector<CaseSpec>& cases, Report& report, std::string path, int ordinal,
            std::size_t total_cases, const std::vector<std::string>& plugins)
      : m_o(o),
        m_cases(cases),
        m_report(report),
        m_path(std::move(path)),
        m_ordinal(ordinal),
        m_total(total_cases),
        m_plugins(plugins),
        m_supervisor(target_worker_argv(ordinal, plugins), ordinal) {}

  void run() {
    std::set<std::string> done;
    for (const auto& c : m_report.cases) done.insert(c.name);
    std::vector<const CaseSpec*> todo;
    for (const auto& spec : m_cases)
      if (!done.count(spec.name)) todo.push_back(&spec);
    m_index = done.size();
    if (m_o.jobs > 1 && m_o.isolate) return run_parallel(todo);
    for (const CaseSpec* spec : todo) finish(m_o.isolate ? m_supervisor.run(*spec) : run_in_process(*spec));
  }

 private:
  // --jobs N (CPU target only, run_suites checks): N threads, each with its own worker
  // (spawned and reaped by that thread: the worker's PR_SET_PDEATHSIG follows the thread,
  // util/process.hpp), take the next case in suite order. Every finished case is written
  // at once, so kill -9 keeps it, and --resume skips it.
  void run_parallel(const std::vector<const CaseSpec*>& todo) {
    std::mutex next_mutex;
    std::size_t next = 0;
    std::string error;
    auto take = [&]() -> const CaseSpec* {
      std::lock_guard lock(next_mutex);
      return next < todo.size() && error.empty() ? todo[next++] : nullptr;
    };
    std::vector<std::thread> threads;
    const std::size_t n = std::min(std::size_t(m_o.jobs), todo.size());
    for (std::size_t j = 0; j < n; ++j)
      threads.emplace_back([&] {
        try {  // nothing may leave a thread (issue 20): the first error stops the dispatch
          WorkerSupervisor supervisor(target_worker_argv(m_ordinal, m_plugins), m_ordinal);
          while (const CaseSpec* spec = take()) finish(supervisor.run(*spec));
        } catch (const std::exception& e) {
          std::lock_guard lock(next_mutex);
          if (error.empty()) error = e.what();
        }
      });
    for (auto& t : threads) t.join();
    if (!error.empty()) throw std::runtime_error(error);
  }

  // One finished case into the report, in the suite's order whatever order the jobs finish
  // in (a serial run and a --jobs run of the same suite list their cases alike), then written.
  void finish(CaseResult result) {
    std::lock_guard lock(m_report_mutex);
    m_report.cases.push_back(result);
    if (m_o.jobs > 1) {
      std::map<std::string, std::size_t> position;
      for (std::size_t i = 0; i < m_cases.size(); ++i) position.emplace(m_cases[i].name, i);
      auto rank = [&](const CaseResult& c) {
        const auto it = position.find(c.name);
        return it == position.end() ? std::size_t(0) : it->second + 1;  // a case of no plan keeps its place first
      };
      std::stable_sort(m_report.cases.begin(), m_report.cases.end(),
                       [&](const CaseResult& a, const CaseResult& b) { return rank(a) < rank(b); });
    }
    m_report.finished_at = utc_now_iso8601();
    save();
    print_progress(++m_index, result);
  }

  CaseResult run_in_process(const CaseSpec& spec) {
    // In-process (debugging, compute-sanitizer) the plugins load here: validated already.
    static const Registry registry = [this] {
      Registry r = make_registry();
      (void)add_plugins(r, m_plugins);
      return r;
    }();
    WorkerContext ctx;
    ctx.registry = &registry;
    for (const auto& d : query_devices().devices)
      if (d.ordinal == m_ordinal) ctx.device = d;
    ctx.sample_clocks = make_clock_sampler(ctx.device);
    return run_case(spec, ctx).result;
  }

  // A report that cannot be written (the out dir went away, the disk is full) must not end
  // the run: the cases go on, each retries the write, and run_suites has the last word.
  void save() {
    try {
      write_report(m_report, m_path);
      m_write_failed = false;
    } catch (const std::exception& e) {
      if (!m_write_failed)
        spdlog::error("{}; the run goes on and the write is tried again after every case", printable(e.what()));
      m_write_failed = true;
    }
  }

  void print_progress(std::size_t index, const CaseResult& r) {
    if (!m_o.progress) return;
    std::lock_guard<std::mutex> lock(g_print_mutex);
    std::fprintf(stderr, "[%zu/%zu] %s %-48s %-5s %.1fs%s%s\n", index, m_total,
                 m_ordinal >= 0 ? ("gpu" + std::to_string(m_ordinal)).c_str() : "cpu", printable(r.name).c_str(),
                 verdict_name(r.verdict).c_str(), r.seconds, r.message.empty() ? "" : "  ",
                 printable(r.message.substr(0, 120)).c_str());
    const std::string timing = timing_note(r);  // not converged, or off-clock passes left out
    if (!timing.empty()) std::fprintf(stderr, "        timing: %s\n", printable(timing).c_str());
  }

  const RunOptions& m_o;
  const std::vector<CaseSpec>& m_cases;
  Report& m_report;
  std::string m_path;
  int m_ordinal;
  std::size_t m_total;
  const std::vector<std::string>& m_plugins;
  WorkerSupervisor m_supervisor;
  bool m_write_failed = false;
  std::mutex m_report_mutex;  // --jobs: finished cases, the report's writes, the progress count
  std::size_t m_index = 0;
};

int exit_code_of(const std::vector<CaseResult>& cases) {
  int code = kExitOk;
  for (const auto& c : cases) {
    if (c.verdict == kFault || c.verdict == kHang) return kExitIncomplete;
    if (c.verdict == kFail) code = kExitCheckFailed;
  }
  return code;
}

// `images`: what the discovery worker found per backend (Discovery::images); a backend it did
// not list (a plugin's, which the discovery worker does not load) answers itself.
json backends_json(const Registry& registry, const json& images) {
  json list = json::array();
  for (const auto& b : registry.all()) {
    const auto found = images.find(b->name());
    list.push_back({{"name", b->name()},
                    {"description", b->description()},
                    {"images", found != images.end() ? *found : json(b->compiled_images())},
                    {"probes", b->probe_points()}});
    if (const std::string plugin = described_plugin_path(*b); !plugin.empty()) list.back()["plugin"] = plugin;
  }
  return list;
}

std::string summary_table(const std::vector<Report>& reports, const std::vector<std::string>& paths) {
  std::ostringstream t;
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %6s %6s %6s %6s %6s %6s  %s\n", "target", "cases", "PASS", "FAIL", "FAULT",
                "HANG", "SKIP", "report");
  t << line;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const auto s = summary_counts(reports[i].cases);
    const std::string target = reports[i].device.is_object()
                                   ? "gpu" + std::to_string(reports[i].device.value("cuda_ordinal", -1))
                                   : std::string("cpu");
    std::snprintf(line, sizeof line, "%-10s %6d %6d %6d %6d %6d %6d  %s\n", target.c_str(), s["cases"].get<int>(),
                  s[verdict_name(kPass)].get<int>(), s[verdict_name(kFail)].get<int>(),
                  s[verdict_name(kFault)].get<int>(), s[verdict_name(kHang)].get<int>(),
                  s[verdict_name(kSkip)].get<int>(), paths[i].c_str());
    t << line;
    for (const auto& c : reports[i].cases)
      for (const auto& b : c.backends)
        if (b.verdict != kPass && b.verdict != kSkip)
          t << "  " << b.verdict << "  " << printable(c.name) << "  " << printable(b.backend) << ": "
            << printable(b.reason.substr(0, 160)) << "\n";
    // Why things were skipped, most common first: a run of SKIPs must say whether that was
    // the missing GPU or a build without the backend.
    std::map<std::string, int> skipped;
    for (const auto& c : reports[i].cases)
      for (const auto& b : c.backends)
        if (b.verdict == kSkip) ++skipped[b.reason.empty() ? std::string("no reason given") : b.reason];
    std::vector<std::pair<std::string, int>> reasons(skipped.begin(), skipped.end());
    std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (std::size_t k = 0; k < reasons.size() && k < 3; ++k)
      t << "  SKIP " << reasons[k].second << " backend(s): " << printable(reasons[k].first.substr(0, 160)) << "\n";
    if (reasons.size() > 3) t << "  SKIP, " << reasons.size() - 3 << " other reasons: see the report\n";
    if (!reports[i].checks.empty()) {
      const auto k = check_counts(reports[i].checks);
      t << "  node checks (docs/qualify.md): PASS " << k[verdict_name(kPass)] << ", FAIL " << k[verdict_name(kFail)]
        << ", SKIP " << k[verdict_name(kSkip)] << "\n";
    }
    for (const auto& k : reports[i].checks)
      if (k.verdict == kFail)
        t << "  FAIL  check " << printable(k.name) << " " << k.code << ": " << printable(k.reason.substr(0, 200))
          << "\n";
  }
  return t.str();
}

// A case whose arrays cannot fit a target GPU is refused before anything runs (exit 2).
void check_device_memory(const std::vector<CaseSpec>& cases, const Registry& registry, const Discovery& d,
                         const std::vector<int>& targets) {
  for (const auto& dev : d.devices) {
    const int ordinal = dev.value("ordinal", -1);
    const double have = dev.value("global_mem", 0.0);
    if (have <= 0 || std::find(targets.begin(), targets.end(), ordinal) == targets.end()) continue;
    for (const auto& c : cases) {
      // A device backend counts where it will run: an added one that refuses the shape SKIPs.
      const bool on_device = std::any_of(c.backends.begin(), c.backends.end(), [&](const std::string& n) {
        const Backend* b = registry.find(n);
        return b && b->memory() == Memory::device && (!is_added(c, n) || shape_support(*b, c).ok);
      });
      const double need = estimate_footprint(c).device_bytes;
      if (on_device && need > have)
        throw SuiteError(c.origin + ": case \"" + c.name + "\" needs an estimated " +
                         fmt::format("{:.3g}", need / 1e9) + " GB of device memory, more than GPU " +
                         std::to_string(ordinal) + "'s " + fmt::format("{:.3g}", have / 1e9) + " GB");
    }
  }
}

// The last write of a report. Where its folder can no longer be written, the report goes
// to the temp folder ($TMPDIR) under the same name and `path` becomes that copy. Returns
// what went wrong, or "".
std::string save_final(const Report& r, std::string& path) {
  try {
    write_report(r, path);
    return "";
  } catch (const std::exception& e) {
    const std::string why = printable(e.what());
    std::error_code ec;
    const fs::path copy = fs::temp_directory_path(ec) / fs::path(path).filename();
    try {
      write_report(r, copy.string());
    } catch (const std::exception& e2) {
      return "not saved: " + path + " (" + why + "), nor " + copy.string() + " (" + printable(e2.what()) +
             "): the results are only in this summary";
    }
    const std::string problem = "not saved where asked: " + path + " (" + why + "); saved as " + copy.string();
    path = copy.string();
    return problem;
  }
}

// The one target a resumed report continues on: its GPU (by UUID) or the CPU; throws
// SuiteError (exit 2) naming what differs when this run is not the report's (run/resume.hpp).
int resume_target(const ReportFile& report, const RunOptions& o, const json& suites, const std::vector<CaseSpec>& cases,
                  const json& node, const Registry& registry, const Discovery& d, const std::vector<int>& targets) {
  ResumingRun run;
  run.suites = suites;
  run.cases = cases;
  run.hostname = node.value("hostname", "");
  run.tool = report_tool_json();
  run.backends = backends_json(registry, d.images);
  run.label = o.label;
  std::vector<int> gpus;
  for (const int t : targets) {
    if (t < 0) continue;
    json facts;
    for (const auto& dev : d.devices)
      if (dev.value("ordinal", -2) == t) facts = dev;
    run.devices.push_back(collect_device_json(t, facts));
    run.device_backends.push_back(backends_json(registry, images_for_target(d.images_by_device, d.images, t)));
    gpus.push_back(t);
  }
  const ResumePlan plan = plan_resume(report, run);
  if (!plan.refusal.empty()) throw SuiteError(plan.refusal);
  return plan.device_index < 0 ? -1 : gpus[std::size_t(plan.device_index)];
}

// --junit, --metrics, --jsonl, --nvbench: written once the reports are final. Each is tried
// whatever happened to the others (a FIFO nobody reads, a full disk), and a failure is returned
// as a line for the summary, so the run still prints its table and report paths and ends with
// exit 4 (kExitIncomplete): the reports are on disk, an export the caller asked for is not.
std::string write_exports(const RunOptions& o, const std::vector<Report>& reports) {
  std::string failed;
  const auto attempt = [&](const char* flag, const std::string& path, const auto& render) {
    if (path.empty()) return;
    try {
      write_file_atomic(path, render());
    } catch (const std::exception& e) {
      failed += fmt::format("{} not written: {}\n", flag, e.what());
    }
  };
  attempt("--junit", o.junit_path, [&] { return render_junit(reports); });
  attempt("--metrics", o.metrics_path, [&] {
    return render_prometheus(
        reports,
        double(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
                   .count()));
  });
  attempt("--jsonl", o.jsonl_path, [&] { return render_jsonl(reports); });
  attempt("--nvbench", o.nvbench_path, [&] { return render_nvbench(reports, report_tool_json()); });
  return failed;
}

GpuEvidence gpu_evidence(const RunOptions& o, const Discovery& d) {
  GpuEvidence e;
  e.cuda_devices = int(d.devices.size());
  e.cuda_note = d.note;
  for (const auto& g : nvidia_pci_gpus(pci_devices_root())) e.pci_gpus.push_back(g.address);
  if (shared_nvml().available()) e.nvml_devices = shared_nvml().device_count();
  e.devices_flag = o.fail_closed_devices.empty() ? o.devices : o.fail_closed_devices;
  e.require_gpu = o.require_gpu;
  e.expect_gpus = o.expect_gpus;
  return e;
}

// A node that should have run on GPUs and cannot: a report that says so (exit 4,
// no cases), so `fleet` counts the node as failed instead of missing or passing.
RunSummary refused_run(const RunOptions& o, const std::string& reason) {
  fs::create_directories(o.out_dir);
  Report r;
  r.started_at = utc_now_iso8601();
  r.argv = o.argv;
  r.label = o.label;
  r.node = collect_node_json(o.label);
  r.device = nullptr;
  r.devices_note = reason;
  r.exit_code = kExitIncomplete;
  r.complete = true;
  r.finished_at = utc_now_iso8601();
  const std::string path = report_path(o, r.node, -1);
  write_report(r, path);
  const std::string export_failures = write_exports(o, {r});
  RunSummary summary;
  summary.exit_code = kExitIncomplete;
  summary.report_paths = {path};
  summary.table = "not run: " + reason + "\nreport: " + path + "\n" + export_failures;
  return summary;
}

}  // namespace

RunSummary run_suites(const RunOptions& o) {
  if (const std::string e = devices_flag_error(o.devices); !e.empty())
    throw SuiteError("--devices " + o.devices + ": " + e);
  GpuEvidence flags;
  flags.devices_flag = o.devices;
  flags.require_gpu = o.require_gpu;
  flags.expect_gpus = o.expect_gpus;
  if (const std::string c = contradicting_gpu_flags(flags); !c.empty()) throw SuiteError(c);
  check_output_dir("--out", o.out_dir);
  // An export may go into --out, which the run makes before it writes.
  check_output_file("--junit", o.junit_path, directly_in(o.junit_path, o.out_dir));
  check_output_file("--metrics", o.metrics_path, directly_in(o.metrics_path, o.out_dir));
  check_output_file("--jsonl", o.jsonl_path, directly_in(o.jsonl_path, o.out_dir));
  check_output_file("--nvbench", o.nvbench_path, directly_in(o.nvbench_path, o.out_dir));
  const std::vector<std::pair<std::string_view, std::string>> exports = {{"--junit", o.junit_path},
                                                                         {"--metrics", o.metrics_path},
                                                                         {"--jsonl", o.jsonl_path},
                                                                         {"--nvbench", o.nvbench_path}};
  check_distinct_outputs(exports);
  check_outputs_are_not_dir(exports, "--out", o.out_dir);
  std::vector<std::pair<std::string_view, std::string>> inputs = {{"--floors", o.floors_path}, {"--resume", o.resume}};
  const std::vector<std::string> builtin = builtin_suite_names();
  for (const auto& suite : o.suites)  // a built-in name is read from the binary (load_suite), even where a file has it
    if (std::find(builtin.begin(), builtin.end(), suite) == builtin.end()) inputs.emplace_back("suite file", suite);
  for (const auto& plugin : o.plugins) inputs.emplace_back("--plugin", plugin);
  check_outputs_spare_inputs(exports, inputs);
  json suites_json = json::array();
  std::vector<std::string> plugin_paths;
  std::vector<CaseSpec> cases = collect_cases(o, suites_json, plugin_paths);
  if (cases.empty()) throw SuiteError("no case matches the given suites and filters");
  // No CUDA calls: names and shapes only; plugin backends as a worker described them.
  const PluginInspection plugins = inspect_plugins(plugin_paths, shape_questions(cases));
  Registry registry = make_registry();
  add_described_backends(registry, plugins);
  // --add-backend names are checked as the option, not as the suite entry they were appended to.
  for (const auto& name : o.add_backends)
    if (!known_backend(registry, name))
      throw SuiteError("--add-backend " + name + ": unknown backend (" + built_backends(registry) +
                       "; a plugin's backends need its --plugin)");
  // Aliases ("@fast") are resolved per GPU after discovery; checked here as every backend they may become.
  std::vector<CaseSpec> checked = cases;
  expand_backend_aliases_for_validation(checked, registry);
  validate_cases(checked, registry);
  check_cli_probes(o.probes, checked, registry);
  const NodeQualification qualification(o);
  for (auto& c : cases)
    for (const auto& [probe, ns] : o.probes) c.probes[probe] = ns;

  std::optional<ReportFile> resumed;
  if (!o.resume.empty()) {
    try {
      resumed = load_report_file(o.resume);
    } catch (const ReportFileError& e) {
      throw SuiteError(std::string("--resume: ") + e.what());
    }
  }

  // A CPU-only run hides the GPUs from itself and its workers: they need none, and the report's
  // backend list would otherwise open one in the supervisor (cuda-ref asks the driver which image
  // it loaded once it sees a device), a context beside any GPU run on the node.
  if (o.devices == "none") setenv("CUDA_VISIBLE_DEVICES", "", 1);
  // NVML opened before discovery keeps the driver's hold on the GPUs from discovery to the idle
  // reading (qualify/idle_utilization.hpp): without persistence mode, a GPU left by its last
  // client is torn down and brought up again, which can read as busy (ECC scrubbing).
  if (qualification.enabled()) (void)shared_nvml();
  const Discovery discovery =
      o.devices == "none" ? Discovery{{}, "--devices none"} : discover_devices(o.isolate, registry);
  if (!o.label.empty() && file_name_part(o.label) != o.label)
    throw SuiteError("--label \"" + printable(o.label) +
                     "\": use letters, digits, '.', '_' and '-' only, not starting with '.' (it names report files "
                     "inside --out)");
  // A report's file name is LABEL-HOST-gpuN-TIMESTAMP.json, within a file system's 255 bytes
  // for any host name (at most 64).
  if (o.label.size() > kMaxLabelChars)
    throw SuiteError(fmt::format("--label: {} characters, at most {} (it names report files inside --out)",
                                 o.label.size(), kMaxLabelChars));
  RunSummary summary;
  const std::string refusal = o.fail_closed ? fail_closed_reason(gpu_evidence(o, discovery)) : std::string();
  if (!refusal.empty()) return refused_run(o, refusal);
  std::vector<int> targets = select_targets(o, discovery);
  // A resumed report keeps its label (and its argv and start, below).
  const std::string label = resumed && o.label.empty() ? resumed->report.label : o.label;
  const json node = collect_node_json(label);
  if (resumed) targets = {resume_target(*resumed, o, suites_json, cases, node, registry, discovery, targets)};
  check_device_memory(checked, registry, discovery, targets);
  if (o.jobs > 1 && !o.isolate)
    throw SuiteError("--jobs " + std::to_string(o.jobs) + " runs cases in parallel workers: drop --no-isolate");
  if (o.jobs > 1 && targets.front() >= 0)
    throw SuiteError("--jobs " + std::to_string(o.jobs) +
                     " runs CPU cases in parallel workers; cases on a GPU run one at a time (they would time each "
                     "other): add --devices none");
  fs::create_directories(o.out_dir);
  std::vector<std::string> planned;
  for (const auto& c : cases) planned.push_back(c.name);
  std::vector<Report> reports(targets.size());
  std::vector<std::string> paths(targets.size());
  std::vector<std::vector<CaseSpec>> target_cases(targets.size());
  std::vector<std::unique_ptr<HealthMonitor>> monitors(targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    Report& r = reports[i];
    if (resumed && i == 0) {
      r = resumed->report;
      // A sanitize annotation covered the cases run under compute-sanitizer; the cases this run
      // adds are not, so the finished report must not claim it (sanitize annotates afresh).
      r.sanitizer = nullptr;
      paths[i] = o.resume;
      r.resumed.push_back({{"argv", o.argv}, {"started_at", utc_now_iso8601()}});
    } else {
      paths[i] = report_path(o, node, targets[i]);
      r.started_at = utc_now_iso8601();
      r.argv = o.argv;
      r.label = label;
    }
    r.planned_cases = planned;
    r.node = node;
    r.suites = suites_json;
    r.backends = backends_json(registry, images_for_target(discovery.images_by_device, discovery.images, targets[i]));
    r.plugins = plugins.plugins;
    r.probes = o.probes;
    r.complete = false;
    // What the file says until the run ends and sets the real code: a run cut short (a signal,
    // a killed job) leaves a report that reads as incomplete by its exit code too, not 0.
    r.exit_code = kExitIncomplete;
    json facts;
    if (targets[i] >= 0) {
      for (const auto& d : discovery.devices)
        if (d.value("ordinal", -2) == targets[i]) facts = d;
      r.device = collect_device_json(targets[i], facts);
    } else {
      r.device = nullptr;
      r.devices_note = discovery.note.empty() ? json("CPU-only run (--devices none)") : json(discovery.note);
    }
    target_cases[i] = cases_for_target(cases, facts, registry, o, r);
    monitors[i] = qualification.start_monitor(facts);
    write_report(r, paths[i]);
  }
  // From here a Ctrl-C or SIGTERM says where the finished cases are and how to go on.
  const InterruptNotice interrupt_notice(paths);
  std::vector<std::string> target_errors(targets.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < targets.size(); ++i)
    threads.emplace_back([&, i] {
      // Nothing may leave a target's thread: std::terminate would end the run, every target's
      // report unfinished (issue 20). The cases this target did not reach are simply missing.
      try {
        TargetRun(o, target_cases[i], reports[i], paths[i], targets[i], cases.size(), plugins.paths).run();
      } catch (const std::exception& e) {
        target_errors[i] = printable(e.what());
      }
    });
  for (auto& t : threads) t.join();
  // Each target's workers ended with its TargetRun: from here no process of this run launches a kernel.
  const auto workers_ended = std::chrono::steady_clock::now();

  int code = kExitOk;
  std::string problems;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    Report& r = reports[i];
    r.exit_code = exit_code_of(r.cases);
    qualification.finish(r, monitors[i].get(), workers_ended);
    r.complete = target_errors[i].empty();  // else `fleet` counts it INCOMPLETE
    if (!r.complete) {
      r.exit_code = kExitIncomplete;
      problems += "stopped: " + paths[i] + ": " + target_errors[i] + "\n";
    }
    r.finished_at = utc_now_iso8601();
    if (const std::string problem = save_final(r, paths[i]); !problem.empty()) {
      r.exit_code = kExitIncomplete;
      problems += problem + "\n";
    }
    code = std::max(code, r.exit_code);
  }
  const std::string export_failures = write_exports(o, reports);
  summary.exit_code = export_failures.empty() ? code : std::max<int>(code, kExitIncomplete);
  summary.report_paths = paths;
  summary.table = summary_table(reports, paths) + problems + export_failures;
  if (targets.front() < 0)
    summary.table += "no GPU: GPU backends were skipped (" +
                     (discovery.note.empty() ? std::string("--devices none") : discovery.note) + ")\n";
  return summary;
}

}  // namespace vsa
