// The CUDA-to-NVML join on a real driver (telemetry/nvml_cuda.hpp): cuDeviceGetUuid_v2's bytes,
// spelt as nvidia-smi spells them, name the same device NVML does, and a timing's clock sample
// for a CUDA ordinal lists the processes (ours among them, once we hold a context). Without MIG
// the UUID is the GPU's, so this checks the driver lookup and the spelling that the MIG path
// relies on for a MIG instance's UUID; a MIG GPU was not at hand. Skips with the reason where
// NVML or a GPU is absent.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>

#include <nlohmann/json.hpp>

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
  EXPECT_GE(sample["compute_pids"].size(), 1u) << sample.dump();
  EXPECT_NE(sample["sm_clock_mhz"], nullptr);
}

}  // namespace
}  // namespace vsa
