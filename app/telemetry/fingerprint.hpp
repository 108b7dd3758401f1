#pragma once
// Who ran: the node and its GPUs, as recorded in every report and printed by
// `vsa-bench info` (docs/design.md, "Reports"). A fault that shows up on some nodes only
// (docs/spec.md bug class 4) is traced by these fields: node, driver, VBIOS, GSP firmware.
//
// Fork safety: CUDA must not be initialised in a process that later forks workers.
// With use_cuda == false nothing here calls the CUDA runtime: the parent collects
// NVML-only fingerprints, and a worker (or `info`) adds the CUDA view.
//
// JSON: every key is always written; a value the node could not give is null
// (util/json_optional.hpp).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vsa {

class Nvml;

// Launcher placement, read from the environment the launcher sets. Raw values are
// kept as text (they are identifiers, not always numbers); `rank` and `local_rank`
// are the first of them that parse.
struct LauncherInfo {
  std::string kind = "none";             // "slurm", "openmpi", "kubernetes" or "none"
  std::optional<int> rank;               // SLURM_PROCID, else OMPI_COMM_WORLD_RANK, else JOB_COMPLETION_INDEX
  std::optional<int> local_rank;         // SLURM_LOCALID, else OMPI_COMM_WORLD_LOCAL_RANK
  std::optional<std::string> node_name;  // SLURMD_NODENAME, else NODE_NAME (Kubernetes downward API)
  std::optional<std::string> job_id;     // SLURM_JOB_ID
  std::optional<std::string> slurm_procid;
  std::optional<std::string> slurm_localid;
  std::optional<std::string> slurmd_nodename;
  std::optional<std::string> slurm_job_id;
  std::optional<std::string> ompi_comm_world_rank;
  std::optional<std::string> job_completion_index;  // Kubernetes indexed Job
  std::optional<std::string> pod_name;              // POD_NAME, else HOSTNAME inside Kubernetes
  std::optional<std::string> k8s_node_name;         // NODE_NAME
};

struct NodeInfo {
  std::string hostname;
  std::optional<std::string> label;  // rack or group, set by the caller (--label)
  LauncherInfo launcher;
  std::optional<std::string> kernel_release;  // uname -r
  std::optional<std::string> os;              // PRETTY_NAME from /etc/os-release
  std::optional<std::string> cpu_model;
  std::optional<int> cpus_online;   // logical CPUs on the node
  std::optional<int> cpus_allowed;  // in this process's affinity mask (Slurm / cgroup limits)
};

struct DeviceFingerprint {
  // Identity. `name`, `uuid` and `pci_bus_id` come from NVML, else from CUDA.
  std::optional<unsigned> nvml_index;
  std::optional<int> cuda_ordinal;  // unknown in an NVML-only (no-CUDA) collection
  std::optional<std::string> name;
  std::optional<std::string> uuid;
  // Under MIG, the instance the CUDA device stands for ("MIG-...", cuDeviceGetUuid_v2): two
  // workers on two instances of one GPU share `uuid` and `pci_bus_id`, not this.
  std::optional<std::string> mig_uuid;
  std::optional<std::string> serial;
  std::optional<std::string> pci_bus_id;
  // Driver and firmware.
  std::optional<std::string> driver_version;  // NVML
  std::optional<int> cuda_driver_version;     // 13000 = 13.0 (NVML, else cudaDriverGetVersion)
  std::optional<int> cuda_runtime_version;    // cudaRuntimeGetVersion: the runtime this binary carries
  std::optional<std::string> vbios_version;
  std::optional<std::string> gsp_firmware_version;
  std::optional<bool> gsp_firmware_enabled;
  std::optional<bool> gsp_firmware_default_enabled;
  std::optional<std::string> inforom_image_version;
  std::optional<std::string> inforom_oem_version;
  std::optional<std::string> inforom_ecc_version;
  std::optional<std::string> inforom_power_version;
  // State (NVML).
  std::optional<bool> ecc_enabled;
  std::optional<bool> ecc_pending;
  std::optional<std::uint64_t> ecc_uncorrected_volatile;
  std::optional<std::uint64_t> ecc_uncorrected_aggregate;
  std::optional<double> power_limit_w;  // enforced
  std::optional<unsigned> sm_clock_mhz;
  std::optional<unsigned> sm_clock_max_mhz;
  std::optional<unsigned> mem_clock_mhz;
  std::optional<unsigned> mem_clock_max_mhz;
  std::optional<bool> persistence_mode;
  // MIG mode is on: the CUDA device is one instance of this GPU (its own sm_count and memory),
  // and the GPU's clocks, power and temperature are shared with every other instance.
  std::optional<bool> mig_enabled;
  std::optional<unsigned> temperature_c;
  std::optional<std::uint64_t> memory_total_bytes;  // NVML
  // CUDA runtime view (null in an NVML-only collection).
  std::optional<int> cc_major;
  std::optional<int> cc_minor;
  std::optional<int> sm_count;
  std::optional<std::uint64_t> cuda_global_memory_bytes;
  std::optional<int> l2_cache_bytes;
  std::optional<std::uint64_t> smem_per_block_optin_bytes;
  std::optional<std::uint64_t> smem_per_sm_bytes;
  std::optional<int> sm_clock_peak_khz;   // cudaDevAttrClockRate
  std::optional<int> mem_clock_peak_khz;  // cudaDevAttrMemoryClockRate
  std::optional<int> memory_bus_width_bits;
};

