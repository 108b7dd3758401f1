// Node / GPU fingerprint: clock-event decoding, launcher fields from the
// environment, NVML loading (missing library, missing symbols, failed init, via a
// fake NVML), and the JSON shape reports rely on. No test here touches CUDA: the
// NVML-only path is the one a forking parent uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "telemetry/fingerprint.hpp"
#include "telemetry/nvml.hpp"
#include "telemetry/nvml_api.hpp"

namespace vsa {
namespace {

using Strings = std::vector<std::string>;

bool contains(const Strings& list, const std::string& text) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& s) { return s.find(text) != std::string::npos; });
}

// ---- clock-event reasons ---------------------------------------------------

TEST(ClockEventReasons, DecodesEachKnownBitInBitOrder) {
  EXPECT_EQ(decode_clock_event_reasons(0), Strings{});
  EXPECT_EQ(decode_clock_event_reasons(0x1ff),
            (Strings{"gpu_idle", "applications_clocks", "sw_power_cap", "hw_slowdown", "sync_boost", "sw_thermal",
                     "hw_thermal", "hw_power_brake", "display_clocks"}));
  EXPECT_EQ(decode_clock_event_reasons(0x4 | 0x40), (Strings{"sw_power_cap", "hw_thermal"}));
  EXPECT_EQ(decode_clock_event_reasons(0x200 | 0x400), (Strings{"board_limit", "reliability"}));
}

TEST(ClockEventReasons, KeepsBitsItDoesNotKnow) {
  EXPECT_EQ(decode_clock_event_reasons((1ull << 20) | 0x8), (Strings{"hw_slowdown", "unknown_0x100000"}));
  EXPECT_EQ(decode_clock_event_reasons(1ull << 63), Strings{"unknown_0x8000000000000000"});
}

TEST(ClockEventReasons, OnlySlowdownsCountAsSlowedDown) {
  EXPECT_FALSE(is_slowdown(0));
  EXPECT_FALSE(is_slowdown(0x1 | 0x2 | 0x100));  // idle, application clocks, display clocks
  for (std::uint64_t bit : {0x4ull, 0x8ull, 0x10ull, 0x20ull, 0x40ull, 0x80ull, 0x200ull, 0x400ull})
    EXPECT_TRUE(is_slowdown(bit | 0x1)) << bit;

  ClockSample unknown;
  EXPECT_FALSE(unknown.slowed_down());
  EXPECT_TRUE(unknown.reason_names().empty());
  ClockSample capped;
  capped.event_reasons = 0x4;
  EXPECT_TRUE(capped.slowed_down());
  EXPECT_EQ(capped.reason_names(), Strings{"sw_power_cap"});
}

TEST(ClockEventReasons, SampleJsonHasNullsWhenUnknown) {
  const nlohmann::json unknown = ClockSample{};
  for (const char* key : {"sm_clock_mhz", "mem_clock_mhz", "temperature_c", "power_w", "event_reasons", "reasons"}) {
    ASSERT_TRUE(unknown.contains(key)) << key;
    EXPECT_TRUE(unknown[key].is_null()) << key;
  }
  ClockSample sample;
  sample.sm_clock_mhz = 1980;
  sample.event_reasons = 0x20;
  const nlohmann::json j = sample;
  EXPECT_EQ(j["sm_clock_mhz"], 1980);
  EXPECT_EQ(j["reasons"], nlohmann::json::array({"sw_thermal"}));
  EXPECT_EQ(j["slowed_down"], true);
}

// ---- launcher fields ---------------------------------------------------------

