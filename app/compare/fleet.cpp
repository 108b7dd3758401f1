#include "compare/fleet.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/exit_codes.hpp"
#include "report/sanitizer_finding.hpp"
#include "util/json_lookup.hpp"

namespace vsa {

namespace {

constexpr std::size_t kReasonChars = 160;

bool is_failure(Verdict verdict) { return verdict == kFail || verdict == kFault || verdict == kHang; }

FleetNode node_of(const ReportFile& file) {
  FleetNode node;
  node.path = file.path;
  node.who = identity_of(file.report);
  node.scheduler_host = scheduler_host_of(file.report);
  node.config = config_key_of(file);
  for (const Verdict v : {kPass, kFail, kFault, kHang, kSkip}) node.counts[verdict_name(v)] = 0;
  Verdict worst = kSkip;
  for (const auto& c : file.report.cases) {
    ++node.counts[verdict_name(c.verdict)];
    if (verdict_severity(c.verdict) > verdict_severity(worst)) worst = c.verdict;
    if (c.backends.empty() && is_failure(c.verdict))
      node.problems.push_back(c.name + ": " + verdict_name(c.verdict) + " " + c.message.substr(0, kReasonChars));
    for (const auto& b : c.backends)
      if (is_failure(b.verdict))
        node.problems.push_back(c.name + " " + b.backend + ": " + verdict_name(b.verdict) + " " +
                                b.reason.substr(0, kReasonChars));
  }
  // Node checks (speed floor, clock hold, health gates): a FAIL fails the GPU like a case.
  for (const auto& k : file.report.checks) {
    if (verdict_severity(k.verdict) > verdict_severity(worst)) worst = k.verdict;
    if (k.verdict == kFail)
      node.problems.push_back("check " + k.name + ": FAIL " + k.code + " " + k.reason.substr(0, kReasonChars));
  }
  // compute-sanitizer's findings (`vsa-bench sanitize` annotates the report after the run, whose
  // own verdicts are the cases'): memory errors or race hazards fail the GPU, as they fail sanitize.
  if (const std::string found = sanitizer_finding(file.report.sanitizer); !found.empty()) {
    if (verdict_severity(kFail) > verdict_severity(worst)) worst = kFail;
    node.problems.push_back(found.substr(0, kReasonChars));
  }
  node.verdict = file.report.complete ? verdict_name(worst) : kIncomplete;
  // A run that refused to start (its GPUs unusable) has no cases, only its exit code and reason.
  if (file.report.exit_code == kExitIncomplete && node.verdict != verdict_name(kFault) &&
      node.verdict != verdict_name(kHang)) {
    node.verdict = kIncomplete;
    // Only a run that refused to start: an interrupted one (exit code 4 until it finishes) ran cases.
    if (file.report.devices_note.is_string() && file.report.complete && file.report.cases.empty())
      node.problems.push_back("not run: " + file.report.devices_note.get<std::string>().substr(0, kReasonChars));
  }
  return node;
}

// The problem as a group counts it: without the free-text reason.
std::vector<std::string> problem_keys(const ReportFile& file) {
  std::set<std::string> keys;
  for (const auto& c : file.report.cases) {
    if (c.backends.empty() && is_failure(c.verdict)) keys.insert(c.name + " " + verdict_name(c.verdict));
    for (const auto& b : c.backends)
      if (is_failure(b.verdict)) keys.insert(c.name + " " + b.backend + " " + verdict_name(b.verdict));
  }
  for (const auto& k : file.report.checks)
    if (k.verdict == kFail) keys.insert("check " + k.kind + " " + k.code);
  if (!sanitizer_finding(file.report.sanitizer).empty())
    keys.insert("compute-sanitizer " + json_value_or(file.report.sanitizer, "tool", "?"));
  return {keys.begin(), keys.end()};
}

// "lse form differs across GPUs: own form x -7.84 on 2, M format on 3; ...", or "" when every
// sample has the same form.
std::string lse_form_note(const std::vector<FleetSample>& samples) {
  std::map<std::optional<double>, int> forms;
  for (const auto& s : samples) ++forms[s.lse_factor];
  if (forms.size() < 2) return "";
  std::vector<std::string> parts;
  for (const auto& [factor, n] : forms)
    parts.push_back((factor ? "own form x " + fmt::format("{:.6g}", *factor) : std::string("M format")) + " on " +
                    std::to_string(n));
  return "lse form differs across GPUs: " + fmt::format("{}", fmt::join(parts, ", ")) +
         "; a conversion may be inside the timed call on some";
}

// Per row: "" or why it stands apart from rows of the same case, op, backend and GPU model
// ("timed as sustained, fixed passes, not pooled with P3": rows numbered from 1, as the Markdown's
// P1, P2, ...).
std::vector<std::string> not_pooled_notes(const std::vector<FleetPerfRow>& rows) {
  std::vector<std::string> notes(rows.size());
  for (std::size_t a = 0; a < rows.size(); ++a) {
    std::vector<std::string> why;
    for (std::size_t b = 0; b < rows.size(); ++b) {
      const FleetPerfRow &x = rows[a], &y = rows[b];
      if (a == b || x.case_name != y.case_name || x.op != y.op || x.backend != y.backend || x.gpu_name != y.gpu_name)
        continue;
      why.push_back((x.method != y.method ? "timed as " + x.method : std::string("another spec of the case")) +
                    ", not pooled with P" + std::to_string(b + 1));
    }
    notes[a] = fmt::format("{}", fmt::join(why, "; "));
  }
  return notes;
}

std::vector<FleetPerfRow> perf_rows(const std::vector<ReportFile>& reports, std::vector<FleetNode>& nodes,
                                    const FleetOptions& options) {
  // Figures of one problem timed one way are pooled: another timing method puts the card in
  // another clock state (notes/runs.md, run 32: the same kernel 7-9% apart), another spec is
  // another problem; pooled, either would make outliers of good GPUs.
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;
  std::map<Key, std::size_t> index;
  std::vector<FleetPerfRow> rows;
  for (std::size_t n = 0; n < reports.size(); ++n)
    for (const auto& s : perf_samples(reports[n].report)) {
      const Key key{s.case_name, s.op, s.backend, nodes[n].who.gpu_name, s.method, s.question};
      auto it = index.find(key);
      if (it == index.end()) {
        it = index.emplace(key, rows.size()).first;
        rows.push_back(
            FleetPerfRow{s.case_name, s.op, s.backend, nodes[n].who.gpu_name, {}, false, {}, {}, s.method, s.question});
      }
      rows[it->second].samples.push_back({n, s.tflops, s.spread, 1, Outlier::none, s.lse_factor});
    }
  const std::vector<std::string> apart = not_pooled_notes(rows);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    FleetPerfRow& row = rows[r];
    row.note = lse_form_note(row.samples);
    if (!apart[r].empty()) row.note += (row.note.empty() ? "" : "; ") + apart[r];
    std::vector<double> tflops;
    for (const auto& s : row.samples) tflops.push_back(s.tflops);
    row.stats = quartiles(tflops);
    row.fences = row.samples.size() >= kMinSamplesForFences;
    if (row.samples.size() < 2) continue;
    // Too few GPUs for fences (two or three): the median is the midpoint of two, or with three
    // it is a slow GPU itself when two of them are slow. Reviews of 2026-12-06: {400, 336} and
    // {400, 336, 336} passed `--gate` with GPUs 16% behind. Each is judged against the fastest
    // instead, which shows what the model can do; whether a slow one is drained is decided
    // below, where so few GPUs are weighed.
    Quartiles judged_against = row.stats;
    if (!row.fences) {
      judged_against.median = *std::max_element(tflops.begin(), tflops.end());
      row.note += std::string(row.note.empty() ? "" : "; ") + "fewer than " + std::to_string(kMinSamplesForFences) +
                  " GPUs: ratios and outliers against the fastest";
    }
    std::size_t slow_in_row = 0;
    for (auto& s : row.samples) {
      s.ratio = s.tflops / judged_against.median;
      s.outlier = classify_sample(s.tflops, s.spread, judged_against, row.fences, options.outlier_threshold,
                                  options.min_effect);
      if (s.outlier == Outlier::slow || s.outlier == Outlier::low_fence) ++slow_in_row;
    }
    // Draining acts on what the fleet can pin: slow GPUs that the rest outnumber. Those that are
    // not (one of two, two of three, half of {450, 450, 300, 300}) may equally mean the others
    // measured fast: {450, 400, 400} drained two nodes on one report's word (reviews of
    // 2026-12-06). They stay outliers (`--gate` exits 3, someone looks; the speed floors judge
    // each node alone), but `--failed-hosts` leaves them out.
    const bool drainable = 2 * slow_in_row < row.samples.size();
    if (!drainable)
      row.note += std::string(row.note.empty() ? "" : "; ") + std::to_string(slow_in_row) + " of " +
                  std::to_string(row.samples.size()) +
                  " GPUs slow: outliers for --gate, not drained (so few GPUs cannot tell which side is off)";
    for (const auto& s : row.samples) {
      FleetNode& node = nodes[s.node];
      if (s.outlier != Outlier::none) ++node.outliers;
      if (drainable && (s.outlier == Outlier::slow || s.outlier == Outlier::low_fence)) ++node.slow;
      if (!node.worst_ratio || s.ratio < *node.worst_ratio) node.worst_ratio = s.ratio;
    }
  }
  return rows;
}

std::vector<std::string> key_values(const ConfigKey& k) {
  return {k.driver, k.gsp_firmware, k.vbios, k.toolkit, k.plugins};
}
const std::vector<std::string>& key_titles() {
  static const std::vector<std::string> titles = {"driver", "GSP firmware", "VBIOS", "CUDA toolkit", "plugins"};
  return titles;
}

ConfigGrouping group_nodes(const std::vector<ReportFile>& reports, const std::vector<FleetNode>& nodes,
                           std::vector<std::string> fields,
                           const std::function<std::vector<std::string>(const FleetNode&)>& values_of) {
  ConfigGrouping grouping;
  grouping.fields = std::move(fields);
  std::map<std::vector<std::string>, std::size_t> index;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const auto values = values_of(nodes[n]);
    auto it = index.find(values);
    if (it == index.end()) {
      it = index.emplace(values, grouping.groups.size()).first;
      grouping.groups.push_back(ConfigGroup{values, {}, {}, {}});
    }
    ConfigGroup& group = grouping.groups[it->second];
    group.nodes.push_back(n);
    ++group.verdicts[nodes[n].verdict];
    for (const auto& problem : problem_keys(reports[n])) ++group.problem_cases[problem];
  }
  return grouping;
}

}  // namespace

