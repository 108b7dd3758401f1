// MIG: a timing's clock samples list the processes of the instance the CUDA device stands for,
// not the whole GPU's. Under MIG the GPU's own handle lists every instance's processes (with the
// privileges to ask), and those share none of our SMs; read there, the shared-GPU check
// (health.exclusive) would fail a node for a neighbour on another instance. A fake NVML plays a
// MIG GPU with two instances; no CUDA is touched (the MIG UUID is handed in).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "telemetry/fingerprint.hpp"
#include "telemetry/nvml.hpp"
#include "telemetry/nvml_api.hpp"
#include "telemetry/nvml_cuda.hpp"

namespace vsa {
namespace {

namespace mig_fake {
using namespace nvml_api;
int gpu_tag = 0, ours_tag = 0, theirs_tag = 0;
nvmlDevice_t gpu() { return reinterpret_cast<nvmlDevice_t>(&gpu_tag); }
nvmlDevice_t ours() { return reinterpret_cast<nvmlDevice_t>(&ours_tag); }
nvmlDevice_t theirs() { return reinterpret_cast<nvmlDevice_t>(&theirs_tag); }
constexpr const char* kOursUuid = "MIG-a65afc88-50b5-5ccf-b0a8-f93b3247ae9e";
constexpr const char* kTheirsUuid = "MIG-0d2b4c1e-1f2a-5b3c-8d4e-5f6a7b8c9d0e";

nvmlReturn_t mig_mode_result = NVML_SUCCESS;
unsigned mig_current = 1;

nvmlReturn_t init() { return NVML_SUCCESS; }
nvmlReturn_t shutdown() { return NVML_SUCCESS; }
const char* error_string(nvmlReturn_t) { return "Insufficient Permissions"; }
nvmlReturn_t by_pci_bus_id(const char*, nvmlDevice_t* d) {
  *d = gpu();
  return NVML_SUCCESS;
}
nvmlReturn_t by_uuid(const char* uuid, nvmlDevice_t* d) {
  if (std::strcmp(uuid, kOursUuid) == 0)
    *d = ours();
  else if (std::strcmp(uuid, kTheirsUuid) == 0)
    *d = theirs();
  else
    return 6;  // NVML_ERROR_NOT_FOUND
  return NVML_SUCCESS;
}
nvmlReturn_t mig_mode(nvmlDevice_t d, unsigned* current, unsigned* pending) {
  if (d != gpu()) return NVML_ERROR_NOT_SUPPORTED;  // asked of an instance's handle
  *current = *pending = mig_current;
  return mig_mode_result;
}
nvmlReturn_t clock(nvmlDevice_t d, nvmlClockType_t, unsigned* mhz) {
  if (d != gpu()) return NVML_ERROR_NOT_SUPPORTED;  // clocks are the physical GPU's
  *mhz = 1980;
  return NVML_SUCCESS;
}
// The GPU's handle lists every instance's processes: our worker (4700) and a neighbour's two
// (5100, 5101) on the other instance. Each instance's handle lists its own.
nvmlReturn_t compute_processes(nvmlDevice_t d, unsigned* count, nvmlProcessInfo_t* infos) {
  std::vector<nvmlProcessInfo_t> list;
  if (d == gpu() || d == ours()) list.push_back({4700, 1ull << 30, 1, 0});
  if (d == gpu() || d == theirs()) {
    list.push_back({5100, 1ull << 30, 2, 0});
    list.push_back({5101, 1ull << 30, 2, 0});
  }
  if (*count < list.size()) {
    *count = unsigned(list.size());
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  *count = unsigned(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) infos[i] = list[i];
  return NVML_SUCCESS;
}

bool with_mig_mode = true;
void* lookup(const char* symbol) {
  const std::map<std::string, void*> table = {
      {"nvmlInit_v2", reinterpret_cast<void*>(&init)},
      {"nvmlShutdown", reinterpret_cast<void*>(&shutdown)},
      {"nvmlErrorString", reinterpret_cast<void*>(&error_string)},
      {"nvmlDeviceGetHandleByPciBusId_v2", reinterpret_cast<void*>(&by_pci_bus_id)},
      {"nvmlDeviceGetHandleByUUID", reinterpret_cast<void*>(&by_uuid)},
      {"nvmlDeviceGetMigMode", reinterpret_cast<void*>(&mig_mode)},
      {"nvmlDeviceGetClockInfo", reinterpret_cast<void*>(&clock)},
      {"nvmlDeviceGetComputeRunningProcesses_v3", reinterpret_cast<void*>(&compute_processes)},
  };
  if (!with_mig_mode && std::string(symbol) == "nvmlDeviceGetMigMode") return nullptr;
  const auto it = table.find(symbol);
  return it == table.end() ? nullptr : it->second;
}

// Each test starts from a MIG-enabled GPU whose NVML answers every call.
struct Reset {
  Reset() {
    mig_mode_result = NVML_SUCCESS;
    mig_current = 1;
    with_mig_mode = true;
  }
};
}  // namespace mig_fake

using Pids = std::vector<unsigned>;

std::optional<Pids> pids_of(const ClockSample& sample) { return sample.compute_pids; }

TEST(NvmlMig, UnderMigTheSampleListsOnlyOurInstancesProcesses) {
  const mig_fake::Reset reset;
  const Nvml nvml(mig_fake::lookup, "fake-mig-nvml");
  ASSERT_TRUE(nvml.available()) << nvml.error();
  const NvmlDevice gpu{mig_fake::gpu()};
  EXPECT_EQ(nvml.mig_enabled(gpu).value, true);
  int asked = 0;
  const NvmlSampleTarget target = sample_target(nvml, gpu, [&] {
    ++asked;
    return std::optional<std::string>(mig_fake::kOursUuid);
  });
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(target.gpu.handle, mig_fake::gpu());
  ASSERT_TRUE(target.processes);
  EXPECT_EQ(target.processes->handle, mig_fake::ours());
  const ClockSample sample = nvml.sample(target);
  EXPECT_EQ(sample.sm_clock_mhz, 1980u);  // still read from the GPU
  EXPECT_EQ(pids_of(sample), (Pids{4700}));
  EXPECT_FALSE(nlohmann::json(sample).contains("compute_pids_why"));
  // What the GPU's own handle would have said: the other instance's pids as neighbours.
  EXPECT_EQ(pids_of(nvml.sample(NvmlSampleTarget::whole(gpu))), (Pids{4700, 5100, 5101}));
}

TEST(NvmlMig, WithoutMigTheGpuListsItsProcessesAndNoUuidIsAsked) {
  const mig_fake::Reset reset;
  mig_fake::mig_current = 0;
  const Nvml nvml(mig_fake::lookup, "fake-mig-nvml");
  const NvmlDevice gpu{mig_fake::gpu()};
  bool asked = false;
  const NvmlSampleTarget target = sample_target(nvml, gpu, [&] {
    asked = true;
    return std::optional<std::string>();
  });
  EXPECT_FALSE(asked);  // no driver call for a GPU without MIG
  ASSERT_TRUE(target.processes);
  EXPECT_EQ(target.processes->handle, mig_fake::gpu());
  EXPECT_EQ(pids_of(nvml.sample(target)), (Pids{4700, 5100, 5101}));
}

TEST(NvmlMig, NoMigOnTheGpuOrInThisNvmlReadsTheGpu) {
  const mig_fake::Reset reset;
  mig_fake::mig_mode_result = nvml_api::NVML_ERROR_NOT_SUPPORTED;  // a GPU without MIG
  {
    const Nvml nvml(mig_fake::lookup, "fake-mig-nvml");
    EXPECT_EQ(nvml.mig_enabled(NvmlDevice{mig_fake::gpu()}).value, false);
    const auto target = sample_target(nvml, NvmlDevice{mig_fake::gpu()}, {});
    ASSERT_TRUE(target.processes);
    EXPECT_EQ(target.processes->handle, mig_fake::gpu());
  }
  mig_fake::mig_mode_result = nvml_api::NVML_SUCCESS;
  mig_fake::with_mig_mode = false;  // an NVML from before MIG
  const Nvml nvml(mig_fake::lookup, "fake-mig-nvml");
  EXPECT_EQ(nvml.mig_enabled(NvmlDevice{mig_fake::gpu()}).value, false);
  const auto target = sample_target(nvml, NvmlDevice{mig_fake::gpu()}, {});
  ASSERT_TRUE(target.processes);
  EXPECT_EQ(target.processes->handle, mig_fake::gpu());
}

TEST(NvmlMig, AnInstanceThatCannotBeFoundLeavesTheProcessesUnknown) {
  // Fail-safe: an unknown list makes health.exclusive SKIP, where the GPU's list would FAIL.
  const mig_fake::Reset reset;
  const Nvml nvml(mig_fake::lookup, "fake-mig-nvml");
  const NvmlDevice gpu{mig_fake::gpu()};
  const std::vector<std::pair<std::optional<std::string>, std::string>> cases = {
      {std::nullopt, "MIG UUID is unknown"},
      {"MIG-00000000-0000-0000-0000-000000000000", "no MIG device MIG-00000000-0000-0000-0000-000000000000"}};
  for (const auto& [uuid, why] : cases) {
    const NvmlSampleTarget target = sample_target(nvml, gpu, [&] { return uuid; });
    EXPECT_FALSE(target.processes) << uuid.value_or("no uuid");
    EXPECT_NE(target.why.find(why), std::string::npos) << target.why;
    const ClockSample sample = nvml.sample(target);
    EXPECT_EQ(sample.sm_clock_mhz, 1980u);
    EXPECT_FALSE(sample.compute_pids);
    const nlohmann::json j = sample;
    EXPECT_TRUE(j["compute_pids"].is_null());
    EXPECT_EQ(j.value("compute_pids_why", ""), target.why);
  }
}

TEST(NvmlMig, AMigModeThatCannotBeReadLeavesTheProcessesUnknown) {
  const mig_fake::Reset reset;
  mig_fake::mig_mode_result = 4;  // NVML_ERROR_NO_PERMISSION
  const Nvml nvml(mig_fake::lookup, "fake-mig-nvml");
  const auto mig = nvml.mig_enabled(NvmlDevice{mig_fake::gpu()});
  EXPECT_FALSE(mig.value);
  EXPECT_NE(mig.why.find("nvmlDeviceGetMigMode"), std::string::npos) << mig.why;
  const NvmlSampleTarget target = sample_target(nvml, NvmlDevice{mig_fake::gpu()}, {});
  EXPECT_FALSE(target.processes);
  EXPECT_NE(target.why.find("whether MIG is on is unknown"), std::string::npos) << target.why;
}

// The worker's CUDA side gives cuDeviceGetUuid_v2 as a MIG UUID whatever the GPU; NVML decides
// whether it names an instance (without MIG it is the GPU's own UUID, wrongly prefixed).
TEST(NvmlMig, TheFingerprintKeepsTheInstanceUuidOnlyUnderMig) {
  const mig_fake::Reset reset;
  auto joined = [](bool mig_on, const std::optional<std::string>& cuda_uuid) {
    mig_fake::mig_current = mig_on ? 1 : 0;
    const Nvml nvml(mig_fake::lookup, "fake-mig-nvml");
    DeviceFingerprint worker;  // the worker's CUDA facts, sent to the supervisor as JSON
    worker.pci_bus_id = "0000:19:00.0";
    worker.mig_uuid = cuda_uuid;
    DeviceFingerprint fp = nlohmann::json(worker).get<DeviceFingerprint>();
    std::vector<std::string> notes;
    add_nvml_fields(nvml, fp, notes);
    return std::make_pair(fp, notes);
  };
  auto [on, on_notes] = joined(true, std::string(mig_fake::kOursUuid));
  EXPECT_EQ(on.mig_uuid, mig_fake::kOursUuid);
  EXPECT_TRUE(on_notes.empty());
  EXPECT_FALSE(joined(false, std::string(mig_fake::kOursUuid)).first.mig_uuid);
  auto [unknown, unknown_notes] = joined(true, std::nullopt);
  EXPECT_FALSE(unknown.mig_uuid);
  ASSERT_EQ(unknown_notes.size(), 1u);
  EXPECT_NE(unknown_notes[0].find("did not give the instance's UUID"), std::string::npos) << unknown_notes[0];
  // No NVML: nothing confirms MIG, so nothing names an instance.
  const Nvml missing(std::string("libvsa-no-such-nvml.so.1"));
  DeviceFingerprint fp;
  fp.mig_uuid = mig_fake::kOursUuid;
  std::vector<std::string> notes;
  add_nvml_fields(missing, fp, notes);
  EXPECT_FALSE(fp.mig_uuid);
  EXPECT_TRUE(nlohmann::json(fp).at("mig_uuid").is_null());
  EXPECT_EQ(nlohmann::json(on).at("mig_uuid"), mig_fake::kOursUuid);
}

TEST(NvmlMig, TheFingerprintSaysMigIsOn) {
  const mig_fake::Reset reset;
  const Nvml nvml(mig_fake::lookup, "fake-mig-nvml");
  DeviceFingerprint fp;
  fp.pci_bus_id = "0000:19:00.0";
  std::vector<std::string> notes;
  add_nvml_fields(nvml, fp, notes);
  EXPECT_EQ(fp.mig_enabled, true);
  EXPECT_EQ(nlohmann::json(fp)["mig_enabled"], true);
  EXPECT_EQ(nlohmann::json(fp).get<DeviceFingerprint>().mig_enabled, true);
  Fingerprint whole;
  whole.devices = {fp};
  EXPECT_NE(format_fingerprint_text(whole).find("MIG"), std::string::npos);
  EXPECT_EQ(format_fingerprint_text(whole).find("off"), std::string::npos) << format_fingerprint_text(whole);
  whole.devices[0].mig_uuid = mig_fake::kOursUuid;
  EXPECT_NE(format_fingerprint_text(whole).find(std::string("on: this device is instance ") + mig_fake::kOursUuid),
            std::string::npos)
      << format_fingerprint_text(whole);
}

TEST(NvmlMig, UuidBytesAreSpelledAsNvidiaSmiSpellsThem) {
  // The spelling only: these bytes are read off a MIG UUID as nvidia-smi -L prints it (a public
  // issue's output), not taken from cuDeviceGetUuid_v2. That the driver's bytes spell NVML's UUID
  // is checked on a GPU (tests/device, NvmlCudaDevice) for the GPU's own UUID; no MIG GPU was at hand.
  const char bytes[16] = {char(0xa6), char(0x5a), char(0xfc), char(0x88), char(0x50), char(0xb5),
                          char(0x5c), char(0xcf), char(0xb0), char(0xa8), char(0xf9), char(0x3b),
                          char(0x32), char(0x47), char(0xae), char(0x9e)};
  EXPECT_EQ(format_uuid(bytes, "MIG-"), mig_fake::kOursUuid);
  EXPECT_EQ(format_uuid(bytes, "GPU-"), "GPU-a65afc88-50b5-5ccf-b0a8-f93b3247ae9e");
}

}  // namespace
}  // namespace vsa