EnvLookup env_of(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> std::optional<std::string> {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

TEST(LauncherInfo, NoLauncher) {
  const LauncherInfo info = launcher_info_from(env_of({{"HOSTNAME", "box"}}));
  EXPECT_EQ(info.kind, "none");
  EXPECT_FALSE(info.rank);
  EXPECT_FALSE(info.node_name);
  EXPECT_FALSE(info.pod_name);  // HOSTNAME is a pod name only inside Kubernetes
}

TEST(LauncherInfo, Slurm) {
  const LauncherInfo info = launcher_info_from(env_of({{"SLURM_PROCID", "13"},
                                                       {"SLURM_LOCALID", "5"},
                                                       {"SLURMD_NODENAME", "gpu-a12"},
                                                       {"SLURM_JOB_ID", "4242"},
                                                       {"OMPI_COMM_WORLD_RANK", "99"}}));
  EXPECT_EQ(info.kind, "slurm");
  EXPECT_EQ(info.rank, 13);
  EXPECT_EQ(info.local_rank, 5);
  EXPECT_EQ(info.node_name, "gpu-a12");
  EXPECT_EQ(info.job_id, "4242");
  EXPECT_EQ(info.ompi_comm_world_rank, "99");  // kept raw, but Slurm's rank wins
}

TEST(LauncherInfo, OpenMpi) {
  const LauncherInfo info =
      launcher_info_from(env_of({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}));
  EXPECT_EQ(info.kind, "openmpi");
  EXPECT_EQ(info.rank, 3);
  EXPECT_EQ(info.local_rank, 1);
}

TEST(LauncherInfo, KubernetesIndexedJob) {
  const LauncherInfo info = launcher_info_from(env_of({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                                                       {"HOSTNAME", "vsa-bench-7-abcde"},
                                                       {"JOB_COMPLETION_INDEX", "7"},
                                                       {"NODE_NAME", "node-3"}}));
  EXPECT_EQ(info.kind, "kubernetes");
  EXPECT_EQ(info.rank, 7);
  EXPECT_EQ(info.pod_name, "vsa-bench-7-abcde");
  EXPECT_EQ(info.k8s_node_name, "node-3");
  EXPECT_EQ(info.node_name, "node-3");
}

TEST(LauncherInfo, PodNameFromDownwardApiWins) {
  const LauncherInfo info = launcher_info_from(
      env_of({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}, {"HOSTNAME", "custom-host"}, {"POD_NAME", "pod-1"}}));
  EXPECT_EQ(info.pod_name, "pod-1");
}

TEST(LauncherInfo, NonNumericRankStaysRawOnly) {
  const LauncherInfo info = launcher_info_from(env_of({{"SLURM_JOB_ID", "1"}, {"SLURM_PROCID", "3x"}}));
  EXPECT_EQ(info.kind, "slurm");
  EXPECT_FALSE(info.rank);
  EXPECT_EQ(info.slurm_procid, "3x");
}

// ---- node files ----------------------------------------------------------------

TEST(NodeInfo, ParsesOsReleasePrettyName) {
  EXPECT_EQ(
      parse_os_release_pretty_name("NAME=\"Debian\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n"),
      "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(parse_os_release_pretty_name("PRETTY_NAME=Ubuntu\n"), "Ubuntu");
  EXPECT_EQ(parse_os_release_pretty_name("NAME=x\n"), std::nullopt);
}

TEST(NodeInfo, ParsesCpuModelOnX86AndArm) {
  EXPECT_EQ(parse_cpu_model("processor\t: 0\nmodel name\t: AMD EPYC 9654 96-Core Processor\nflags\t: x\n"),
            "AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(parse_cpu_model("processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd4f\n"),
            "arm implementer 0x41 part 0xd4f");
  EXPECT_EQ(parse_cpu_model("processor\t: 0\n"), std::nullopt);
}

TEST(NodeInfo, CollectsThisHost) {
  const NodeInfo node = collect_node_info(env_of({}));
  EXPECT_FALSE(node.hostname.empty());
  EXPECT_TRUE(node.kernel_release.has_value());
  ASSERT_TRUE(node.cpus_online.has_value());
  EXPECT_GE(*node.cpus_online, 1);
}

// ---- NVML loading --------------------------------------------------------------

TEST(Nvml, MissingLibraryIsReportedNotFatal) {
  const Nvml nvml(std::string("libvsa-no-such-nvml.so.1"));
  EXPECT_FALSE(nvml.available());
  EXPECT_NE(nvml.error().find("libvsa-no-such-nvml.so.1"), std::string::npos) << nvml.error();
  EXPECT_NE(nvml.error().find("dlopen"), std::string::npos) << nvml.error();
  EXPECT_FALSE(nvml.driver_version());
  EXPECT_FALSE(nvml.device_count());
  EXPECT_FALSE(nvml.device_by_index(0));
  const ClockSample sample = nvml.sample(NvmlSampleTarget{});
  EXPECT_FALSE(sample.sm_clock_mhz);
  EXPECT_FALSE(sample.event_reasons);

  Strings notes;
  const auto devices = collect_device_fingerprints(nvml, /*use_cuda=*/false, notes);
  EXPECT_TRUE(devices.empty());
  EXPECT_TRUE(contains(notes, "NVML not available: cannot load libvsa-no-such-nvml.so.1")) << notes.size();
  EXPECT_TRUE(contains(notes, "no GPU information"));
}

TEST(Nvml, DefaultLibraryEitherLoadsOrSaysWhy) {
  const Nvml nvml;
  if (nvml.available()) {
    EXPECT_TRUE(nvml.driver_version().has_value());
  } else {
    EXPECT_NE(nvml.error().find("libnvidia-ml.so.1"), std::string::npos) << nvml.error();
  }
}

// A fake NVML with one device: an old driver without the GSP entry points and
// with only the pre-535 throttle-reasons name.
namespace fake {
using namespace nvml_api;
int init_calls = 0;
int shutdown_calls = 0;
nvmlReturn_t init_result = NVML_SUCCESS;
int device_tag = 0;
nvmlDevice_t the_device() { return reinterpret_cast<nvmlDevice_t>(&device_tag); }

void copy(char* out, unsigned size, const char* text) {
  std::strncpy(out, text, size - 1);
  out[size - 1] = '\0';
}
nvmlReturn_t init() {
  ++init_calls;
  return init_result;
}
nvmlReturn_t shutdown() {
  ++shutdown_calls;
  return NVML_SUCCESS;
}
const char* error_string(nvmlReturn_t code) { return code == 9 ? "Driver Not Loaded" : "Unknown Error"; }
nvmlReturn_t driver_version(char* out, unsigned size) {
  copy(out, size, "470.42.01");
  return NVML_SUCCESS;
}
nvmlReturn_t count(unsigned* n) {
  *n = 1;
  return NVML_SUCCESS;
}
nvmlReturn_t by_index(unsigned i, nvmlDevice_t* d) {
  if (i != 0) return 2;
  *d = the_device();
  return NVML_SUCCESS;
}
nvmlReturn_t by_pci_bus_id(const char* bus_id, nvmlDevice_t* d) {
  if (std::string(bus_id) != "0000:19:00.0") return 6;  // NVML_ERROR_NOT_FOUND
  *d = the_device();
  return NVML_SUCCESS;
}
nvmlReturn_t index(nvmlDevice_t, unsigned* i) {
  *i = 0;
  return NVML_SUCCESS;
}
nvmlReturn_t name(nvmlDevice_t d, char* out, unsigned size) {
  if (d != the_device()) return 2;
  copy(out, size, "Fake GPU");
  return NVML_SUCCESS;
}
nvmlReturn_t vbios(nvmlDevice_t, char* out, unsigned size) {
  if (size < NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  copy(out, size, "96.00.A5.00.1A");
  return NVML_SUCCESS;
}
nvmlReturn_t serial_not_supported(nvmlDevice_t, char*, unsigned) { return 3; }  // NVML_ERROR_NOT_SUPPORTED
nvmlReturn_t clock(nvmlDevice_t, nvmlClockType_t type, unsigned* mhz) {
  *mhz = type == NVML_CLOCK_SM ? 1755 : 2619;
  return NVML_SUCCESS;
}
nvmlReturn_t throttle(nvmlDevice_t, unsigned long long* reasons) {
  *reasons = 0x4;
  return NVML_SUCCESS;
}

// Twenty processes hold a compute context, more than Nvml's first buffer: the list is refused
// while the buffer is too small, with the count needed, as the driver does.
constexpr unsigned kProcesses = 20;
nvmlReturn_t compute_processes(nvmlDevice_t, unsigned* count, nvml_api::nvmlProcessInfo_t* infos) {
  if (*count < kProcesses) {
    *count = kProcesses;
    return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  }
  *count = kProcesses;
  for (unsigned i = 0; i < kProcesses; ++i) infos[i] = {4700 + i, 1ull << 30, 0, 0};
  return NVML_SUCCESS;
}

void* lookup(const char* symbol) {
  const std::map<std::string, void*> table = {
      {"nvmlInit_v2", reinterpret_cast<void*>(&init)},
      {"nvmlShutdown", reinterpret_cast<void*>(&shutdown)},
      {"nvmlErrorString", reinterpret_cast<void*>(&error_string)},
      {"nvmlSystemGetDriverVersion", reinterpret_cast<void*>(&driver_version)},
      {"nvmlDeviceGetCount_v2", reinterpret_cast<void*>(&count)},
      {"nvmlDeviceGetHandleByIndex_v2", reinterpret_cast<void*>(&by_index)},
      {"nvmlDeviceGetHandleByPciBusId_v2", reinterpret_cast<void*>(&by_pci_bus_id)},
      {"nvmlDeviceGetIndex", reinterpret_cast<void*>(&index)},
      {"nvmlDeviceGetName", reinterpret_cast<void*>(&name)},
      {"nvmlDeviceGetVbiosVersion", reinterpret_cast<void*>(&vbios)},
      {"nvmlDeviceGetSerial", reinterpret_cast<void*>(&serial_not_supported)},
      {"nvmlDeviceGetClockInfo", reinterpret_cast<void*>(&clock)},
      {"nvmlDeviceGetCurrentClocksThrottleReasons", reinterpret_cast<void*>(&throttle)},
      {"nvmlDeviceGetComputeRunningProcesses_v3", reinterpret_cast<void*>(&compute_processes)},
  };
  const auto it = table.find(symbol);
  return it == table.end() ? nullptr : it->second;
}
}  // namespace fake

TEST(Nvml, FakeOldDriverLosesOnlyTheMissingFields) {
  fake::init_calls = fake::shutdown_calls = 0;
  fake::init_result = nvml_api::NVML_SUCCESS;
  {
    const Nvml nvml(fake::lookup, "fake-nvml");
    ASSERT_TRUE(nvml.available()) << nvml.error();
    EXPECT_EQ(fake::init_calls, 1);
    EXPECT_EQ(nvml.driver_version(), "470.42.01");
    EXPECT_FALSE(nvml.cuda_driver_version());  // symbol absent
    ASSERT_EQ(nvml.device_count(), 1u);
    const auto device = nvml.device_by_index(0);
    ASSERT_TRUE(device);
    EXPECT_FALSE(nvml.device_by_index(1));
    EXPECT_EQ(nvml.name(*device), "Fake GPU");
    EXPECT_EQ(nvml.vbios_version(*device), "96.00.A5.00.1A");
    EXPECT_FALSE(nvml.serial(*device));                // present but not supported
    EXPECT_FALSE(nvml.gsp_firmware_version(*device));  // absent
    EXPECT_FALSE(nvml.gsp_firmware_mode(*device));
    EXPECT_TRUE(contains(nvml.missing_symbols(), "nvmlDeviceGetGspFirmwareVersion"));
    EXPECT_TRUE(contains(nvml.missing_symbols(), "nvmlDeviceGetGspFirmwareMode"));
    // The old throttle name stands in for the clocks-event one, so it is not "missing".
    EXPECT_FALSE(contains(nvml.missing_symbols(), "ClocksEventReasons"));

    const ClockSample sample = nvml.sample(NvmlSampleTarget::whole(*device));
    EXPECT_EQ(sample.sm_clock_mhz, 1755u);
    EXPECT_EQ(sample.mem_clock_mhz, 2619u);
    EXPECT_FALSE(sample.temperature_c);
    EXPECT_EQ(sample.reason_names(), Strings{"sw_power_cap"});
    ASSERT_TRUE(sample.compute_pids);
    ASSERT_EQ(sample.compute_pids->size(), fake::kProcesses);
    EXPECT_EQ(sample.compute_pids->front(), 4700u);
    EXPECT_EQ(sample.compute_pids->back(), 4719u);
    EXPECT_EQ(nlohmann::json(sample)["compute_pids"].size(), fake::kProcesses);

    Strings notes;
    const auto devices = collect_device_fingerprints(nvml, /*use_cuda=*/false, notes);
    ASSERT_EQ(devices.size(), 1u);
    EXPECT_EQ(devices[0].name, "Fake GPU");
    EXPECT_EQ(devices[0].nvml_index, 0u);
    EXPECT_EQ(devices[0].driver_version, "470.42.01");
    EXPECT_EQ(devices[0].vbios_version, "96.00.A5.00.1A");
    EXPECT_EQ(devices[0].sm_clock_mhz, 1755u);
    EXPECT_FALSE(devices[0].gsp_firmware_version);
    EXPECT_FALSE(devices[0].cuda_ordinal);  // CUDA not queried
    EXPECT_TRUE(contains(notes, "NVML lacks"));
    EXPECT_TRUE(contains(notes, "nvmlDeviceGetGspFirmwareMode"));
  }
  EXPECT_EQ(fake::shutdown_calls, 1);
}

TEST(Nvml, JoinsWhatCudaReportedByPciBusId) {
  fake::init_result = nvml_api::NVML_SUCCESS;
  const Nvml nvml(fake::lookup, "fake-nvml");
  ASSERT_TRUE(nvml.available()) << nvml.error();
  // What a worker sends back: the CUDA view only, read back from its JSON.
  DeviceFingerprint from_worker;
  from_worker.cuda_ordinal = 0;
  from_worker.name = "cuda name";
  from_worker.pci_bus_id = "0000:19:00.0";
  from_worker.cc_major = 9;
  DeviceFingerprint fp = nlohmann::json(from_worker).get<DeviceFingerprint>();
  Strings notes;
  add_nvml_fields(nvml, fp, notes);
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(fp.name, "Fake GPU");  // NVML's name wins
  EXPECT_EQ(fp.vbios_version, "96.00.A5.00.1A");
  EXPECT_EQ(fp.nvml_index, 0u);
  EXPECT_EQ(fp.cc_major, 9);  // the CUDA fields stay
  EXPECT_EQ(fp.cuda_ordinal, 0);

  DeviceFingerprint elsewhere;
  elsewhere.cuda_ordinal = 1;
  elsewhere.pci_bus_id = "0000:9a:00.0";
  add_nvml_fields(nvml, elsewhere, notes);
  EXPECT_FALSE(elsewhere.vbios_version);
  EXPECT_TRUE(contains(notes, "CUDA device 1 (PCI 0000:9a:00.0) not found in NVML"));
}

TEST(Nvml, FailedInitIsNotAvailableAndNeverShutDown) {
  fake::init_calls = fake::shutdown_calls = 0;
  fake::init_result = 9;  // NVML_ERROR_DRIVER_NOT_LOADED
  {
    const Nvml nvml(fake::lookup, "fake-nvml");
    EXPECT_FALSE(nvml.available());
    EXPECT_NE(nvml.error().find("nvmlInit_v2 failed: Driver Not Loaded (9)"), std::string::npos) << nvml.error();
    EXPECT_FALSE(nvml.device_count());
  }
  EXPECT_EQ(fake::shutdown_calls, 0);
  fake::init_result = nvml_api::NVML_SUCCESS;
}

TEST(Nvml, LibraryWithoutInitIsNotAvailable) {
  const Nvml nvml([](const char*) -> void* { return nullptr; }, "empty-lib");
  EXPECT_FALSE(nvml.available());
  EXPECT_NE(nvml.error().find("empty-lib lacks nvmlInit_v2"), std::string::npos) << nvml.error();
}

// ---- JSON shape -----------------------------------------------------------------

TEST(FingerprintJson, DeviceHasEveryKeyNullWhenUnknown) {
  const nlohmann::json j = DeviceFingerprint{};
  for (const char* key : {"nvml_index",
                          "cuda_ordinal",
                          "name",
                          "uuid",
                          "serial",
                          "pci_bus_id",
                          "driver_version",
                          "cuda_driver_version",
                          "cuda_runtime_version",
                          "vbios_version",
                          "gsp_firmware_version",
                          "gsp_firmware_enabled",
                          "inforom_image_version",
                          "ecc_enabled",
                          "ecc_uncorrected_volatile",
                          "ecc_uncorrected_aggregate",
                          "power_limit_w",
                          "sm_clock_mhz",
                          "sm_clock_max_mhz",
                          "mem_clock_mhz",
                          "persistence_mode",
                          "temperature_c",
                          "memory_total_bytes",
                          "cc_major",
                          "cc_minor",
                          "sm_count",
                          "l2_cache_bytes",
                          "smem_per_block_optin_bytes",
                          "sm_clock_peak_khz"}) {
    ASSERT_TRUE(j.contains(key)) << key;
    EXPECT_TRUE(j[key].is_null()) << key;
  }
}

TEST(FingerprintJson, RoundTripsThroughJson) {
  Fingerprint fp;
  fp.node.hostname = "gpu-a12";
  fp.node.label = "rack-7";
  fp.node.launcher = launcher_info_from(env_of({{"SLURM_PROCID", "2"}, {"SLURM_JOB_ID", "9"}}));
  DeviceFingerprint d;
  d.cuda_ordinal = 0;
  d.name = "NVIDIA H200";
  d.vbios_version = "96.00.A5.00.1A";
  d.gsp_firmware_enabled = true;
  d.ecc_uncorrected_aggregate = 0;
  d.power_limit_w = 700.0;
  d.memory_total_bytes = 150754820096ull;
  fp.devices.push_back(d);
  fp.notes.push_back("a note");

  const nlohmann::json j = fp;
  EXPECT_EQ(j["node"]["launcher"]["kind"], "slurm");
  EXPECT_EQ(j["node"]["launcher"]["rank"], 2);
  EXPECT_EQ(j["devices"][0]["vbios_version"], "96.00.A5.00.1A");
  EXPECT_TRUE(j["devices"][0]["serial"].is_null());
  const Fingerprint back = j.get<Fingerprint>();
  EXPECT_EQ(nlohmann::json(back), j);
  EXPECT_EQ(back.devices.at(0).memory_total_bytes, 150754820096ull);
}

TEST(FingerprintJson, NoCudaCollectionHasTheDocumentedShape) {
  const nlohmann::json j = collect_fingerprint(/*use_cuda=*/false, "lab");
  for (const char* key : {"node", "devices", "notes"}) ASSERT_TRUE(j.contains(key)) << key;
  for (const char* key :
       {"hostname", "label", "launcher", "kernel_release", "os", "cpu_model", "cpus_online", "cpus_allowed"})
    EXPECT_TRUE(j["node"].contains(key)) << key;
  EXPECT_EQ(j["node"]["label"], "lab");
  EXPECT_TRUE(j["devices"].is_array());
  // Either NVML answered with devices, or a note says why there are none.
  if (j["devices"].empty()) {
    EXPECT_FALSE(j["notes"].empty());
  }
}

TEST(FingerprintJson, BuildInfoNamesTheBuild) {
  const nlohmann::json j = build_info_json();
  for (const char* key : {"version", "git_sha", "build_type", "cxx_compiler", "cuda_compiler", "cuda_toolkit"})
    EXPECT_TRUE(j.contains(key) && j[key].is_string()) << key;
}

TEST(FingerprintText, PrintsNodeDevicesAndNotes) {
  Fingerprint fp;
  fp.node.hostname = "gpu-a12";
  DeviceFingerprint d;
  d.name = "NVIDIA H200";
  d.gsp_firmware_version = "580.159.04";
  d.cuda_driver_version = 13000;
  fp.devices.push_back(d);
  fp.notes.push_back("NVML not available: test");
  const std::string text = format_fingerprint_text(fp);
  EXPECT_NE(text.find("hostname       gpu-a12"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu 0  NVIDIA H200"), std::string::npos) << text;
  EXPECT_NE(text.find("gsp firmware   580.159.04"), std::string::npos) << text;
  EXPECT_NE(text.find("CUDA driver 13.0"), std::string::npos) << text;
  EXPECT_NE(text.find("  - NVML not available: test"), std::string::npos) << text;
}

}  // namespace
}  // namespace vsa
