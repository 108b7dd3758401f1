#pragma once
// Host entry points of the Blackwell kernels. The backend class (sm100a_backend.cpp) only
// dispatches; the forward lives in fwd_*.{hpp,cuh} and fwd_launch.cu.
#include <string>
#include <vector>

#include "vsa/backend.hpp"

namespace vsa::sm100a {

// The blk64 tile contract (SPEC.md): BLK = 64, D = 128, bf16, BHSD, and nb even (one CTA
// takes q blocks 2p and 2p + 1 of a head).
inline constexpr int kBlock = 64;
inline constexpr int kHeadDim = 128;

// Shape-only checks with the reason, shared by supports_shape() and the launcher.
[[nodiscard]] Support blk64_shape_support(const Shape& shape);

// Forward (fwd_launch.cu).
Status launch_forward_blk64(const ForwardArgs& args);
[[nodiscard]] std::vector<KernelInfo> forward_kernels_blk64();
// The sm_100a image of the forward kernel loads on the current device (false on any
// device that is not CC 10.0, or when the build dropped the image).
[[nodiscard]] bool forward_image_loads();
// Delay-probe names, index = ProbeDelays slot (fwd_storage.cuh, ProbeSlot).
[[nodiscard]] std::vector<std::string> forward_probe_names();

}  // namespace vsa::sm100a