const std::string& FleetNode::path_of_case(const std::string& name, const std::string& backend) const {
  if (const auto it = case_paths.find(name + "\t" + backend); !backend.empty() && it != case_paths.end())
    return it->second;
  const auto it = case_paths.find(name);
  return it == case_paths.end() ? path : it->second;
}

bool FleetNode::failed() const { return verdict == kIncomplete || is_failure(verdict_from_string(verdict)); }

namespace {

// An outlier's Markdown words and its JSON token (docs/schema/fleet.schema.json), in one place.
struct OutlierNames {
  const char* words;
  const char* token;
};
OutlierNames names_of(Outlier outlier) {
  switch (outlier) {
    case Outlier::slow:
      return {"slow", "slow"};
    case Outlier::low_fence:
      return {"below IQR fence", "low_fence"};
    case Outlier::high_fence:
      return {"above IQR fence", "high_fence"};
    case Outlier::none:
      break;
  }
  return {"", ""};
}

}  // namespace

const char* outlier_name(Outlier outlier) { return names_of(outlier).words; }
const char* outlier_token(Outlier outlier) { return names_of(outlier).token; }

Outlier classify_sample(double tflops, double spread, const Quartiles& stats, bool with_fences, double threshold,
                        double min_effect) {
  if (tflops < stats.median * (1 - threshold)) return Outlier::slow;
  if (!with_fences) return Outlier::none;
  // Beyond the fence by more than its own noise (its figure could lie anywhere within its spread),
  // and beyond the least effect worth a look from the median.
  const double noise = tflops * spread, effect = stats.median * min_effect;
  if (tflops + noise < stats.low_fence() && stats.median - tflops > effect) return Outlier::low_fence;
  if (tflops - noise > stats.high_fence() && tflops - stats.median > effect) return Outlier::high_fence;
  return Outlier::none;
}

