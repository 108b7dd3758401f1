#pragma once
// The sm100a kernels (the same role files as the sm_100a image) run on the execution model:
// every CTA of the grid in sequence on the calling OS thread, its threads as fibers. Host
// memory in, host memory out. A broken programming-model rule (deadlock, bad descriptor,
// TMEM misuse, warp divergence at a .sync.aligned op) comes back as a failed Status whose
// text names the kernel, the CTA, the schedule seed and who did what.
#include <cstdint>

#include "vsa/backend.hpp"

namespace vsa::model {

struct RunOptions {
  std::uint64_t seed = 0;  // 0: round robin, async ops complete as early as possible
};

Status run_forward_blk64(const ForwardArgs& args, const RunOptions& options);
Status run_forward_blk128(const ForwardArgs& args, const RunOptions& options);
// The backward's launch sequence with the two kernels/common helpers done on the host:
// Delta = rowsum(O * dO) (fp32 fma, as delta_preprocess.cu), zeroed fp32 dQ accumulator,
// backward_kernel on the model, dQ = bf16(scale * accumulator) (as dq_postprocess.cu).
// `args.workspace` must hold workspace_bytes_backward(shape) bytes.
Status run_backward_blk64(const BackwardArgs& args, const RunOptions& options);
[[nodiscard]] std::size_t workspace_bytes_backward(const Shape& shape);

// The same three, built from the same source with the planted faults of plants.hpp (the
// fault applied is active_plant()): for `vsa-bench selftest`.
namespace planted {
Status run_forward_blk64(const ForwardArgs& args, const RunOptions& options);
Status run_forward_blk128(const ForwardArgs& args, const RunOptions& options);
Status run_backward_blk64(const BackwardArgs& args, const RunOptions& options);
}  // namespace planted

// The hardware backends' shape rules (launch.hpp), reachable from the planted build.
[[nodiscard]] Support shape_support_blk64(const Shape& shape);
[[nodiscard]] Support shape_support_blk128(const Shape& shape);
[[nodiscard]] Support shape_support_blk64_backward(const Shape& shape);

}  // namespace vsa::model
