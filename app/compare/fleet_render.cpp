// Markdown and JSON renderings of a Fleet (compare/fleet.hpp).
#include <algorithm>
#include <cstddef>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compare/fleet.hpp"
#include "report/markdown_table.hpp"

namespace vsa {

namespace {

constexpr const char* kAbsent = "-";

std::string or_unknown(const std::string& value) { return value.empty() ? kAbsent : value; }

std::string node_name(const FleetNode& node) { return or_unknown(fleet_gpu_name(node.who)); }

std::string perf_id(std::size_t row) {
  std::string id = "P";
  id += std::to_string(row + 1);
  return id;
}

std::string count_of(const std::map<std::string, int>& counts, const std::string& key) {
  const auto it = counts.find(key);
  return std::to_string(it == counts.end() ? 0 : it->second);
}

std::string headline(const Fleet& f) {
  std::set<std::string> hosts;
  for (const auto& n : f.nodes) hosts.insert(n.who.hostname);
  std::ostringstream out;
  std::size_t merged = 0;
  for (const auto& n : f.nodes) merged += n.merged_from.size();
  const std::size_t read = f.nodes.size() + merged + f.superseded.size();
  out << read << (read == 1 ? " report" : " reports") << " from " << hosts.size()
      << (hosts.size() == 1 ? " host" : " hosts");
  if (read != f.nodes.size()) out << " read as " << f.nodes.size() << (f.nodes.size() == 1 ? " GPU" : " GPUs");
  out << "; GPUs by verdict:";
  for (const std::string& v : {verdict_name(kPass), verdict_name(kSkip), verdict_name(kFail), verdict_name(kFault),
                               verdict_name(kHang), std::string(kIncomplete)}) {
    const auto n =
        std::count_if(f.nodes.begin(), f.nodes.end(), [v](const FleetNode& node) { return node.verdict == v; });
    out << " " << v << " " << n << (v == kIncomplete ? "" : ",");
  }
  out << "; " << f.failed_nodes() << " failed. " << f.outliers() << " performance outliers (slower than "
      << format_percent(1 - f.options.outlier_threshold)
      << " of the fleet median (of the fastest, in a row of two or three GPUs), or outside the IQR fences beyond their "
         "own "
         "spread and "
      << format_percent(f.options.min_effect) << " of the median).\n";
  for (const auto& s : f.skipped) out << "\nSkipped " << s << "\n";
  for (const auto& s : f.superseded) out << "\nSuperseded " << s << "\n";
  return out.str();
}

// "cases a, b; checks c" (or "nothing ..." when newer reports hold all of its results), names cut at a few.
std::string merged_text(const FleetNode::MergedFrom& m) {
  static constexpr std::size_t kNames = 6;
  auto names = [](const std::vector<std::string>& all) {
    std::vector<std::string> shown(all.begin(), all.begin() + std::ptrdiff_t(std::min(all.size(), kNames)));
    std::string text = fmt::format("{}", fmt::join(shown, ", "));
    return all.size() > kNames ? text + fmt::format(" and {} more", all.size() - kNames) : text;
  };
  std::vector<std::string> parts;
  if (!m.cases.empty()) parts.push_back("cases " + names(m.cases));
  if (!m.checks.empty()) parts.push_back("checks " + names(m.checks));
  return parts.empty() ? "nothing (newer reports hold all of its results)" : fmt::format("{}", fmt::join(parts, "; "));
}

std::string nodes_table(const Fleet& f) {
  MarkdownTable t({"GPU", "model", "PCI", "verdict", "PASS", "FAIL", "FAULT", "HANG", "SKIP", "worst perf ratio",
                   "outliers", "driver", "VBIOS", "file"});
  for (const auto& n : f.nodes)
    t.add_row({node_name(n), or_unknown(n.who.gpu_name), or_unknown(n.who.pci_bus_id), n.verdict,
               count_of(n.counts, verdict_name(kPass)), count_of(n.counts, verdict_name(kFail)),
               count_of(n.counts, verdict_name(kFault)), count_of(n.counts, verdict_name(kHang)),
               count_of(n.counts, verdict_name(kSkip)), n.worst_ratio ? format_number(*n.worst_ratio, 3) : kAbsent,
               std::to_string(n.outliers), or_unknown(n.config.driver), or_unknown(n.config.vbios),
               n.merged_from.empty() ? n.path : fmt::format("{} (+ {} earlier)", n.path, n.merged_from.size())});
  std::ostringstream out;
  out << t.str();
  bool any = false;
  for (const auto& n : f.nodes)
    for (const auto& p : n.problems) {
      if (!any) out << "\nProblems:\n\n";
      any = true;
      out << "- " << node_name(n) << ": " << p << "\n";
    }
  for (const auto& n : f.nodes)
    for (const auto& m : n.merged_from)
      out << "\nMerged " << node_name(n) << ": " << n.path << " (newest) with, from " << m.path << ", "
          << merged_text(m) << "\n";
  return out.str();
}

std::string grouping_table(const ConfigGrouping& g) {
  std::vector<std::string> header = g.fields;
  for (const char* h : {"GPUs", "PASS", "FAIL", "FAULT", "HANG", "INCOMPLETE", "SKIP", "problem cases (GPUs)"})
    header.push_back(h);
  MarkdownTable t(header);
  for (const auto& group : g.groups) {
    std::vector<std::string> cells;
    for (const auto& v : group.values) cells.push_back(or_unknown(v));
    cells.push_back(std::to_string(group.nodes.size()));
    for (const std::string& v : {verdict_name(kPass), verdict_name(kFail), verdict_name(kFault), verdict_name(kHang),
                                 std::string(kIncomplete), verdict_name(kSkip)})
      cells.push_back(count_of(group.verdicts, v));
    std::vector<std::string> problems;
    for (const auto& [problem, count] : group.problem_cases)
      problems.push_back(problem + " (" + std::to_string(count) + ")");
    cells.push_back(or_unknown(fmt::format("{}", fmt::join(problems, "; "))));
    t.add_row(cells);
  }
  return t.str();
}

std::string configurations(const Fleet& f) {
  std::ostringstream out;
  out << "GPUs grouped by driver, GSP firmware, VBIOS, CUDA toolkit and plugin builds; counts are GPUs by verdict.\n\n"
      << grouping_table(f.by_config);
  for (const auto& g : f.by_field) out << "\nBy " << g.fields.front() << " alone:\n\n" << grouping_table(g);
  return out.str();
}

std::string performance(const Fleet& f) {
  if (f.perf.empty()) return "No timed cases in these reports.\n";
  std::ostringstream out;
  out << "Fleet median TFLOPS per timed case, backend, op and GPU model (figures timed another way or of another "
         "question of the case are a row of their own, with a note); fences are Q1 - 1.5 IQR and Q3 + 1.5 IQR (with "
      << kMinSamplesForFences << " or more GPUs).\n\n";
  MarkdownTable cases(
      {"id", "case", "op", "backend", "model", "GPUs", "median TFLOPS", "Q1", "Q3", "fences", "outliers"});
  for (std::size_t r = 0; r < f.perf.size(); ++r) {
    const auto& row = f.perf[r];
    int outliers = 0;
    for (const auto& s : row.samples) outliers += s.outlier != Outlier::none;
    cases.add_row(
        {perf_id(r), row.case_name, row.op, row.backend, or_unknown(row.gpu_name), std::to_string(row.samples.size()),
         format_number(row.stats.median), format_number(row.stats.q1), format_number(row.stats.q3),
         row.fences ? format_number(row.stats.low_fence()) + " .. " + format_number(row.stats.high_fence()) : kAbsent,
         std::to_string(outliers)});
  }
  out << cases.str();
  for (std::size_t r = 0; r < f.perf.size(); ++r)
    if (!f.perf[r].note.empty()) out << "\n" << perf_id(r) << ": " << f.perf[r].note << ".\n";
  out << "\nEach GPU's TFLOPS / fleet median (outliers in bold):\n\n";
  std::vector<std::string> header = {"GPU"};
  for (std::size_t r = 0; r < f.perf.size(); ++r) header.push_back(perf_id(r));
  MarkdownTable ratios(header);
  for (std::size_t n = 0; n < f.nodes.size(); ++n) {
    std::vector<std::string> cells = {node_name(f.nodes[n])};
    for (const auto& row : f.perf) {
      std::string cell = kAbsent;
      for (const auto& s : row.samples)
        if (s.node == n)
          cell = s.outlier == Outlier::none ? format_number(s.ratio, 3)
                                            : "**" + format_number(s.ratio, 3) + " " + outlier_name(s.outlier) + "**";
      cells.push_back(cell);
    }
    ratios.add_row(cells);
  }
  out << ratios.str();
  return out.str();
}

nlohmann::json merged_json(const FleetNode& n) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : n.merged_from) out.push_back({{"path", m.path}, {"cases", m.cases}, {"checks", m.checks}});
  return out;
}

