#pragma once
// KernelInfo (vsa/backend.hpp) for one __global__ function, as the loaded module
// reports it through cudaFuncGetAttributes. Shared by every GPU backend's kernels().
#include <string>

#include <driver_types.h>

#include "vsa/backend.hpp"

namespace vsa::device {

// `func` is the kernel's host-side handle (the address of the __global__ function,
// taken in a .cu file). If the driver cannot load an image for the current device
// (e.g. the arch was dropped from the build), binary_version stays 0 and every
// resource field stays 0; the error is cleared so it cannot leak into a later launch.
[[nodiscard]] KernelInfo kernel_info(const void* func, std::string name, bool hot);

// Why `func` cannot run on the current device, or "" when its image for compute capability
// `arch` (e.g. 100 for sm_100a) loads. Two causes read differently, since the fixes differ:
// - the binary has no image for the device (cudaErrorNoKernelImageForDevice, or the driver
//   picked another arch's): "the binary holds no loadable sm_100a image of WHAT" (reason
//   code VSA_E_NOT_BUILT: rebuild with the image);
// - the image is there and the driver refuses it (e.g. cudaErrorInsufficientDriver or
//   cudaErrorUnsupportedPtxVersion: a driver older than the toolkit that built it):
//   "cannot run: the sm_100a image of WHAT does not load (cudaError...: ...)" (VSA_E_UNSUPPORTED).
// The error is cleared, as in kernel_info.
[[nodiscard]] std::string image_problem(const void* func, int arch, const std::string& what);
// The text of image_problem for a cudaFuncGetAttributes result, without a device (unit tests).
[[nodiscard]] std::string image_problem_text(cudaError_t error, int binary_version, int arch, const std::string& what);

}  // namespace vsa::device