std::string fleet_gpu_name(const ReportIdentity& who) {
  if (who.uuid.empty()) return short_name(who);
  return join_nonempty({who.label, who.hostname, who.uuid, who.mig_uuid});
}

std::string scheduler_host_of(const Report& r) {
  if (r.node.is_object()) {
    const auto launcher = r.node.find("launcher");
    if (launcher != r.node.end() && json_value_or(*launcher, "kind", "") == "slurm") {
      const auto name = launcher->find("node_name");
      if (name != launcher->end() && name->is_string() && !name->get<std::string>().empty())
        return name->get<std::string>();
    }
  }
  return identity_of(r).hostname;
}

namespace {
bool is_host_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-';
  });
}
bool to_drain(const FleetNode& n) { return (n.failed() || n.slow > 0) && !n.scheduler_host.empty(); }
}  // namespace

std::vector<std::string> Fleet::failed_hosts() const {
  std::set<std::string> hosts;
  for (const auto& n : nodes)
    if (to_drain(n) && is_host_name(n.scheduler_host)) hosts.insert(n.scheduler_host);
  return {hosts.begin(), hosts.end()};
}

std::vector<std::string> Fleet::hosts_not_listable() const {
  std::vector<std::string> out;
  for (const auto& n : nodes)
    if (to_drain(n) && !is_host_name(n.scheduler_host)) out.push_back(n.path + ": " + n.scheduler_host);
  return out;
}

