#include "report/report_fields.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/ranges.h>

#include "report/shared_gpu.hpp"
#include "telemetry/clock_summary.hpp"

namespace vsa {

namespace {

const nlohmann::json& member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json null_value;
  if (!object.is_object()) return null_value;
  const auto it = object.find(key);
  return it == object.end() ? null_value : *it;
}

std::string text_of(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  return value.dump();
}

std::string compute_capability(const nlohmann::json& device) {
  const std::string major = json_text(device, "cc_major"), minor = json_text(device, "cc_minor");
  return major.empty() ? "" : major + "." + minor;
}

std::string joined(const nlohmann::json& list) {
  std::string out;
  if (!list.is_array()) return out;
  for (const auto& item : list) {
    if (!out.empty()) out += ',';
    out += text_of(item);
  }
  return out;
}

}  // namespace

std::string json_text(const nlohmann::json& object, const char* key) { return text_of(member(object, key)); }

std::string cuda_version_text(const nlohmann::json& value) {
  if (!value.is_number_integer()) return text_of(value);
  const int v = value.get<int>();
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

ReportIdentity identity_of(const Report& r) {
  ReportIdentity who;
  who.label = r.label.empty() ? json_text(r.node, "label") : r.label;
  who.hostname = json_text(r.node, "hostname");
  if (who.hostname.empty()) who.hostname = json_text(member(r.node, "launcher"), "node_name");
  who.gpu_name = json_text(r.device, "name");
  who.gpu_index = r.device.is_object() ? json_text(r.device, "cuda_ordinal") : "cpu";
  who.pci_bus_id = json_text(r.device, "pci_bus_id");
  who.uuid = json_text(r.device, "uuid");
  who.mig_uuid = json_text(r.device, "mig_uuid");
  return who;
}

std::string device_uuid_of(const nlohmann::json& device) {
  if (!device.is_object()) return "";
  for (const char* key : {"mig_uuid", "uuid"})
    if (const auto it = device.find(key); it != device.end() && it->is_string() && !it->get<std::string>().empty())
      return it->get<std::string>();
  return "";
}

std::string join_nonempty(const std::vector<std::string>& parts) {
  std::vector<std::string> kept;
  std::copy_if(parts.begin(), parts.end(), std::back_inserter(kept), [](const std::string& p) { return !p.empty(); });
  return fmt::format("{}", fmt::join(kept, " "));
}

std::string short_name(const ReportIdentity& who) {
  return join_nonempty({who.label, who.hostname,
                        who.gpu_index == "cpu" || who.gpu_index.empty() ? who.gpu_index : "gpu" + who.gpu_index});
}

std::vector<ConfigValue> configuration_of(const ReportFile& file) {
  const Report& r = file.report;
  const ReportIdentity who = identity_of(r);
  const nlohmann::json& d = r.device;
  std::vector<ConfigValue> c = {
      {"label", "label", true, who.label},
      {"node.hostname", "host", true, who.hostname},
      {"device.cuda_ordinal", "GPU index", true, who.gpu_index},
      {"device.pci_bus_id", "PCI bus id", true, who.pci_bus_id},
      {"device.uuid", "GPU UUID", true, who.uuid},
      {"device.mig_uuid", "MIG instance", true, who.mig_uuid},
      {"device.serial", "board serial", true, json_text(d, "serial")},
      {"device.name", "GPU", false, who.gpu_name},
      {"device.compute_capability", "compute capability", false, compute_capability(d)},
      {"device.sm_count", "SMs", false, json_text(d, "sm_count")},
      {"device.driver_version", "driver", false, json_text(d, "driver_version")},
      {"device.gsp_firmware_version", "GSP firmware", false, json_text(d, "gsp_firmware_version")},
      {"device.vbios_version", "VBIOS", false, json_text(d, "vbios_version")},
      {"device.inforom_image_version", "InfoROM image", false, json_text(d, "inforom_image_version")},
      {"device.cuda_driver_version", "CUDA driver", false, cuda_version_text(member(d, "cuda_driver_version"))},
      {"device.cuda_runtime_version", "CUDA runtime", false, cuda_version_text(member(d, "cuda_runtime_version"))},
      {"device.ecc_enabled", "ECC", false, json_text(d, "ecc_enabled")},
      // "on" or blank: reports from before the field, and GPUs without MIG, read alike, so the row
      // shows only where a report ran on one MIG instance.
      {"device.mig_enabled", "MIG", false, member(d, "mig_enabled") == true ? "on" : ""},
      {"device.power_limit_w", "power limit W", false, json_text(d, "power_limit_w")},
      {"device.sm_clock_max_mhz", "SM clock max MHz", false, json_text(d, "sm_clock_max_mhz")},
      {"node.os", "OS", false, json_text(r.node, "os")},
      {"node.kernel_release", "Linux kernel", false, json_text(r.node, "kernel_release")},
      {"tool.version", "vsa-bench", false, json_text(file.tool, "version")},
      {"tool.git_sha", "git sha", false, json_text(file.tool, "git_sha")},
      {"tool.cuda_toolkit", "CUDA toolkit", false, json_text(file.tool, "cuda_toolkit")},
      {"tool.build_type", "build type", false, json_text(file.tool, "build_type")},
  };
  if (r.backends.is_array())
    for (const auto& b : r.backends) {
      const std::string name = json_text(b, "name");
      if (!name.empty()) c.push_back({"images." + name, "images " + name, false, joined(member(b, "images"))});
    }
  if (r.probes.is_object() && !r.probes.empty()) c.push_back({"probes", "delay probes", false, r.probes.dump()});
  // Keyed by the plugin's declared name, so two reports line up even when the library sits
  // at different paths; a plugin only one report loaded shows as a difference.
  if (r.plugins.is_array())
    for (const auto& p : r.plugins) {
      const std::string name = json_text(p, "plugin_name");
      if (name.empty()) continue;
      const std::string key = "plugin." + name, title = "plugin " + name;
      c.push_back({key + ".path", title + " path", false, json_text(p, "path")});
      c.push_back({key + ".size", title + " bytes", false, json_text(p, "size")});
      c.push_back({key + ".sha256", title + " sha256", false, json_text(p, "sha256")});
      c.push_back({key + ".abi_version", title + " ABI", false, json_text(p, "abi_version")});
      c.push_back({key + ".build_info", title + " build", false,
                   member(p, "build_info").is_object() ? member(p, "build_info").dump() : ""});
    }
  return c;
}

std::string plugins_text(const Report& r) {
  std::vector<std::string> items;
  if (r.plugins.is_array())
    for (const auto& p : r.plugins)
      items.push_back(json_text(p, "plugin_name") + " sha256:" + json_text(p, "sha256").substr(0, 12));
  if (items.empty()) return "none";
  std::sort(items.begin(), items.end());
  return fmt::format("{}", fmt::join(items, ", "));
}

ConfigKey config_key_of(const ReportFile& file) {
  const nlohmann::json& d = file.report.device;
  return {json_text(d, "driver_version"), json_text(d, "gsp_firmware_version"), json_text(d, "vbios_version"),
          json_text(file.tool, "cuda_toolkit"), plugins_text(file.report)};
}

std::optional<WorstError> worst_error(const BackendResult& backend) {
  std::optional<WorstError> worst;
  for (const auto& m : backend.metrics)
    if (!worst || m.rel_max > worst->rel_max) worst = WorstError{m.tensor, m.rel_max};
  return worst;
}

std::string timing_method(const Timing& t) {
  return std::string(t.launches_per_iteration > 1 ? "sustained" : "bursts") + (t.l2_flush ? ", cold L2" : "") +
         (t.sampling.target_spread > 0 ? ", adaptive passes" : ", fixed passes");
}

std::vector<PerfSample> perf_samples(const Report& report) {
  std::vector<PerfSample> samples;
  for (const auto& c : report.cases) {
    const std::string question = question_spec(c).dump();
    for (const auto& b : c.backends)
      for (const auto& t : b.timings)
        if (t.tflops > 0)
          samples.push_back({c.name, b.backend, t.op, t.tflops, t.median_ms, t.spread, clock_summary(t.clocks),
                             t.passes - int(t.off_clock_passes.size()), timing_method(t), b.lse_factor,
                             shared_gpu_text(t), question});
  }
  return samples;
}

nlohmann::json comparable_spec(const CaseResult& result) {
  nlohmann::json spec = result.spec;
  if (spec.is_object()) {
    spec.erase("backends");
    spec.erase("probes");  // a run condition (--probe ones are in the configuration table); a slowdown to catch
    // Of the timing, what changes the number measured: a cold L2 and sustained passes (another
    // clock state). How many passes, launches and seconds were spent sampling it
    // (`--target-spread`, `--timing-budget`, a schema-1 report without today's defaults) does
    // not; fixed against adaptive passes is still told apart, by the timing's method.
    if (const auto t = spec.find("timing"); t != spec.end() && t->is_object()) {
      nlohmann::json kept = nlohmann::json::object();
      kept["l2_flush"] = t->value("l2_flush", false);
      kept["min_pass_ms"] = t->value("min_pass_ms", 0.0);
      *t = kept;
    }
  }
  return spec;
}

nlohmann::json question_spec(const CaseResult& result) {
  const nlohmann::json spec = comparable_spec(result);
  if (!spec.is_object()) return spec;
  nlohmann::json question = nlohmann::json::object();
  for (const char* key : {"mode", "op", "B", "H", "S", "D", "blk", "pattern", "vbs", "scale", "timing"})
    if (const auto it = spec.find(key); it != spec.end()) question[key] = *it;
  return question;
}

}  // namespace vsa
