#include "compare/compare.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "model/exit_codes.hpp"
#include "report/markdown_table.hpp"

namespace vsa {

namespace {

// Rows keyed by K, in the order keys are first seen; each row has one slot per report.
template <typename K, typename Row>
class OrderedRows {
 public:
  template <typename Make>
  Row& at(const K& key, Make&& make) {
    const auto it = m_index.find(key);
    if (it != m_index.end()) return m_rows[it->second];
    m_index.emplace(key, m_rows.size());
    m_rows.push_back(make());
    return m_rows.back();
  }
  std::vector<Row> take() { return std::move(m_rows); }

 private:
  std::map<K, std::size_t> m_index;
  std::vector<Row> m_rows;
};

std::vector<ConfigRow> config_rows(const std::vector<ReportFile>& reports) {
  const std::size_t n = reports.size();
  OrderedRows<std::string, ConfigRow> rows;
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& value : configuration_of(reports[i]))
      rows.at(value.key,
              [&] {
                return ConfigRow{value.key, value.title, value.identity, std::vector<std::string>(n), false};
              })
          .values[i] = value.value;
  std::vector<ConfigRow> all = rows.take(), kept;
  for (auto& row : all) {
    const bool known =
        std::any_of(row.values.begin(), row.values.end(), [](const std::string& v) { return !v.empty(); });
    if (!known) continue;
    row.differs = std::adjacent_find(row.values.begin(), row.values.end(), std::not_equal_to<>()) != row.values.end();
    kept.push_back(std::move(row));
  }
  return kept;
}

std::vector<VerdictRow> verdict_rows(const std::vector<ReportFile>& reports) {
  const std::size_t n = reports.size();
  using Key = std::pair<std::string, std::string>;
  OrderedRows<Key, VerdictRow> rows;
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& c : reports[i].report.cases) {
      auto row = [&](const std::string& backend) -> VerdictRow& {
        return rows.at({c.name, backend}, [&] {
          return VerdictRow{c.name, backend, std::vector<std::optional<VerdictCell>>(n), false};
        });
      };
      if (c.backends.empty()) row("").cells[i] = VerdictCell{verdict_name(c.verdict), c.message, std::nullopt};
      for (const auto& b : c.backends)
        row(b.backend).cells[i] = VerdictCell{verdict_name(b.verdict), b.reason, worst_error(b)};
    }
  std::vector<VerdictRow> all = rows.take();
  for (auto& row : all) {
    std::set<std::string> seen;
    for (const auto& cell : row.cells) seen.insert(cell ? cell->verdict : "");
    row.differs = seen.size() > 1;
  }
  return all;
}

const CaseResult* find_case(const Report& report, const std::string& name) {
  for (const auto& c : report.cases)
    if (c.name == name) return &c;
  return nullptr;
}

// A backend whose lse form differs between the two reports (Backend::lse_factor,
// docs/plugins.md): a plugin that converted its lse inside the timed call in one and
// declared its form in the other. The ratio stands, with the reason it may move.
std::string lse_form_note(const CaseResult* base, const CaseResult* now, const std::string& backend) {
  auto factor = [&](const CaseResult* c) -> std::optional<double> {
    if (c)
      for (const auto& b : c->backends)
        if (b.backend == backend) return b.lse_factor;
    return std::nullopt;
  };
  const std::optional<double> a = factor(base), b = factor(now);
  if (a == b) return "";
  auto form = [](const std::optional<double>& f) { return f ? "own form x " + format_number(*f) : "M format"; };
  return "lse form differs: " + form(a) + " (baseline), " + form(b) +
         "; a conversion may have moved into or out of the timed call";
}

