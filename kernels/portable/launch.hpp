#pragma once
// Host entry points of the cuda-ref kernels (forward.cu, backward.cu). The backend
// class (portable_backend.cpp) only checks support and dispatches.
#include <cstddef>
#include <vector>

#include "vsa/backend.hpp"

namespace vsa::portable {

// One warp holds a row in registers, 8 values per lane (warp_row.cuh).
inline constexpr int kMaxSupportedHeadDim = 256;

Status launch_forward(const ForwardArgs& args);

// Workspace: Delta, one fp32 per row of [B, H, S].
[[nodiscard]] std::size_t backward_workspace_bytes(const Shape& shape);
Status launch_backward(const BackwardArgs& args);

// Resources of the kernels each op launches (cudaFuncGetAttributes).
[[nodiscard]] KernelInfo forward_kernel_info();
[[nodiscard]] std::vector<KernelInfo> backward_kernel_infos();  // its own kernels, then the shared Delta preprocess

}  // namespace vsa::portable