nlohmann::json grouping_json(const Fleet& f, const ConfigGrouping& g) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& group : g.groups) {
    nlohmann::json paths = nlohmann::json::array();
    for (const auto n : group.nodes) paths.push_back(f.nodes[n].path);
    groups.push_back({{"values", group.values},
                      {"reports", paths},
                      {"verdicts", group.verdicts},
                      {"problem_cases", group.problem_cases}});
  }
  return {{"fields", g.fields}, {"groups", groups}};
}

}  // namespace

std::string render_markdown(const Fleet& f) {
  std::ostringstream md;
  md << "# vsa-bench fleet\n\n" << headline(f) << "\n## GPUs\n\n" << nodes_table(f);
  md << "\n## Configurations\n\n" << configurations(f) << "\n## Performance\n\n" << performance(f);
  return md.str();
}

nlohmann::json to_json(const Fleet& f) {
  using json = nlohmann::json;
  json nodes = json::array();
  for (const auto& n : f.nodes)
    nodes.push_back({{"path", n.path},
                     {"name", fleet_gpu_name(n.who)},
                     {"scheduler_host", n.scheduler_host},
                     {"slow", n.slow},
                     {"label", n.who.label},
                     {"hostname", n.who.hostname},
                     {"gpu", n.who.gpu_name},
                     {"gpu_index", n.who.gpu_index},
                     {"pci_bus_id", n.who.pci_bus_id},
                     {"uuid", n.who.uuid},
                     {"mig_uuid", n.who.mig_uuid},
                     {"driver", n.config.driver},
                     {"gsp_firmware", n.config.gsp_firmware},
                     {"vbios", n.config.vbios},
                     {"cuda_toolkit", n.config.toolkit},
                     {"plugins", n.config.plugins},
                     {"verdict", n.verdict},
                     {"failed", n.failed()},
                     {"counts", n.counts},
                     {"problems", n.problems},
                     {"outliers", n.outliers},
                     {"worst_ratio", n.worst_ratio ? json(*n.worst_ratio) : json()},
                     {"merged_from", merged_json(n)}});
  json perf = json::array();
  for (const auto& row : f.perf) {
    json samples = json::array();
    for (const auto& s : row.samples)
      samples.push_back({{"path", f.nodes[s.node].path_of_case(row.case_name, row.backend)},
                         {"tflops", s.tflops},
                         {"spread", s.spread},
                         {"ratio", s.ratio},
                         {"outlier", s.outlier == Outlier::none ? json() : json(outlier_token(s.outlier))},
                         {"lse_factor", s.lse_factor ? json(*s.lse_factor) : json()}});
    perf.push_back({{"case", row.case_name},
                    {"op", row.op},
                    {"backend", row.backend},
                    {"gpu", row.gpu_name},
                    {"method", row.method},
                    {"median", row.stats.median},
                    {"q1", row.stats.q1},
                    {"q3", row.stats.q3},
                    {"low_fence", row.fences ? json(row.stats.low_fence()) : json()},
                    {"high_fence", row.fences ? json(row.stats.high_fence()) : json()},
                    {"note", row.note.empty() ? json() : json(row.note)},
                    {"samples", samples}});
  }
  json by_field = json::array();
  for (const auto& g : f.by_field) by_field.push_back(grouping_json(f, g));
  return {{"schema", "vsa-bench/fleet"},
          {"schema_version", 1},
          {"outlier_threshold", f.options.outlier_threshold},
          {"min_effect", f.options.min_effect},
          {"failed_hosts", f.failed_hosts()},
          {"nodes", nodes},
          {"failed_nodes", f.failed_nodes()},
          {"outliers", f.outliers()},
          {"performance", perf},
          {"configurations", grouping_json(f, f.by_config)},
          {"by_field", by_field},
          {"skipped", f.skipped},
          {"superseded", f.superseded}};
}

}  // namespace vsa
