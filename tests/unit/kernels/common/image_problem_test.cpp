// Why a kernel's image cannot run, as a backend's SKIP reason: a build without the image and
// a driver that refuses one read differently, since their fixes differ (a rebuild, a driver).
// The reason codes they map to: tests/unit/report/reason_codes_test.cpp.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <string>

#include "kernels/common/kernel_info.hpp"

namespace vsa::device {
namespace {

TEST(ImageProblem, TheImageLoads) { EXPECT_EQ(image_problem_text(cudaSuccess, 100, 100, "the forward"), ""); }

TEST(ImageProblem, ABuildWithoutTheImageIsNotBuilt) {
  const std::string none = image_problem_text(cudaErrorNoKernelImageForDevice, 0, 100, "the forward kernel");
  EXPECT_EQ(none, "the binary holds no loadable sm_100a image of the forward kernel");
  const std::string other = image_problem_text(cudaSuccess, 90, 100, "the forward kernel");
  EXPECT_EQ(other, "the binary holds no loadable sm_100a image of the forward kernel (the driver chose sm_90)");
}

// Review of 2026-12-06: a driver too old for the image read as "not built", sending the
// operator to rebuild a binary that was fine.
TEST(ImageProblem, ADriverThatRefusesTheImageIsNamedWithItsError) {
  for (const cudaError_t e :
       {cudaErrorInsufficientDriver, cudaErrorUnsupportedPtxVersion, cudaErrorInvalidKernelImage}) {
    const std::string text = image_problem_text(e, 0, 100, "the backward kernel");
    EXPECT_EQ(text.rfind("cannot run: the sm_100a image of the backward kernel does not load (", 0), 0u) << text;
    EXPECT_NE(text.find(cudaGetErrorName(e)), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace vsa::device
