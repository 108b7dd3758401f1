// Kernel images per GPU (run/kernel_images.hpp): each GPU's report names the images its own
// kernels load from, asked once per compute capability.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run/kernel_images.hpp"

namespace vsa {
namespace {

using nlohmann::json;

DeviceInfo gpu(int ordinal, int major, int minor) {
  DeviceInfo d;
  d.ordinal = ordinal;
  d.cc_major = major;
  d.cc_minor = minor;
  return d;
}

TEST(KernelImages, OneQuestionPerComputeCapabilityEachGpuGetsItsOwnAnswer) {
  std::vector<int> asked;
  const auto images_on = [&](int ordinal) {
    asked.push_back(ordinal);
    return json{{"cuda-ref", {ordinal == 2 ? "sm_89 (JIT from compute_90)" : "sm_90"}}};
  };
  // Two H100s, an L40S, a third H100: the L40S is asked on its own, the H100s once.
  const json per = images_per_capability({gpu(0, 9, 0), gpu(1, 9, 0), gpu(2, 8, 9), gpu(3, 9, 0)}, images_on);
  EXPECT_EQ(asked, (std::vector<int>{0, 2}));
  ASSERT_EQ(per.size(), 4u);
  EXPECT_EQ(per["0"]["cuda-ref"][0], "sm_90");
  EXPECT_EQ(per["1"]["cuda-ref"][0], "sm_90");
  EXPECT_EQ(per["2"]["cuda-ref"][0], "sm_89 (JIT from compute_90)");
  EXPECT_EQ(per["3"]["cuda-ref"][0], "sm_90");
}

TEST(KernelImages, AGpuThatCouldNotBeAskedIsLeftOutAndNoDeviceIsNeverAsked) {
  int calls = 0;
  const json per = images_per_capability({gpu(-1, 0, 0), gpu(0, 10, 0), gpu(1, 10, 0)}, [&](int) {
    ++calls;
    return json(nullptr);
  });
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(per.is_object());
  EXPECT_TRUE(per.empty());
}

TEST(KernelImages, AReportTakesItsGpusOwnAnswerElseTheProcessAnswer) {
  const json per = {{"1", {{"cuda-ref", {"sm_89 (JIT from compute_90)"}}}}};
  const json fallback = {{"cuda-ref", {"sm_90"}}};
  EXPECT_EQ(images_for_target(per, fallback, 1), per["1"]);
  EXPECT_EQ(images_for_target(per, fallback, 0), fallback);   // not asked: the process's answer
  EXPECT_EQ(images_for_target(per, fallback, -1), fallback);  // the CPU target
  EXPECT_EQ(images_for_target(json(nullptr), fallback, 1), fallback);
}

}  // namespace
}  // namespace vsa
