// The GPU flags are checked as input before any work (run/gpu_expectation.hpp): a typo in
// --devices, or flags that contradict each other, is a usage error (exit 2), not a node that
// has no GPU (exit 4 and a report saying the GPU is unusable).
#include <gtest/gtest.h>

#include "run/gpu_expectation.hpp"

namespace vsa {
namespace {

TEST(GpuFlags, DevicesTakesAllNoneOrOrdinals) {
  for (const char* good : {"all", "none", "0", "1", "0,2", "3,1,0"}) EXPECT_EQ(devices_flag_error(good), "") << good;
  EXPECT_EQ(devices_flag_error("bogus"), "\"bogus\" is not a device (all, none or CUDA ordinals like 0,2)");
  EXPECT_EQ(devices_flag_error(""), "\"\" is not a device (all, none or CUDA ordinals like 0,2)");
  EXPECT_EQ(devices_flag_error("1x"), "\"1x\" is not a device (all, none or CUDA ordinals like 0,2)");  // not 1
  EXPECT_EQ(devices_flag_error("0,"), "\"\" is not a device (all, none or CUDA ordinals like 0,2)");
  EXPECT_EQ(devices_flag_error("-1"), "\"-1\" is not a device (all, none or CUDA ordinals like 0,2)");
  EXPECT_EQ(devices_flag_error("0,0"), "device 0 given twice");
  EXPECT_EQ(devices_flag_error("0,00"), "device 0 given twice");  // the same GPU timed against itself
}

TEST(GpuFlags, OneDeviceWhereOnlyOneIsTaken) {
  EXPECT_EQ(devices_flag_error("none", false), "");
  EXPECT_EQ(devices_flag_error("2", false), "");
  EXPECT_EQ(devices_flag_error("all", false), "");  // the first
  EXPECT_EQ(devices_flag_error("0,1", false), "\"0,1\": one device only (all (the first), none or one CUDA ordinal)");
}

TEST(GpuFlags, NoneContradictsAskingForGpus) {
  GpuEvidence f;
  f.devices_flag = "none";
  EXPECT_EQ(contradicting_gpu_flags(f), "");
  f.require_gpu = true;
  EXPECT_EQ(contradicting_gpu_flags(f), "--require-gpu contradicts --devices none");
  f.require_gpu = false;
  f.expect_gpus = 2;
  EXPECT_EQ(contradicting_gpu_flags(f), "--expect-gpus 2 contradicts --devices none");
  f.expect_gpus = 0;  // "expect no GPU" agrees with none
  EXPECT_EQ(contradicting_gpu_flags(f), "");
  f.devices_flag = "all";
  f.require_gpu = true;
  EXPECT_EQ(contradicting_gpu_flags(f), "");
}

}  // namespace
}  // namespace vsa