int Fleet::failed_nodes() const {
  return int(std::count_if(nodes.begin(), nodes.end(), [](const FleetNode& n) { return n.failed(); }));
}

int Fleet::outliers() const {
  int count = 0;
  for (const auto& n : nodes) count += n.outliers;
  return count;
}

int Fleet::exit_code(bool gate) const {
  if (failed_nodes() > 0) return kExitCheckFailed;
  if (gate && outliers() > 0) return kExitRegression;
  return kExitOk;
}

std::string gpu_uuid_of(const Report& r) { return device_uuid_of(r.device); }

// The suites a report ran, as one text ("correctness+perf"): a re-run is the same suites
// again on the same GPU; a different suite on that GPU is a different question.
std::string suites_of(const Report& r) {
  std::vector<std::string> names;
  if (r.suites.is_array())
    for (const auto& s : r.suites)
      if (s.is_object() && s.contains("name") && s["name"].is_string()) names.push_back(s["name"].get<std::string>());
  return fmt::format("{}", fmt::join(names, "+"));
}

// The compute-sanitizer tool a report ran under (`vsa-bench sanitize`), "" for none: a racecheck
// run is no re-run of a memcheck one, whatever its cases.
std::string sanitizer_tool_of(const Report& r) { return json_value_or(r.sanitizer, "tool", ""); }

// The cases a report set out to run: its planned list, else the cases it holds.
std::set<std::string> case_set_of(const Report& r) {
  if (!r.planned_cases.empty()) return {r.planned_cases.begin(), r.planned_cases.end()};
  std::set<std::string> names;
  for (const auto& c : r.cases) names.insert(c.name);
  return names;
}

// The backends each finished case ran ("case\tbackend"): a re-run with fewer --backends keeps
// every case name, and must not cover the backends it left out.
std::set<std::string> case_backends_of(const Report& r) {
  std::set<std::string> pairs;
  for (const auto& c : r.cases)
    for (const auto& b : c.backends) pairs.insert(c.name + "\t" + b.backend);
  return pairs;
}

// Each finished case's question (report_fields.hpp, question_spec), as text: a re-run may change
// the seed, a tolerance or a timeout and still re-run the case.
std::map<std::string, std::string> specs_of(const Report& r) {
  std::map<std::string, std::string> specs;
  for (const auto& c : r.cases) specs.emplace(c.name, question_spec(c).dump());
  return specs;
}

// Whether two reports asked the same question wherever they share a case: two suite files of one
// suite name (bursts and sustained passes, say) are two questions, neither a re-run of the other.
bool same_specs(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b) {
  for (const auto& [name, spec] : a)
    if (const auto it = b.find(name); it != b.end() && it->second != spec) return false;
  return true;
}

// What a report asked, taken once per report for the pairwise coverage test below.
struct Questions {
  std::set<std::string> cases;               // case_set_of
  std::map<std::string, std::string> specs;  // specs_of: its finished cases
  std::set<std::string> ran;                 // case_backends_of
};
Questions questions_of(const Report& r) { return {case_set_of(r), specs_of(r), case_backends_of(r)}; }

// Whether report `newer` answers every question `older` asked: all of its cases, with the same
// specs, and of each case both ran, all of its backends. A case `newer` planned but did not
// finish is its own INCOMPLETE.
bool covers(const Questions& newer, const Questions& older) {
  if (!std::includes(newer.cases.begin(), newer.cases.end(), older.cases.begin(), older.cases.end())) return false;
  if (!same_specs(newer.specs, older.specs)) return false;
  for (const auto& pair : older.ran)
    if (newer.specs.count(pair.substr(0, pair.find('\t'))) && !newer.ran.count(pair)) return false;
  return true;
}

