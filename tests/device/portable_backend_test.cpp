// cuda-ref as a registered backend: what it says about itself (support, images, kernels).
#include <gtest/gtest.h>

#include <string>

#include "portable_runs.hpp"

namespace vsa::test {
namespace {

TEST(PortableBackendInfo, RefusesWithoutADeviceAndSaysWhy) {
  Backend& b = cuda_ref_backend();
  EXPECT_EQ(b.memory(), Memory::device);
  EXPECT_TRUE(b.nondeterministic_outputs().empty());
  const Support s = b.supports(DeviceInfo{}, Shape{}, Op::forward);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.reason, "no CUDA device");
}

TEST(PortableBackendInfo, SupportLimitsFollowTheShape) {
  Backend& b = cuda_ref_backend();
  DeviceInfo h200;
  h200.ordinal = 0;
  h200.cc_major = 9;
  Shape s;
  s.head_dim = 256;
  EXPECT_TRUE(b.supports(h200, s, Op::backward).ok);
  s.head_dim = 257;
  EXPECT_FALSE(b.supports(h200, s, Op::forward).ok);
  s.head_dim = 128;
  h200.cc_major = 7;
  EXPECT_FALSE(b.supports(h200, s, Op::forward).ok);
  EXPECT_EQ(b.workspace_bytes(s, Op::forward), 0u);
  EXPECT_EQ(b.workspace_bytes(s, Op::backward), std::size_t(s.row_elems()) * sizeof(float));
}

TEST(PortableBackendInfo, ImagesListTheBuildTargetsWithoutADevice) {
  if (cuda_device_present()) GTEST_SKIP() << "a CUDA device is present (the device variant runs instead)";
  const auto images = cuda_ref_backend().compiled_images();
  EXPECT_EQ(images, (std::vector<std::string>{"sm_80", "sm_90", "sm_100", "compute_100"}));
  EXPECT_TRUE(cuda_ref_backend().kernels().empty());
}

class PortableBackendDevice : public DeviceTest {};

TEST_F(PortableBackendDevice, EveryKernelHasALoadedImage) {
  int device = 0, major = 0, minor = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "attribute");
  check_cuda(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "attribute");
  const auto kernels = cuda_ref_backend().kernels();
  ASSERT_EQ(kernels.size(), 4u);
  for (const auto& k : kernels) {
    EXPECT_GT(k.binary_version, 0) << k.name;
    EXPECT_GT(k.registers, 0) << k.name;
    EXPECT_EQ(k.local_bytes, 0u) << k.name << " spills";
    RecordProperty(k.name, "regs=" + std::to_string(k.registers) + " sm_" + std::to_string(k.binary_version));
  }
  const auto images = cuda_ref_backend().compiled_images();
  ASSERT_EQ(images.size(), 1u);
  if (major * 10 + minor == 90) {
    EXPECT_EQ(images[0], "sm_90");  // the H200 loads the sm_90 SASS, not PTX
  }
}

}  // namespace
}  // namespace vsa::test
