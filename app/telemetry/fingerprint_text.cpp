// The human rendering of a fingerprint (`vsa-bench info`): aligned "key  value"
// lines, node first, one block per GPU, then the notes. Unknown values print "-".
#include <fmt/format.h>

#include "telemetry/fingerprint.hpp"

namespace vsa {
namespace {

constexpr const char* kUnknown = "-";

template <typename T>
std::string text_or_dash(const std::optional<T>& value) {
  if (!value) return kUnknown;
  if constexpr (std::is_same_v<T, std::string>)
    return *value;
  else
    return fmt::format("{}", *value);
}

std::string on_off(const std::optional<bool>& value, const char* on, const char* off) {
  return value ? (*value ? on : off) : kUnknown;
}

std::string gib(const std::optional<std::uint64_t>& bytes) {
  return bytes ? fmt::format("{:.1f} GiB", static_cast<double>(*bytes) / (1024.0 * 1024.0 * 1024.0)) : kUnknown;
}

// 13000 -> "13.0", 12080 -> "12.8".
std::string cuda_version(const std::optional<int>& version) {
  return version ? fmt::format("{}.{}", *version / 1000, (*version % 1000) / 10) : kUnknown;
}

void line(std::string& out, const char* key, const std::string& value) {
  fmt::format_to(std::back_inserter(out), "  {:<14} {}\n", key, value);
}

std::string launcher_text(const LauncherInfo& l) {
  std::string text = l.kind;
  if (l.rank) text += fmt::format(" rank {}", *l.rank);
  if (l.local_rank) text += fmt::format(" local {}", *l.local_rank);
  if (l.job_id) text += " job " + *l.job_id;
  if (l.node_name) text += " node " + *l.node_name;
  if (l.pod_name) text += " pod " + *l.pod_name;
  return text;
}

void node_block(std::string& out, const NodeInfo& node) {
  out += "node\n";
  line(out, "hostname", node.hostname);
  if (node.label) line(out, "label", *node.label);
  line(out, "launcher", launcher_text(node.launcher));
  line(out, "os", text_or_dash(node.os));
  line(out, "kernel", text_or_dash(node.kernel_release));
  line(out, "cpu",
       fmt::format("{} ({} online, {} allowed)", text_or_dash(node.cpu_model), text_or_dash(node.cpus_online),
                   text_or_dash(node.cpus_allowed)));
}

void device_block(std::string& out, const DeviceFingerprint& d, std::size_t position) {
  out += fmt::format("\ngpu {}  {}  (cuda {}, nvml {})\n", position, text_or_dash(d.name), text_or_dash(d.cuda_ordinal),
                     text_or_dash(d.nvml_index));
  line(out, "uuid", text_or_dash(d.uuid));
  line(out, "serial", text_or_dash(d.serial));
  line(out, "pci bus id", text_or_dash(d.pci_bus_id));
  line(out, "driver",
       fmt::format("{} (CUDA driver {}, runtime {})", text_or_dash(d.driver_version),
                   cuda_version(d.cuda_driver_version), cuda_version(d.cuda_runtime_version)));
  line(out, "vbios", text_or_dash(d.vbios_version));
  line(out, "gsp firmware",
       fmt::format("{} ({}, default {})", text_or_dash(d.gsp_firmware_version),
                   on_off(d.gsp_firmware_enabled, "enabled", "disabled"),
                   on_off(d.gsp_firmware_default_enabled, "enabled", "disabled")));
  line(out, "inforom",
       fmt::format("{} (oem {}, ecc {}, power {})", text_or_dash(d.inforom_image_version),
                   text_or_dash(d.inforom_oem_version), text_or_dash(d.inforom_ecc_version),
                   text_or_dash(d.inforom_power_version)));
  const std::string cc = d.cc_major && d.cc_minor ? fmt::format("sm_{}{}", *d.cc_major, *d.cc_minor) : kUnknown;
  line(out, "compute",
       fmt::format("{}, {} SMs, L2 {} B, smem opt-in {} B/block", cc, text_or_dash(d.sm_count),
                   text_or_dash(d.l2_cache_bytes), text_or_dash(d.smem_per_block_optin_bytes)));
  line(out, "memory",
       fmt::format("{} (CUDA {}), {}-bit bus", gib(d.memory_total_bytes), gib(d.cuda_global_memory_bytes),
                   text_or_dash(d.memory_bus_width_bits)));
  line(out, "ecc",
       fmt::format("{} (pending {}), uncorrected {} volatile / {} aggregate", on_off(d.ecc_enabled, "on", "off"),
                   on_off(d.ecc_pending, "on", "off"), text_or_dash(d.ecc_uncorrected_volatile),
                   text_or_dash(d.ecc_uncorrected_aggregate)));
  line(out, "power limit", d.power_limit_w ? fmt::format("{:.0f} W", *d.power_limit_w) : kUnknown);
  line(out, "clocks",
       fmt::format("SM {} / {} MHz max, memory {} / {} MHz max", text_or_dash(d.sm_clock_mhz),
                   text_or_dash(d.sm_clock_max_mhz), text_or_dash(d.mem_clock_mhz), text_or_dash(d.mem_clock_max_mhz)));
  line(out, "persistence", on_off(d.persistence_mode, "on", "off"));
  line(out, "MIG",
       d.mig_enabled == true && d.mig_uuid ? "on: this device is instance " + *d.mig_uuid
                                           : on_off(d.mig_enabled, "on", "off"));
  line(out, "temperature", d.temperature_c ? fmt::format("{} C", *d.temperature_c) : kUnknown);
}

}  // namespace

std::string format_fingerprint_text(const Fingerprint& fingerprint) {
  std::string out;
  node_block(out, fingerprint.node);
  if (fingerprint.devices.empty()) out += "\nno GPU found\n";
  for (std::size_t i = 0; i < fingerprint.devices.size(); ++i) device_block(out, fingerprint.devices[i], i);
  if (!fingerprint.notes.empty()) {
    out += "\nnotes\n";
    for (const auto& note : fingerprint.notes) out += "  - " + note + "\n";
  }
  return out;
}

}  // namespace vsa