// When a report was made, for "newer": when it finished, else when it started.
const std::string& when(const Report& r) { return r.finished_at.empty() ? r.started_at : r.finished_at; }

// One report per GPU UUID (a MIG instance's, under MIG) and suite set: a node re-run after a
// repair counts once. A report gives way only to a newer one (by when it finished, else
// started) of the same GPU and suites that covers all of its cases and their backends, so a
// narrower re-run (`run --case X`, `--backends Y`) cannot hide a failed GPU; an identical copy gives way to the first.
// Reports without a UUID (CPU-only, NVML missing) are all kept.
std::vector<ReportFile> newest_per_gpu(const std::vector<ReportFile>& all, std::vector<std::string>& superseded) {
  auto key_of = [](const Report& r) {
    const std::string uuid = gpu_uuid_of(r);
    return uuid.empty() ? uuid : uuid + "\n" + suites_of(r) + "\n" + sanitizer_tool_of(r);
  };
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (const std::string key = key_of(all[i].report); !key.empty()) groups[key].push_back(i);
  std::vector<std::string> why(all.size());
  for (const auto& [key, members] : groups) {
    std::vector<Questions> asked;
    for (const std::size_t i : members) asked.push_back(questions_of(all[i].report));
    for (std::size_t a = 0; a < members.size(); ++a) {
      std::optional<std::size_t> by;
      for (std::size_t b = 0; b < members.size(); ++b) {
        if (a == b || !covers(asked[b], asked[a])) continue;
        const std::string wa = when(all[members[a]].report), wb = when(all[members[b]].report);
        const bool newer = wb > wa, same_run = wb == wa && asked[b].cases == asked[a].cases && b < a;
        if ((newer || same_run) && (!by || wb > when(all[members[*by]].report))) by = b;
      }
      if (!by) continue;
      const Report& r = all[members[a]].report;
      const bool same = when(all[members[*by]].report) == when(r);
      why[members[a]] = all[members[a]].path + " (GPU " + gpu_uuid_of(r) + ", suites " + suites_of(r) +
                        (same ? ": the same run as " : ": a newer report of its cases is ") + all[members[*by]].path +
                        ")";
    }
  }
  std::vector<ReportFile> kept;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (why[i].empty())
      kept.push_back(all[i]);
    else
      superseded.push_back(why[i]);
  }
  return kept;
}

// A GPU's reports that no other supersedes, as one node: a narrower re-run beside the run it
// re-ran part of. Each case comes from the newest report with a verdict for it (a SKIP is no
// result: it does not replace an older FAIL), and its floor and clock-hold checks with it.
// Health checks (Xid, remapped rows, exclusivity, throttle ...) describe a run, not a case: the
// newest run's stand, and an older run's FAIL stays beside them until a report covering all of
// that run's cases replaces it.
struct MergedReport {
  ReportFile file;
  std::vector<FleetNode::MergedFrom> merged_from;
  std::map<std::string, std::string> case_paths;  // case -> the older report it came from
};

// The case a floor or clock-hold check judged, among `cases`; "" when none. Reports written before
// NodeCheck::case_name say it only in the name ("floor CASE BACKEND OP"): the longest case name
// that starts it.
std::string case_of_check(const NodeCheck& k, const std::map<std::string, std::size_t>& cases) {
  if (!k.case_name.empty()) return cases.count(k.case_name) ? k.case_name : "";
  const std::string prefix = k.kind + " ";
  if (k.name.rfind(prefix, 0) != 0) return "";
  const std::string rest = k.name.substr(prefix.size());
  std::string best;
  for (const auto& [name, source] : cases)
    if (rest.rfind(name + " ", 0) == 0 && name.size() > best.size()) best = name;
  return best;
}

using BackendSources = std::map<std::pair<std::string, std::string>, std::size_t>;  // (case, backend) -> report

