#include "run/resume.hpp"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "util/printable.hpp"

namespace vsa {
namespace {

using nlohmann::json;

std::string text_of(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// The same GPU: by UUID where both sides know it, else by PCI bus id and name. Two MIG instances
// of one GPU share its UUID: where both sides name their instance, it must be the same one.
bool same_gpu(const json& a, const json& b) {
  const std::string ma = text_of(a, "mig_uuid"), mb = text_of(b, "mig_uuid");
  if (!ma.empty() && !mb.empty() && ma != mb) return false;
  const std::string ua = text_of(a, "uuid"), ub = text_of(b, "uuid");
  if (!ua.empty() || !ub.empty()) return ua == ub;
  return text_of(a, "pci_bus_id") == text_of(b, "pci_bus_id") && text_of(a, "name") == text_of(b, "name");
}

std::string gpu_name(const json& d) {
  const std::string uuid = text_of(d, "uuid"), mig_uuid = text_of(d, "mig_uuid");
  return (text_of(d, "name").empty() ? std::string("GPU") : text_of(d, "name")) + " " +
         (uuid.empty() ? "at PCI " + text_of(d, "pci_bus_id") : uuid) +
         (mig_uuid.empty() ? std::string() : " instance " + mig_uuid);
}

// A suite as --resume matches it: its name and its file's name ("builtin:perf", "slow.json"), not
// the path as typed, which another working directory or spelling changes.
nlohmann::json suite_names(const nlohmann::json& suites) {
  nlohmann::json names = nlohmann::json::array();
  if (!suites.is_array()) return names;
  for (const auto& s : suites) {
    if (!s.is_object()) {
      names.push_back(s);
      continue;
    }
    const auto source = s.find("source");
    names.push_back({s.value("name", nlohmann::json()),
                     source != s.end() && source->is_string()
                         ? nlohmann::json(std::filesystem::path(source->get<std::string>()).filename().string())
                         : nlohmann::json()});
  }
  return names;
}

std::string refuse(const ReportFile& f, const std::string& why) {
  return "--resume " + f.path + ": " + why + "; start a new run instead";
}

}  // namespace

ResumePlan plan_resume(const ReportFile& f, const ResumingRun& run) {
  const Report& r = f.report;
  ResumePlan plan;
  if (r.complete) {
    plan.refusal = refuse(f, "the report is complete already");
    return plan;
  }
  // Suites by name and file name: a suite file given by another spelling of its path (relative,
  // absolute, from another directory) is the same suite; every finished case's spec is compared
  // below.
  if (const json then = suite_names(r.suites), now = suite_names(run.suites); then != now) {
    plan.refusal = refuse(f, "it ran suites " + printable(then.dump()) + ", this run " + printable(now.dump()));
    return plan;
  }
  // The case list: the report's plan where it has one, else its finished cases must be
  // this run's cases of those names, with the same specs.
  std::map<std::string, const CaseSpec*> now;
  for (const auto& c : run.cases) now[c.name] = &c;
  if (!r.planned_cases.empty()) {
    std::vector<std::string> names;
    for (const auto& c : run.cases) names.push_back(c.name);
    if (names != r.planned_cases) {
      plan.refusal = refuse(f, fmt::format("it planned {} cases, this run has {} (another --case, --backends or suite "
                                           "file?)",
                                           r.planned_cases.size(), names.size()));
      return plan;
    }
  }
  for (const auto& c : r.cases) {
    const auto it = now.find(c.name);
    if (it == now.end()) {
      plan.refusal = refuse(f, "its case \"" + printable(c.name) + "\" is not in this run");
      return plan;
    }
    if (to_json(*it->second) != c.spec) {
      plan.refusal = refuse(f, "its case \"" + printable(c.name) +
                                   "\" is not this run's case of that name (the suite "
                                   "or a --probe/--hang-watch-ms changed)");
      return plan;
    }
  }
  const std::string host = text_of(r.node, "hostname");
  if (host != run.hostname) {
    plan.refusal = refuse(f, "it ran on node \"" + printable(host) + "\", this is \"" + printable(run.hostname) + "\"");
    return plan;
  }
  // The report's GPU among this run's (-1: none of them, or a CPU report), whose own kernel
  // images its backends list (kernel_images.hpp).
  int device_index = -1;
  if (r.device.is_object())
    for (std::size_t i = 0; i < run.devices.size() && device_index < 0; ++i)
      if (same_gpu(r.device, run.devices[i])) device_index = int(i);
  // A GPU this run cannot use is said as such first: its binary is judged by that GPU's images,
  // which this run cannot ask.
  if (r.device.is_object() && device_index < 0) {
    plan.refusal = refuse(f, "its GPU, " + printable(gpu_name(r.device)) + ", is not one this run can use");
    return plan;
  }
  const json& backends = device_index >= 0 && std::size_t(device_index) < run.device_backends.size()
                             ? run.device_backends[std::size_t(device_index)]
                             : run.backends;
  if (f.tool != run.tool || r.backends != backends) {
    plan.refusal = refuse(f, "it was written by another vsa-bench binary (" + printable(f.tool.dump()) + ")");
    return plan;
  }
  if (!run.label.empty() && run.label != r.label) {
    plan.refusal = refuse(f, "its label is \"" + printable(r.label) + "\", not \"" + printable(run.label) + "\"");
    return plan;
  }
  if (r.device.is_object()) {
    plan.device_index = device_index;
    return plan;
  }
  if (!run.devices.empty()) plan.refusal = refuse(f, "it is a CPU-only report; resume it with --devices none");
  return plan;
}

}  // namespace vsa
