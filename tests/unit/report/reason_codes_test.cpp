// The SKIP reason codes (docs/reason-codes.md) of the reasons the harness and backends write:
// each wording below is the one its source uses (named beside it), so a reason reworded there
// that falls into another code shows here.
#include "report/reason_codes.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <string>

#include "kernels/common/kernel_info.hpp"

namespace vsa {
namespace {

std::string skip_code_of(const std::string& reason) {
  BackendResult b;
  b.verdict = kSkip;
  b.reason = reason;
  return reason_code(b);
}

TEST(ReasonCodes, NoDeviceForABackendOrAReferenceThatNeedsOne) {
  EXPECT_EQ(skip_code_of("no CUDA device"), kCodeNoDevice);                          // every CUDA backend's supports()
  EXPECT_EQ(skip_code_of("reference cuda-ref needs a CUDA device"), kCodeNoDevice);  // case_runner.cpp
}

TEST(ReasonCodes, NotBuiltForABackendOrImageTheBinaryLacks) {
  EXPECT_EQ(skip_code_of("not compiled into this build (see the VSA_BUILD_* CMake options)"), kCodeNotBuilt);
  EXPECT_EQ(skip_code_of("the binary holds no loadable sm_100a image of the forward kernel"),
            kCodeNotBuilt);  // sm100a_backend.cpp, on a CC 10.0 device
  EXPECT_EQ(skip_code_of(device::image_problem_text(cudaErrorNoKernelImageForDevice, 0, 100, "the forward kernel")),
            kCodeNotBuilt);
}

// Review of 2026-12-06: a driver too old for the image read as "not built", sending the
// operator to rebuild a binary that was fine (kernel_info.cpp, image_problem_text).
TEST(ReasonCodes, AnImageTheDriverRefusesIsUnsupported) {
  for (const cudaError_t e : {cudaErrorInsufficientDriver, cudaErrorUnsupportedPtxVersion, cudaErrorInvalidKernelImage})
    EXPECT_EQ(skip_code_of(device::image_problem_text(e, 0, 100, "the backward kernel")), kCodeUnsupported) << e;
}

TEST(ReasonCodes, UnsupportedForAnotherGpuOrShape) {
  EXPECT_EQ(skip_code_of("needs compute capability 10.0 (sm_100a image); device is 9.0"), kCodeUnsupported);
  EXPECT_EQ(skip_code_of("sm90a needs compute capability 9.0, device 0 is 8.0"), kCodeUnsupported);
}

TEST(ReasonCodes, AnyOtherStatedReasonIsSkipped) {
  EXPECT_EQ(skip_code_of("reference too expensive on the CPU"), kCodeSkipped);
}

}  // namespace
}  // namespace vsa
