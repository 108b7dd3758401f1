// Markdown and JSON renderings of a Comparison (compare/compare.hpp).
#include <sstream>

#include "compare/compare.hpp"
#include "report/markdown_table.hpp"

namespace vsa {

namespace {

constexpr const char* kDiffers = "≠";
constexpr const char* kAbsent = "-";

std::string or_unknown(const std::string& value) { return value.empty() ? kAbsent : value; }

std::string verdict_text(const std::optional<VerdictCell>& cell) {
  if (!cell) return kAbsent;
  if (!cell->worst) return cell->verdict;
  return cell->verdict + " (" + cell->worst->tensor + " " + format_number(cell->worst->rel_max, 2) + ")";
}

// The clock goes with the number: an A/B whose runs sat at different clocks (one under
// a power cap) shows it in the same cell.
std::string perf_text(const std::optional<PerfCell>& cell) {
  if (!cell) return kAbsent;
  std::string text = format_number(cell->tflops) +
                     (cell->passes == 1 ? std::string(" (1 pass)") : " ±" + format_percent(cell->spread));
  if (!cell->clocks.empty()) text += " " + cell->clocks;
  return text;
}

std::string ratio_text(const PerfRow& row, std::size_t i) {
  if (!row.ratios[i]) return row.notes[i].empty() ? kAbsent : row.notes[i];
  const std::string ratio = format_number(*row.ratios[i], 3);
  const std::string note = row.notes[i].empty() ? "" : " (" + row.notes[i] + ")";
  if (row.regressed[i]) return "**" + ratio + " regression**" + note;
  return (row.too_noisy[i] ? "**" + ratio + " too noisy to gate**" : ratio) + note;
}

std::vector<std::size_t> others(const Comparison& c) {
  std::vector<std::size_t> list;
  for (std::size_t i = 0; i < c.paths.size(); ++i)
    if (i != c.options.baseline) list.push_back(i);
  return list;
}

std::string legend(const Comparison& c) {
  MarkdownTable t({"column", "report", "GPU", "finished", "file"});
  for (std::size_t i = 0; i < c.paths.size(); ++i)
    t.add_row({column_id(i) + (i == c.options.baseline ? " (baseline)" : ""), or_unknown(short_name(c.who[i])),
               or_unknown(c.who[i].gpu_name), or_unknown(c.finished_at[i]), c.paths[i]});
  return t.str();
}

std::string configuration(const Comparison& c) {
  std::ostringstream out;
  const auto differences = c.config_differences();
  if (differences.empty()) {
    out << "No configuration difference (identity fields such as host and UUID aside).\n\n";
  } else {
    out << "Differs (" << kDiffers << "):";
    for (std::size_t i = 0; i < differences.size(); ++i) out << (i ? ", " : " ") << differences[i];
    out << ".\n\n";
  }
  std::vector<std::string> header = {"", "field"};
  for (std::size_t i = 0; i < c.paths.size(); ++i) header.push_back(column_id(i));
  MarkdownTable t(header);
  for (const auto& row : c.config) {
    std::vector<std::string> cells = {row.differs && !row.identity ? kDiffers : "", row.title};
    for (const auto& v : row.values) cells.push_back(or_unknown(v));
    t.add_row(cells);
  }
  out << t.str();
  return out.str();
}

std::string results(const Comparison& c) {
  std::vector<std::string> header = {"", "case", "backend"};
  for (std::size_t i = 0; i < c.paths.size(); ++i) header.push_back(column_id(i));
  MarkdownTable t(header);
  for (const auto& row : c.verdicts) {
    std::vector<std::string> cells = {row.differs ? kDiffers : "", row.case_name, row.backend};
    for (const auto& cell : row.cells) cells.push_back(verdict_text(cell));
    t.add_row(cells);
  }
  return "Verdict per backend, with the worst rel_max over its outputs.\n\n" + t.str();
}

std::string performance(const Comparison& c) {
  if (c.perf.empty()) return "No timed cases in these reports.\n";
  const std::string base = column_id(c.options.baseline);
  std::vector<std::string> header = {"case", "op", "backend"};
  for (std::size_t i = 0; i < c.paths.size(); ++i) header.push_back(column_id(i) + " TFLOPS");
  for (const auto i : others(c)) header.push_back(column_id(i) + "/" + base);
  MarkdownTable t(header);
  for (const auto& row : c.perf) {
    std::vector<std::string> cells = {row.case_name, row.op, row.backend};
    for (const auto& cell : row.cells) cells.push_back(perf_text(cell));
    for (const auto i : others(c)) cells.push_back(ratio_text(row, i));
    t.add_row(cells);
  }
  return "Median of pass medians ± spread (the width of the median's 95% interval, relative: max - min over up to 8 "
         "passes); ratio > 1 is faster than " +
         base + ".\n\n" + t.str();
}

std::string speedups(const Comparison& c) {
  if (c.speedups.empty()) return "No case timed two backends.\n";
  std::vector<std::string> header = {"case", "op", "backend", "vs"};
  for (std::size_t i = 0; i < c.paths.size(); ++i) header.push_back(column_id(i));
  MarkdownTable t(header);
  for (const auto& row : c.speedups) {
    std::vector<std::string> cells = {row.case_name, row.op, row.backend, row.versus};
    for (const auto& s : row.speedups) cells.push_back(s ? format_number(*s, 3) + "x" : kAbsent);
    t.add_row(cells);
  }
  return t.str();
}

// The exit code missing or noisy figures give: 4, or 3 where a regression was found as well.
std::string exit_words(const Comparison& c) { return c.regressions.empty() ? "exit 4" : "exit 3: a regression below"; }

std::string gate(const Comparison& c) {
  std::ostringstream out;
  out << "Baseline " << column_id(c.options.baseline) << "; a regression is a TFLOPS drop of more than "
      << format_percent(c.options.threshold) << " that also exceeds both runs' spreads added up. ";
  if (!c.missing.empty()) {
    out << "Missing data, the gate fails (" << exit_words(c) << "): " << c.missing.size() << " baseline timing"
        << (c.missing.size() == 1 ? "" : "s") << " without a counterpart.\n\n";
    MarkdownTable t({"case", "op", "backend", "report", "why"});
    for (const auto& m : c.missing) t.add_row({m.case_name, m.op, m.backend, column_id(m.report), m.why});
    out << t.str() << "\n";
  }
  if (!c.too_noisy.empty()) {
    out << "Too noisy to gate, the gate fails (" << exit_words(c) << ", " << kCodeTooNoisy
        << "): " << c.too_noisy.size() << " timing" << (c.too_noisy.size() == 1 ? "" : "s")
        << " whose spreads add up to the threshold or more, so a drop of the threshold would pass as noise (time "
           "them again with a tighter `run --target-spread` or a longer `--timing-budget`), or that ran beside "
           "another process's CUDA context (`why` says so; time them again with the GPU to itself).\n\n";
    MarkdownTable t({"case", "op", "backend", "report", "baseline TFLOPS", "TFLOPS", "noise", "why"});
    for (const auto& n : c.too_noisy)
      t.add_row({n.case_name, n.op, n.backend, column_id(n.report), perf_text(n.base), perf_text(n.now),
                 format_percent(n.noise()), n.why});
    out << t.str() << "\n";
  }
  if (c.regressions.empty()) {
    out << (c.missing.empty() && c.too_noisy.empty() ? "No regression.\n"
                                                     : "No regression among the timings the gate could judge.\n");
    return out.str();
  }
  out << c.regressions.size() << (c.regressions.size() == 1 ? " regression" : " regressions") << " (exit 3):\n\n";
  MarkdownTable t({"case", "op", "backend", "report", "baseline TFLOPS", "TFLOPS", "change"});
  for (const auto& r : c.regressions)
    t.add_row({r.case_name, r.op, r.backend, column_id(r.report), perf_text(r.base), perf_text(r.now),
               format_percent(r.change())});
  out << t.str();
  return out.str();
}

// A cell's state under the gate: null with the gate off or where the report lacks the
// timing, "baseline", "regressed", "too_noisy", "missing" (no comparable ratio), "ok".
nlohmann::json gate_state(const Comparison& c, const PerfRow& row, std::size_t i) {
  if (!c.options.gate || !row.cells[i]) return nullptr;
  if (i == c.options.baseline) return "baseline";
  if (!row.cells[c.options.baseline]) return nullptr;
  if (row.regressed[i]) return "regressed";
  if (row.too_noisy[i]) return "too_noisy";
  return row.ratios[i] ? "ok" : "missing";
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

}  // namespace

std::string render_markdown(const Comparison& c) {
  std::ostringstream md;
  md << "# vsa-bench compare\n\n" << legend(c) << "\n## Configuration\n\n" << configuration(c);
  md << "\n## Results\n\n" << results(c) << "\n## Performance\n\n" << performance(c);
  md << "\n## Backend speedups within each report\n\n" << speedups(c);
  if (c.options.gate) md << "\n## Regression gate\n\n" << gate(c);
  return md.str();
}

nlohmann::json to_json(const Comparison& c) {
  using json = nlohmann::json;
  json reports = json::array();
  for (std::size_t i = 0; i < c.paths.size(); ++i)
    reports.push_back({{"column", column_id(i)},
                       {"path", c.paths[i]},
                       {"label", c.who[i].label},
                       {"hostname", c.who[i].hostname},
                       {"gpu", c.who[i].gpu_name},
                       {"gpu_index", c.who[i].gpu_index},
                       {"finished_at", c.finished_at[i]}});
  json config = json::array();
  for (const auto& row : c.config)
    config.push_back({{"key", row.key},
                      {"title", row.title},
                      {"identity", row.identity},
                      {"values", row.values},
                      {"differs", row.differs}});
  json verdicts = json::array();
  for (const auto& row : c.verdicts) {
    json cells = json::array();
    for (const auto& cell : row.cells) {
      if (!cell) {
        cells.push_back(nullptr);
        continue;
      }
      json j = {
          {"verdict", cell->verdict}, {"reason", cell->reason}, {"worst_tensor", nullptr}, {"worst_rel_max", nullptr}};
      if (cell->worst) {
        j["worst_tensor"] = cell->worst->tensor;
        j["worst_rel_max"] = cell->worst->rel_max;
      }
      cells.push_back(j);
    }
    verdicts.push_back({{"case", row.case_name}, {"backend", row.backend}, {"cells", cells}, {"differs", row.differs}});
  }
  json perf = json::array();
  for (const auto& row : c.perf) {
    json tflops = json::array(), spread = json::array(), clocks = json::array(), ratios = json::array(),
         states = json::array();
    for (std::size_t i = 0; i < row.cells.size(); ++i) {
      states.push_back(gate_state(c, row, i));
      tflops.push_back(row.cells[i] ? json(row.cells[i]->tflops) : json());
      spread.push_back(row.cells[i] ? json(row.cells[i]->spread) : json());
      clocks.push_back(row.cells[i] && !row.cells[i]->clocks.empty() ? json(row.cells[i]->clocks) : json());
      ratios.push_back(optional_json(row.ratios[i]));
    }
    perf.push_back({{"case", row.case_name},
                    {"op", row.op},
                    {"backend", row.backend},
                    {"tflops", tflops},
                    {"spread", spread},
                    {"clocks", clocks},  // "at 1590-1620 MHz, sw_power_cap" or null
                    {"ratio_to_baseline", ratios},
                    {"notes", row.notes},
                    {"regressed", row.regressed},
                    {"too_noisy", row.too_noisy},
                    {"gate_state", states}});
  }
  json speedups = json::array();
  for (const auto& row : c.speedups) {
    json values = json::array();
    for (const auto& s : row.speedups) values.push_back(optional_json(s));
    speedups.push_back({{"case", row.case_name},
                        {"op", row.op},
                        {"backend", row.backend},
                        {"versus", row.versus},
                        {"speedup", values}});
  }
  json regressions = json::array();
  for (const auto& r : c.regressions)
    regressions.push_back({{"case", r.case_name},
                           {"op", r.op},
                           {"backend", r.backend},
                           {"column", column_id(r.report)},
                           {"path", c.paths[r.report]},
                           {"baseline_tflops", r.base.tflops},
                           {"baseline_spread", r.base.spread},
                           {"tflops", r.now.tflops},
                           {"spread", r.now.spread},
                           {"change", r.change()}});
  json too_noisy = json::array();
  for (const auto& n : c.too_noisy)
    too_noisy.push_back({{"case", n.case_name},
                         {"op", n.op},
                         {"backend", n.backend},
                         {"column", column_id(n.report)},
                         {"path", c.paths[n.report]},
                         {"code", kCodeTooNoisy},
                         {"baseline_tflops", n.base.tflops},
                         {"baseline_spread", n.base.spread},
                         {"tflops", n.now.tflops},
                         {"spread", n.now.spread},
                         {"noise", n.noise()},
                         {"why", n.why}});
  json missing = json::array();
  for (const auto& m : c.missing)
    missing.push_back({{"case", m.case_name},
                       {"op", m.op},
                       {"backend", m.backend},
                       {"column", column_id(m.report)},
                       {"path", c.paths[m.report]},
                       {"why", m.why}});
  return {{"schema", "vsa-bench/compare"},
          {"schema_version", 1},
          {"reports", reports},
          {"baseline", column_id(c.options.baseline)},
          {"configuration", config},
          {"config_differences", c.config_differences()},
          {"results", verdicts},
          {"performance", perf},
          {"speedups", speedups},
          {"gate",
           {{"enabled", c.options.gate},
            {"threshold", c.options.threshold},
            {"regressions", regressions},
            {"too_noisy", too_noisy},
            {"missing", missing}}},
          {"exit_code", c.exit_code()}};
}

}  // namespace vsa