// Case `c`, chosen from report `r`, with each backend's result from the report `sources` names
// for it: an older run's result of a backend the re-run left out (or SKIPped) is put back, and
// the case's verdict is its backends' again. What each older report lends goes to `lent`.
CaseResult with_backends_from(const CaseResult& c, std::size_t r, const std::vector<ReportFile>& reports,
                              const BackendSources& sources, MergedReport& merged,
                              std::map<std::size_t, std::vector<std::string>>& lent) {
  const auto result_in = [&](std::size_t report, const std::string& backend) -> const BackendResult* {
    for (const auto& other : reports[report].report.cases)
      if (other.name == c.name)
        for (const auto& b : other.backends)
          if (b.backend == backend) return &b;
    return nullptr;
  };
  CaseResult out = c;
  bool changed = false;
  for (auto it = sources.lower_bound({c.name, ""}); it != sources.end() && it->first.first == c.name; ++it) {
    const auto& [key, report] = *it;
    if (report == r) continue;
    const BackendResult* older = result_in(report, key.second);
    if (older == nullptr) continue;
    const auto mine = std::find_if(out.backends.begin(), out.backends.end(),
                                   [&](const BackendResult& b) { return b.backend == key.second; });
    if (mine == out.backends.end())
      out.backends.push_back(*older);
    else
      *mine = *older;
    changed = true;
    lent[report].push_back(c.name + " " + key.second);
    merged.case_paths[c.name + "\t" + key.second] = reports[report].path;
  }
  if (changed) {
    const Verdict chosen = out.verdict;
    aggregate_verdict(out);
    if (chosen != kSkip && verdict_severity(chosen) > verdict_severity(out.verdict)) out.verdict = chosen;
  }
  return out;
}

MergedReport merge_newest_first(const std::vector<ReportFile>& reports) {
  struct Source {
    std::size_t report;
    Verdict verdict;
  };
  std::map<std::string, Source> chosen;  // case -> the report (newest first) whose result counts
  for (std::size_t r = 0; r < reports.size(); ++r)
    for (const auto& c : reports[r].report.cases) {
      const auto [it, fresh] = chosen.emplace(c.name, Source{r, c.verdict});
      if (!fresh && it->second.verdict == kSkip && c.verdict != kSkip) it->second = {r, c.verdict};
    }
  std::map<std::string, std::size_t> source;
  for (const auto& [name, from] : chosen) source.emplace(name, from.report);
  // Within a case, each backend's result from the newest report with one (a SKIP is no result
  // either): a re-run with fewer --backends leaves an older run's result of the others standing.
  BackendSources backend_source;
  for (std::size_t r = 0; r < reports.size(); ++r)
    for (const auto& c : reports[r].report.cases)
      for (const auto& b : c.backends)
        if (b.verdict != kSkip) backend_source.emplace(std::pair{c.name, b.backend}, r);
  // The report a timing check's result came from: its backend's, where the check names one.
  const auto source_of_check = [&](const NodeCheck& k, const std::string& judged) {
    const auto it = backend_source.find({judged, k.backend});
    return k.backend.empty() || it == backend_source.end() ? source.at(judged) : it->second;
  };
  MergedReport merged{reports.front(), {}, {}};
  std::map<std::size_t, std::vector<std::string>> lent;  // older report -> "case backend" it lends
  Report& into = merged.file.report;
  into.cases.clear();
  into.checks.clear();
  std::set<std::string> planned;
  into.planned_cases.clear();
  for (std::size_t r = 0; r < reports.size(); ++r) {
    const Report& from_report = reports[r].report;
    FleetNode::MergedFrom from{reports[r].path, {}, {}};
    for (const auto& c : from_report.cases)
      if (source.at(c.name) == r) {  // case names are unique in a report (run refuses duplicates)
        into.cases.push_back(with_backends_from(c, r, reports, backend_source, merged, lent));
        if (r > 0) {
          from.cases.push_back(c.name);
          merged.case_paths[c.name] = reports[r].path;
        }
      }
    for (const auto& k : from_report.checks) {
      const std::string judged = judges_a_timing(k) ? case_of_check(k, source) : "";
      if (!judged.empty()) {
        if (source_of_check(k, judged) != r) continue;
        into.checks.push_back(k);
      } else if (r == 0) {
        into.checks.push_back(k);
        continue;
      } else if (k.verdict == kFail) {
        into.checks.push_back(k);
        into.checks.back().name += " (" + reports[r].path + ")";
      } else {
        continue;
      }
      if (r > 0) from.checks.push_back(k.name);
    }
    for (const auto& name : from_report.planned_cases)
      if (planned.insert(name).second) into.planned_cases.push_back(name);
    // compute-sanitizer's finding describes a run, as a health check does: an older run's stays
    // until a report covering all of its cases replaces it.
    if (r > 0 && sanitizer_finding(into.sanitizer).empty() && !sanitizer_finding(from_report.sanitizer).empty()) {
      into.sanitizer = from_report.sanitizer;
      from.checks.push_back("compute-sanitizer " + sanitizer_tool_of(from_report));
    }
    // Lent to a newer report's case by the time r is reached: r is older than every case that borrows.
    for (auto& pair : lent[r]) from.cases.push_back(std::move(pair));
    if (r > 0) merged.merged_from.push_back(std::move(from));
  }
  return merged;
}