struct Fingerprint {
  NodeInfo node;
  std::vector<DeviceFingerprint> devices;
  // What could not be learnt and why, in words (no NVML, no CUDA device, missing symbols).
  std::vector<std::string> notes;
};

// Reads an environment variable; tests substitute a map.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
[[nodiscard]] EnvLookup process_environment();

[[nodiscard]] LauncherInfo launcher_info_from(const EnvLookup& env);
[[nodiscard]] NodeInfo collect_node_info();
[[nodiscard]] NodeInfo collect_node_info(const EnvLookup& env);

// Parsers for the files collect_node_info reads, exposed for tests.
[[nodiscard]] std::optional<std::string> parse_os_release_pretty_name(const std::string& os_release);
[[nodiscard]] std::optional<std::string> parse_cpu_model(const std::string& cpuinfo);

// Every GPU of this process. use_cuda: enumerate CUDA devices (honouring
// CUDA_VISIBLE_DEVICES) and join each to its NVML device by PCI bus id; otherwise
// enumerate NVML devices without touching CUDA. Falls back to NVML when CUDA finds
// no device. What is missing goes to `notes`.
[[nodiscard]] std::vector<DeviceFingerprint> collect_device_fingerprints(bool use_cuda,
                                                                         std::vector<std::string>& notes);
// The same with a given NVML (tests pass a missing or fake one).
[[nodiscard]] std::vector<DeviceFingerprint> collect_device_fingerprints(const Nvml& nvml, bool use_cuda,
                                                                         std::vector<std::string>& notes);
// The CUDA runtime's view of one device (a worker's): identity, versions, properties.
// No NVML; no context is created.
[[nodiscard]] DeviceFingerprint collect_cuda_device_fingerprint(int cuda_ordinal, std::vector<std::string>& notes);
// Adds the NVML fields of the device with fp.pci_bus_id. Never calls CUDA, so a
// parent can join what a worker reported (e.g. its JSON read back with from_json).
void add_nvml_fields(const Nvml& nvml, DeviceFingerprint& fp, std::vector<std::string>& notes);

// Node + devices + notes; `label` goes to node.label.
[[nodiscard]] Fingerprint collect_fingerprint(bool use_cuda, const std::optional<std::string>& label = std::nullopt);

// The build that produced this binary (util/build_info.hpp.in).
[[nodiscard]] nlohmann::json build_info_json();

void to_json(nlohmann::json& j, const LauncherInfo& info);
void to_json(nlohmann::json& j, const NodeInfo& info);
void to_json(nlohmann::json& j, const DeviceFingerprint& device);
void to_json(nlohmann::json& j, const Fingerprint& fingerprint);
void from_json(const nlohmann::json& j, LauncherInfo& info);
void from_json(const nlohmann::json& j, NodeInfo& info);
void from_json(const nlohmann::json& j, DeviceFingerprint& device);
void from_json(const nlohmann::json& j, Fingerprint& fingerprint);

// The human table printed by `vsa-bench info`: node, then one block per GPU, then notes.
[[nodiscard]] std::string format_fingerprint_text(const Fingerprint& fingerprint);

}  // namespace vsa
