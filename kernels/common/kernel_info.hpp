#pragma once
// KernelInfo (vsa/backend.hpp) for one __global__ function, as the loaded module
// reports it through cudaFuncGetAttributes. Shared by every GPU backend's kernels().
#include <string>

#include "vsa/backend.hpp"

namespace vsa::device {

// `func` is the kernel's host-side handle (the address of the __global__ function,
// taken in a .cu file). If the driver cannot load an image for the current device
// (e.g. the arch was dropped from the build), binary_version stays 0 and every
// resource field stays 0; the error is cleared so it cannot leak into a later launch.
[[nodiscard]] KernelInfo kernel_info(const void* func, std::string name, bool hot);

}  // namespace vsa::device
