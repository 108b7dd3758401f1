// The CUDA built-ins of prelude.hpp on the model CTA: indices of the calling fiber,
// __syncthreads (bar.sync 0 over the CTA), and the warp-synchronous __syncwarp,
// __shfl_sync (9.7.9.6 shfl.sync idx) and __any_sync (9.7.13.9 vote.sync.any).
#include <vector_types.h>

#include "cta.hpp"

namespace vsa::model {

uint3 thread_idx() { return {unsigned(current_cta().me().tid), 0u, 0u}; }
uint3 block_idx() { return {current_cta().place().block_x, 0u, 0u}; }
dim3 block_dim() { return dim3(current_cta().place().threads, 1, 1); }
dim3 grid_dim() { return dim3(current_cta().place().grid_x, 1, 1); }

void syncthreads() {
  Cta& c = current_cta();
  c.bar_sync(0, int(c.place().threads));
}

void syncwarp(unsigned mask) { current_cta().warp_meet(mask, "__syncwarp", 0, 0); }

int shfl_sync(unsigned mask, int value, int src_lane) {
  if (src_lane < 0 || src_lane > 31) throw ModelError("__shfl_sync: source lane outside 0..31");
  const WarpCollective& w = current_cta().warp_meet(mask, "__shfl_sync", 0, std::uint32_t(value));
  if ((mask >> src_lane & 1u) == 0) throw ModelError("__shfl_sync: source lane not in the member mask");
  return int(w.result[src_lane]);
}

int any_sync(unsigned mask, int predicate) {
  const WarpCollective& w = current_cta().warp_meet(mask, "__any_sync", 0, predicate != 0 ? 1u : 0u);
  for (int i = 0; i < 32; ++i)
    if ((mask >> i & 1u) && w.result[i]) return 1;
  return 0;
}

// Time does not pass in the model: a sleep is a scheduling point.
void nanosleep(unsigned) { current_cta().scheduler().yield(); }

}  // namespace vsa::model
