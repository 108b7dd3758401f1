// The CUDA-to-NVML join on a real driver (telemetry/nvml_cuda.hpp): cuDeviceGetUuid_v2's bytes,
// spelt as nvidia-smi spells them, name the same device NVML does, and a timing's clock sample
// for a CUDA ordinal lists the processes (ours among them, once we hold a context). Without MIG
// the UUID is the GPU's, so this checks the driver lookup and the spelling that the MIG path
// relies on for a MIG instance's UUID; on a MIG GPU the instance branch only repeats the code's
// own lookup (no MIG GPU was at hand). Skips with the reason where NVML or a GPU is absent.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <unistd.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "telemetry/fingerprint.hpp"
#include "telemetry/node_fingerprint.hpp"
#include "telemetry/nvml.hpp"
#include "telemetry/nvml_cuda.hpp"

namespace vsa {
namespace {

TEST(NvmlCudaDevice, TheDriversUuidNamesTheDeviceNvmlJoinsByPciBusId) {
  const Nvml& nvml = shared_nvml();
  if (!nvml.available()) GTEST_SKIP() << "NVML unavailable: " << nvml.error();
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "no CUDA device";
  const auto gpu = nvml_device_for_cuda_ordinal(nvml, 0);
  ASSERT_TRUE(gpu);
  const auto mig = nvml.mig_enabled(*gpu);
  ASSERT_TRUE(mig.value) << mig.why;
  const auto uuid = cuda_uuid_v2(0, *mig.value ? "MIG-" : "GPU-");
  ASSERT_TRUE(uuid);
  const auto by_uuid = nvml.device_by_uuid(*uuid);
  ASSERT_TRUE(by_uuid) << *uuid << " is not a device NVML knows";
  if (!*mig.value) {
    EXPECT_EQ(nvml.uuid(*gpu), *uuid);
    EXPECT_EQ(by_uuid->handle, gpu->handle);
  }
  const auto target = nvml_sample_target_for_cuda_ordinal(nvml, 0);
  ASSERT_TRUE(target);
  ASSERT_TRUE(target->processes) << target->why;
  EXPECT_EQ(target->processes->handle, *mig.value ? by_uuid->handle : gpu->handle);
  // The fingerprint as a worker and the supervisor build it: an instance's UUID only under MIG.
  std::vector<std::string> notes;
  DeviceFingerprint fp = collect_cuda_device_fingerprint(0, notes);
  add_nvml_fields(nvml, fp, notes);
  EXPECT_EQ(fp.mig_enabled, *mig.value);
  EXPECT_EQ(fp.mig_uuid, *mig.value ? uuid : std::nullopt);
}

TEST(NvmlCudaDevice, AClockSampleListsOurOwnContext) {
  const Nvml& nvml = shared_nvml();
  if (!nvml.available()) GTEST_SKIP() << "NVML unavailable: " << nvml.error();
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "no CUDA device";
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // holds a context on device 0
  const nlohmann::json sample = sample_clocks_json(0);
  ASSERT_TRUE(sample.is_object());
  ASSERT_TRUE(sample["compute_pids"].is_array()) << sample.dump();
  // Our own pid, as this pid namespace numbers it (the driver's numbering: telemetry/nvml.hpp).
  const auto& pids = sample["compute_pids"];
  EXPECT_NE(std::find(pids.begin(), pids.end(), nlohmann::json(unsigned(getpid()))), pids.end()) << sample.dump();
  EXPECT_NE(sample["sm_clock_mhz"], nullptr);
}

}  // namespace
}  // namespace vsa