std::vector<PerfRow> perf_rows(const std::vector<ReportFile>& reports, const CompareOptions& options) {
  const std::size_t n = reports.size();
  using Key = std::tuple<std::string, std::string, std::string>;
  OrderedRows<Key, PerfRow> rows;
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& s : perf_samples(reports[i].report))
      rows.at({s.case_name, s.op, s.backend},
              [&] {
                return PerfRow{s.case_name,
                               s.op,
                               s.backend,
                               std::vector<std::optional<PerfCell>>(n),
                               std::vector<std::optional<double>>(n),
                               std::vector<std::string>(n),
                               std::vector<bool>(n, false),
                               std::vector<bool>(n, false)};
              })
          .cells[i] = PerfCell{s.tflops, s.spread, s.clocks, s.passes, s.method, s.shared};
  std::vector<PerfRow> all = rows.take();
  const Report& base_report = reports[options.baseline].report;
  for (auto& row : all) {
    const auto& base = row.cells[options.baseline];
    if (!base) continue;
    const CaseResult* base_case = find_case(base_report, row.case_name);
    for (std::size_t i = 0; i < n; ++i) {
      if (!row.cells[i]) continue;
      const CaseResult* this_case = find_case(reports[i].report, row.case_name);
      if (base_case && this_case && comparable_spec(*base_case) != comparable_spec(*this_case)) {
        row.notes[i] = "spec differs";
        continue;
      }
      // Two timing methods put the card in two clock states (notes/runs.md run 32: the same
      // kernel 7-9% apart): no ratio, and the gate counts it as data it could not compare.
      if (row.cells[i]->method != base->method) {
        row.notes[i] = "timed differently: " + base->method + " (baseline), " + row.cells[i]->method;
        continue;
      }
      row.ratios[i] = row.cells[i]->tflops / base->tflops;
      row.notes[i] = lse_form_note(base_case, this_case, row.backend);
    }
  }
  return all;
}

// Why report `i` has no cell where the baseline has one.
std::string missing_why(const Report& report, const PerfRow& row, const std::string& note) {
  if (!note.empty()) return note;
  const CaseResult* c = find_case(report, row.case_name);
  if (!c) return "case not in the report";
  for (const auto& b : c->backends)
    if (b.backend == row.backend)
      return "no timing (verdict " + verdict_name(b.verdict) + (b.reason.empty() ? "" : ": " + b.reason) + ")";
  return "backend not in the case";
}

std::vector<MissingTiming> missing_timings(const std::vector<ReportFile>& reports, const std::vector<PerfRow>& rows,
                                           std::size_t baseline) {
  std::vector<MissingTiming> missing;
  bool baseline_timed = false;
  for (const auto& row : rows) {
    if (!row.cells[baseline]) continue;
    baseline_timed = true;
    for (std::size_t i = 0; i < reports.size(); ++i)
      if (i != baseline && !row.ratios[i])
        missing.push_back({i, row.case_name, row.op, row.backend, missing_why(reports[i].report, row, row.notes[i])});
  }
  if (!baseline_timed) missing.push_back({baseline, "", "", "", "the baseline has no timing to gate on"});
  return missing;
}

// The backend a case's others are measured against (see SpeedupRow).
std::string speedup_base(const CaseResult& c, const std::map<std::string, double>& timed) {
  if (timed.count(c.reference)) return c.reference;
  if (timed.count("cuda-ref")) return "cuda-ref";
  std::string last;
  for (const auto& b : c.backends)
    if (timed.count(b.backend)) last = b.backend;
  return last;
}

std::vector<SpeedupRow> speedup_rows(const std::vector<ReportFile>& reports) {
  const std::size_t n = reports.size();
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  OrderedRows<Key, SpeedupRow> rows;
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& c : reports[i].report.cases)
      for (const char* op : {"fwd", "bwd"}) {
        std::map<std::string, double> timed;
        for (const auto& b : c.backends)
          for (const auto& t : b.timings)
            if (t.op == op && t.tflops > 0) timed[b.backend] = t.tflops;
        if (timed.size() < 2) continue;
        const std::string versus = speedup_base(c, timed);
        for (const auto& b : c.backends) {
          if (b.backend == versus || !timed.count(b.backend)) continue;
          rows.at({c.name, op, b.backend, versus},
                  [&] {
                    return SpeedupRow{c.name, op, b.backend, versus, std::vector<std::optional<double>>(n)};
                  })
              .speedups[i] = timed[b.backend] / timed[versus];
        }
      }
  return rows.take();
}

}  // namespace

