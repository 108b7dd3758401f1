// JSON for the fingerprint. One field list per struct serves writing and reading,
// so the two cannot drift apart; unknown values are null (json_optional.hpp).
#include <nlohmann/json.hpp>

#include "build_info.hpp"
#include "telemetry/fingerprint.hpp"
#include "util/json_optional.hpp"

namespace vsa {
namespace {

template <typename Launcher, typename Visit>
void visit_launcher_fields(Launcher& l, Visit&& visit) {
  visit("rank", l.rank);
  visit("local_rank", l.local_rank);
  visit("node_name", l.node_name);
  visit("job_id", l.job_id);
  visit("slurm_procid", l.slurm_procid);
  visit("slurm_localid", l.slurm_localid);
  visit("slurmd_nodename", l.slurmd_nodename);
  visit("slurm_job_id", l.slurm_job_id);
  visit("ompi_comm_world_rank", l.ompi_comm_world_rank);
  visit("job_completion_index", l.job_completion_index);
  visit("pod_name", l.pod_name);
  visit("k8s_node_name", l.k8s_node_name);
}

template <typename Node, typename Visit>
void visit_node_optional_fields(Node& n, Visit&& visit) {
  visit("label", n.label);
  visit("kernel_release", n.kernel_release);
  visit("os", n.os);
  visit("cpu_model", n.cpu_model);
  visit("cpus_online", n.cpus_online);
  visit("cpus_allowed", n.cpus_allowed);
}

template <typename Device, typename Visit>
void visit_device_fields(Device& d, Visit&& visit) {
  visit("nvml_index", d.nvml_index);
  visit("cuda_ordinal", d.cuda_ordinal);
  visit("name", d.name);
  visit("uuid", d.uuid);
  visit("mig_uuid", d.mig_uuid);
  visit("serial", d.serial);
  visit("pci_bus_id", d.pci_bus_id);
  visit("driver_version", d.driver_version);
  visit("cuda_driver_version", d.cuda_driver_version);
  visit("cuda_runtime_version", d.cuda_runtime_version);
  visit("vbios_version", d.vbios_version);
  visit("gsp_firmware_version", d.gsp_firmware_version);
  visit("gsp_firmware_enabled", d.gsp_firmware_enabled);
  visit("gsp_firmware_default_enabled", d.gsp_firmware_default_enabled);
  visit("inforom_image_version", d.inforom_image_version);
  visit("inforom_oem_version", d.inforom_oem_version);
  visit("inforom_ecc_version", d.inforom_ecc_version);
  visit("inforom_power_version", d.inforom_power_version);
  visit("ecc_enabled", d.ecc_enabled);
  visit("ecc_pending", d.ecc_pending);
  visit("ecc_uncorrected_volatile", d.ecc_uncorrected_volatile);
  visit("ecc_uncorrected_aggregate", d.ecc_uncorrected_aggregate);
  visit("power_limit_w", d.power_limit_w);
  visit("sm_clock_mhz", d.sm_clock_mhz);
  visit("sm_clock_max_mhz", d.sm_clock_max_mhz);
  visit("mem_clock_mhz", d.mem_clock_mhz);
  visit("mem_clock_max_mhz", d.mem_clock_max_mhz);
  visit("persistence_mode", d.persistence_mode);
  visit("mig_enabled", d.mig_enabled);
  visit("temperature_c", d.temperature_c);
  visit("memory_total_bytes", d.memory_total_bytes);
  visit("cc_major", d.cc_major);
  visit("cc_minor", d.cc_minor);
  visit("sm_count", d.sm_count);
  visit("cuda_global_memory_bytes", d.cuda_global_memory_bytes);
  visit("l2_cache_bytes", d.l2_cache_bytes);
  visit("smem_per_block_optin_bytes", d.smem_per_block_optin_bytes);
  visit("smem_per_sm_bytes", d.smem_per_sm_bytes);
  visit("sm_clock_peak_khz", d.sm_clock_peak_khz);
  visit("mem_clock_peak_khz", d.mem_clock_peak_khz);
  visit("memory_bus_width_bits", d.memory_bus_width_bits);
}

auto writer(nlohmann::json& j) {
  return [&j](const char* key, const auto& value) { j[key] = json_or_null(value); };
}

auto reader(const nlohmann::json& j) {
  return [&j](const char* key, auto& value) { read_optional(j, key, value); };
}

}  // namespace

nlohmann::json build_info_json() {
  return {
      {"version", build::kVersion},
      {"git_sha", build::git_sha()},
      {"build_type", build::kBuildType},
      {"cxx_compiler", build::kCxxCompiler},
      {"cuda_compiler", build::kCudaCompiler},
      {"cuda_toolkit", build::kCudaToolkit},
  };
}

void to_json(nlohmann::json& j, const LauncherInfo& info) {
  j = nlohmann::json::object();
  j["kind"] = info.kind;
  visit_launcher_fields(info, writer(j));
}

void from_json(const nlohmann::json& j, LauncherInfo& info) {
  info.kind = j.value("kind", std::string("none"));
  visit_launcher_fields(info, reader(j));
}

void to_json(nlohmann::json& j, const NodeInfo& info) {
  j = nlohmann::json::object();
  j["hostname"] = info.hostname;
  visit_node_optional_fields(info, writer(j));
  j["launcher"] = info.launcher;
}

void from_json(const nlohmann::json& j, NodeInfo& info) {
  info.hostname = j.value("hostname", std::string());
  visit_node_optional_fields(info, reader(j));
  info.launcher = j.contains("launcher") ? j.at("launcher").get<LauncherInfo>() : LauncherInfo{};
}

void to_json(nlohmann::json& j, const DeviceFingerprint& device) {
  j = nlohmann::json::object();
  visit_device_fields(device, writer(j));
}

void from_json(const nlohmann::json& j, DeviceFingerprint& device) { visit_device_fields(device, reader(j)); }

void to_json(nlohmann::json& j, const Fingerprint& fingerprint) {
  j = nlohmann::json::object();
  j["node"] = fingerprint.node;
  j["devices"] = fingerprint.devices;
  j["notes"] = fingerprint.notes;
}

void from_json(const nlohmann::json& j, Fingerprint& fingerprint) {
  fingerprint.node = j.at("node").get<NodeInfo>();
  fingerprint.devices = j.value("devices", std::vector<DeviceFingerprint>{});
  fingerprint.notes = j.value("notes", std::vector<std::string>{});
}

}  // namespace vsa
