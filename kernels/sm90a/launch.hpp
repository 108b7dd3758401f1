#pragma once
// Host entry points of the Hopper kernels. The backend class (sm90a_backend.cpp)
// only dispatches; forward lives in fwd_*.cu/.cuh, backward in bwd_*.cu/.cuh.
#include <cstdint>
#include <string>
#include <vector>

#include "vsa/backend.hpp"

namespace vsa::sm90a {

// The fast kernels' fixed tile contract (docs/spec.md): BLK = 64, D = 128, bf16, BHSD.
inline constexpr int kBlock = 64;
inline constexpr int kHeadDim = 128;

// Delay-probe slots (ProbeDelays index) at cross-warp hand-offs; names for reports.
enum ProbeSlot : int {
  kProbeFwdReleaseKv = 0,  // consumer -> producer: K/V stage handed back
  kProbeFwdEpilogue = 1,   // before O is written from shared memory
  kProbeBwdReleaseQ = 2,   // consumer -> producer: Q/dO stage handed back
  kProbeBwdDqReduce = 3,   // before dQ partials are reduced into the fp32 buffer
};
[[nodiscard]] std::vector<std::string> probe_names();

// Forward (fwd_launch.cu).
[[nodiscard]] std::size_t forward_workspace_bytes(const Shape& shape);
Status launch_forward(const ForwardArgs& args);
[[nodiscard]] std::vector<KernelInfo> forward_kernels();

// Backward (bwd_launch.cu). deterministic: no dQ atomics, bitwise reproducible dQ.
[[nodiscard]] std::size_t backward_workspace_bytes(const Shape& shape, bool deterministic);

Status launch_backward(const BackwardArgs& args, bool deterministic);
// The deterministic backward in chunks of `heads_per_chunk` (b, h) pairs, and the workspace
// that needs. launch_backward picks the chunk from the dS^T tile budget (bwd_launch.cu);
// tests take small chunks to cover the chunked path on small problems.
// DetItems::kv_only (timing only: dQ is left unwritten) runs the kv items alone, so the
// time of the two phases can be told apart (notes/runs.md run 16, "The split").
enum class DetItems { all, kv_only };
[[nodiscard]] std::int64_t deterministic_backward_heads_per_chunk(const Shape& shape);
[[nodiscard]] std::size_t deterministic_backward_workspace_bytes(const Shape& shape, std::int64_t heads_per_chunk);
Status launch_deterministic_backward(const BackwardArgs& args, std::int64_t heads_per_chunk,
                                     DetItems items = DetItems::all);
[[nodiscard]] std::vector<KernelInfo> backward_kernels(bool deterministic);

}  // namespace vsa::sm90a