// Only finished runs that ran cases merge: an interrupted one is resumed (`run --resume`) or run
// again, and one that refused to start says so on its own row.
bool mergeable(const Report& r) { return r.complete && !r.cases.empty(); }

// In the order the inputs were read: each node where its first report came.
std::vector<MergedReport> merge_reruns(const std::vector<ReportFile>& kept) {
  // Same GPU, suites and configuration, and the same vsa-bench build: its kernels are under test too.
  // Within those, only reports that asked the same question wherever they share a case
  // (same_specs): a report joins the first node whose every member it agrees with.
  using Key = std::tuple<std::string, std::string, ConfigKey, std::string>;
  std::map<Key, std::vector<std::size_t>> nodes_of_key;
  std::vector<std::vector<std::size_t>> nodes;  // kept indices per node, in first-read order
  std::vector<std::map<std::string, std::string>> specs(kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const std::string uuid = gpu_uuid_of(kept[i].report);
    if (uuid.empty() || !mergeable(kept[i].report)) {  // every such report is its own node
      nodes.push_back({i});
      continue;
    }
    specs[i] = specs_of(kept[i].report);
    const Key key{uuid, suites_of(kept[i].report) + "\n" + sanitizer_tool_of(kept[i].report), config_key_of(kept[i]),
                  json_value_or(kept[i].tool, "git_sha", "")};
    auto& candidates = nodes_of_key[key];
    const auto agrees = [&](std::size_t node) {
      return std::all_of(nodes[node].begin(), nodes[node].end(),
                         [&](std::size_t member) { return same_specs(specs[member], specs[i]); });
    };
    const auto found = std::find_if(candidates.begin(), candidates.end(), agrees);
    if (found != candidates.end()) {
      nodes[*found].push_back(i);
    } else {
      candidates.push_back(nodes.size());
      nodes.push_back({i});
    }
  }
  std::vector<MergedReport> out;
  for (auto& members : nodes) {
    std::stable_sort(members.begin(), members.end(),
                     [&](std::size_t a, std::size_t b) { return when(kept[a].report) > when(kept[b].report); });
    std::vector<ReportFile> newest_first;
    for (const std::size_t i : members) newest_first.push_back(kept[i]);
    out.push_back(merge_newest_first(newest_first));
  }
  return out;
}

Fleet analyse_fleet(const std::vector<ReportFile>& all_reports, const FleetOptions& options) {
  if (all_reports.empty()) throw std::invalid_argument("no reports to read as a fleet");
  Fleet fleet;
  fleet.options = options;
  std::vector<ReportFile> reports;
  for (auto& merged : merge_reruns(newest_per_gpu(all_reports, fleet.superseded))) {
    fleet.nodes.push_back(node_of(merged.file));
    fleet.nodes.back().merged_from = std::move(merged.merged_from);
    fleet.nodes.back().case_paths = std::move(merged.case_paths);
    reports.push_back(std::move(merged.file));
  }
  fleet.perf = perf_rows(reports, fleet.nodes, options);
  fleet.by_config =
      group_nodes(reports, fleet.nodes, key_titles(), [](const FleetNode& n) { return key_values(n.config); });
  // Each varying field alone, when more than one varies (with one, by_config says it all).
  std::vector<std::size_t> varying;
  for (std::size_t field = 0; field < key_titles().size(); ++field) {
    std::set<std::string> distinct;
    for (const auto& n : fleet.nodes) distinct.insert(key_values(n.config)[field]);
    if (distinct.size() > 1) varying.push_back(field);
  }
  if (varying.size() < 2) return fleet;
  for (const std::size_t field : varying)
    fleet.by_field.push_back(group_nodes(reports, fleet.nodes, {key_titles()[field]}, [field](const FleetNode& n) {
      return std::vector<std::string>{key_values(n.config)[field]};
    }));
  return fleet;
}

}  // namespace vsa