bool is_regression(const PerfCell& base, const PerfCell& now, double threshold) {
  const double gap = base.tflops - now.tflops;
  const double noise = base.tflops * base.spread + now.tflops * now.spread;
  return now.tflops < base.tflops * (1 - threshold) && gap > noise;
}

// The noise a drop of exactly the threshold would have to beat, over the baseline: the
// baseline's spread plus the report's at the TFLOPS such a drop leaves (base x (1 - t)). Taken
// at the threshold, not at the report's own TFLOPS: a report that got faster carries a larger
// spread in TFLOPS, but that says nothing about whether a drop of the threshold could be seen.
double noise_at_threshold_drop(const PerfCell& base, const PerfCell& now, double threshold) {
  return base.spread + (1 - threshold) * now.spread;
}

std::string too_noisy_to_gate(const PerfCell& base, const PerfCell& now, double threshold) {
  for (const auto* cell : {&base, &now})
    if (cell->passes == 1)
      return std::string(cell == &base ? "baseline" : "this report") + ": 1 pass, its spread is unmeasured";
  const double noise = noise_at_threshold_drop(base, now, threshold);
  if (noise < threshold) return "";
  return "spreads " + format_percent(base.spread) + " (baseline) + " + format_percent(now.spread) +
         " make a noise allowance of " + format_percent(noise) + ", not below the " + format_percent(threshold) +
         " threshold";
}

GateCall gate_call(const PerfCell& base, const PerfCell& now, double threshold) {
  // Another process time-sliced the GPU with a side: its figure says nothing about the kernel,
  // however small its spread (a neighbour slows every pass alike).
  for (const auto* cell : {&base, &now})
    if (!cell->shared.empty())
      return {false, std::string(cell == &base ? "baseline" : "this report") + ": " + cell->shared};
  if (is_regression(base, now, threshold)) return {true, ""};
  return {false, too_noisy_to_gate(base, now, threshold)};
}

double TooNoisy::noise() const { return noise_at_threshold_drop(base, now, threshold); }

std::vector<std::string> Comparison::config_differences() const {
  std::vector<std::string> titles;
  for (const auto& row : config)
    if (row.differs && !row.identity) titles.push_back(row.title);
  return titles;
}

int Comparison::exit_code() const {
  if (!options.gate) return kExitOk;
  if (!regressions.empty()) return kExitRegression;
  return missing.empty() && too_noisy.empty() ? kExitOk : kExitIncomplete;
}

Comparison compare_reports(const std::vector<ReportFile>& reports, const CompareOptions& options) {
  if (reports.size() < 2) throw std::invalid_argument("compare needs at least two reports");
  if (options.baseline >= reports.size()) throw std::invalid_argument("baseline index out of range");
  Comparison cmp;
  cmp.options = options;
  for (const auto& r : reports) {
    cmp.paths.push_back(r.path);
    cmp.who.push_back(identity_of(r.report));
    cmp.finished_at.push_back(r.report.complete ? r.report.finished_at : "incomplete (run interrupted)");
  }
  cmp.config = config_rows(reports);
  cmp.verdicts = verdict_rows(reports);
  cmp.perf = perf_rows(reports, options);
  cmp.speedups = speedup_rows(reports);
  if (options.gate) cmp.missing = missing_timings(reports, cmp.perf, options.baseline);
  if (options.gate)
    for (auto& row : cmp.perf)
      for (std::size_t i = 0; i < reports.size(); ++i) {
        if (i == options.baseline || !row.ratios[i]) continue;
        const PerfCell& base = *row.cells[options.baseline];
        const PerfCell& now = *row.cells[i];
        const GateCall call = gate_call(base, now, options.threshold);
        if (call.regressed) {
          row.regressed[i] = true;
          cmp.regressions.push_back({i, row.case_name, row.op, row.backend, base, now});
        } else if (!call.too_noisy.empty()) {
          row.too_noisy[i] = true;
          cmp.too_noisy.push_back(
              {i, row.case_name, row.op, row.backend, base, now, call.too_noisy, options.threshold});
        }
      }
  return cmp;
}

}  // namespace vsa
