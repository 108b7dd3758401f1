#pragma once
// Host entry points of the Blackwell kernels. The backend class (sm100a_backend.cpp) only
// dispatches; the forward lives in fwd_*.{hpp,cuh} and fwd_launch.cu, the backward in
// bwd_*.{hpp,cuh} and bwd_launch.cu.
#include <string>
#include <vector>

#include "vsa/backend.hpp"

namespace vsa::sm100a {

// The blk64 tile contract (docs/spec.md): BLK = 64, D = 128, bf16, BHSD, and nb even (one CTA
// takes q blocks 2p and 2p + 1 of a head).
inline constexpr int kBlock = 64;
inline constexpr int kHeadDim = 128;

// Shape-only checks with the reason, shared by supports_shape() and the launchers.
[[nodiscard]] Support blk64_shape_support(const Shape& shape);
// The backward takes any nb (one CTA per kv block): BLK, D and the row count only.
[[nodiscard]] Support blk64_backward_shape_support(const Shape& shape);

// ProbeDelays slots: the forward's five (fwd_storage.cuh) first, then the backward's
// three (bwd_storage.cuh), so one backend lists all eight names.
inline constexpr int kFirstBwdProbeSlot = 8;

// Forward (fwd_launch.cu).
Status launch_forward_blk64(const ForwardArgs& args);
[[nodiscard]] std::vector<KernelInfo> forward_kernels_blk64();
// Why the sm_100a image of the forward kernel cannot run on the current device, or "" when
// it loads (device::image_problem: a build without the image, or a driver that refuses it).
[[nodiscard]] std::string forward_image_problem();
// Delay-probe names, index = ProbeDelays slot (fwd_storage.cuh, ProbeSlot).
[[nodiscard]] std::vector<std::string> forward_probe_names();

// The blk128 forward (fwd128_launch.cu): BLK = 128, D = 128, any nb; one CTA per q block.
// Probe names and slots are the blk64 forward's.
inline constexpr int kBlock128 = 128;
[[nodiscard]] Support blk128_shape_support(const Shape& shape);
Status launch_forward_blk128(const ForwardArgs& args);
[[nodiscard]] std::vector<KernelInfo> forward_kernels_blk128();
[[nodiscard]] std::string forward_blk128_image_problem();

// Backward (bwd_launch.cu).
[[nodiscard]] std::size_t backward_workspace_bytes_blk64(const Shape& shape);
Status launch_backward_blk64(const BackwardArgs& args);
[[nodiscard]] std::vector<KernelInfo> backward_kernels_blk64();
[[nodiscard]] std::string backward_image_problem();
// Names of ProbeDelays slots kFirstBwdProbeSlot.. (bwd_storage.cuh, ProbeSlot).
[[nodiscard]] std::vector<std::string> backward_probe_names();

}  // namespace vsa::sm100a
