// Why a kernel's image cannot run, as a backend's SKIP reason: a build without the image and
// a driver that refuses one read differently, since their fixes differ (a rebuild, a driver),
// and the reason codes tell them apart by that wording.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "kernels/common/kernel_info.hpp"
#include "report/reason_codes.hpp"

namespace vsa::device {
namespace {

std::string code_of(const std::string& reason) {
  BackendResult b;
  b.verdict = kSkip;
  b.reason = reason;
  return reason_code(b);
}

TEST(ImageProblem, TheImageLoads) { EXPECT_EQ(image_problem_text(cudaSuccess, 100, 100, "the forward"), ""); }

TEST(ImageProblem, ABuildWithoutTheImageIsNotBuilt) {
  const std::string none = image_problem_text(cudaErrorNoKernelImageForDevice, 0, 100, "the forward kernel");
  EXPECT_EQ(none, "the binary holds no loadable sm_100a image of the forward kernel");
  EXPECT_EQ(code_of(none), kCodeNotBuilt);
  const std::string other = image_problem_text(cudaSuccess, 90, 100, "the forward kernel");
  EXPECT_EQ(other, "the binary holds no loadable sm_100a image of the forward kernel (the driver chose sm_90)");
  EXPECT_EQ(code_of(other), kCodeNotBuilt);
}

// Review of 2026-12-06: a driver too old for the image read as "not built", sending the
// operator to rebuild a binary that was fine.
TEST(ImageProblem, ADriverThatRefusesTheImageIsNamedWithItsError) {
  for (const cudaError_t e :
       {cudaErrorInsufficientDriver, cudaErrorUnsupportedPtxVersion, cudaErrorInvalidKernelImage}) {
    const std::string text = image_problem_text(e, 0, 100, "the backward kernel");
    EXPECT_EQ(text.rfind("cannot run: the sm_100a image of the backward kernel does not load (", 0), 0u) << text;
    EXPECT_NE(text.find(cudaGetErrorName(e)), std::string::npos) << text;
    EXPECT_EQ(code_of(text), kCodeUnsupported) << text;
  }
}

}  // namespace
}  // namespace vsa::device
