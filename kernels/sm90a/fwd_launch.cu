// Forward entry points of the sm90a backend (launch.hpp), for fwd::TileConfig.
#include <cuda_runtime.h>

#include "fwd_launch.cuh"
#include "launch.hpp"

namespace vsa::sm90a {
namespace {

KernelInfo describe(const void* kernel, const char* name, bool hot) {
  KernelInfo info;
  info.name = name;
  info.hot = hot;
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, kernel) != cudaSuccess) {
    (void)cudaGetLastError();  // no device or no loadable image: report what is known
    return info;
  }
  info.registers = attr.numRegs;
  info.shared_static_bytes = attr.sharedSizeBytes;
  info.local_bytes = attr.localSizeBytes;
  info.max_threads_per_block = attr.maxThreadsPerBlock;
  info.binary_version = attr.binaryVersion;
  return info;
}

}  // namespace

std::size_t forward_workspace_bytes(const Shape& shape) { return fwd::workspace_bytes(shape); }

Status launch_forward(const ForwardArgs& args) { return fwd::launch<fwd::TileConfig>(args); }

std::vector<KernelInfo> forward_kernels() {
  using fwd::TileConfig;
  return {
      describe(reinterpret_cast<const void*>(&fwd::forward_kernel<TileConfig, false, false>), "sm90a.fwd.main", true),
      describe(reinterpret_cast<const void*>(&fwd::order_longest_first<fwd::kOrderThreads>), "sm90a.fwd.order", true),
      describe(reinterpret_cast<const void*>(&fwd::forward_kernel<TileConfig, true, false>), "sm90a.fwd.main_probe",
               false),
      // The timeline alone (`trace` set, no probe, no hang watch): the normal code plus stamps.
      describe(reinterpret_cast<const void*>(&fwd::forward_kernel<fwd::TraceOnly<TileConfig>, false, false>),
               "sm90a.fwd.main_trace", false),
      // Pair tiles: an A/B variant (VSA_SM90A_FWD_PAIR_TILES=1), in the timed path when chosen.
      describe(reinterpret_cast<const void*>(&fwd::forward_kernel<TileConfig, false, true>), "sm90a.fwd.main_pair",
               true),
      // The four-CTA layout (fwd_layout.hpp): in the timed path for short items in one wave.
      describe(reinterpret_cast<const void*>(&fwd::forward_cta4_kernel<fwd::FourCtas<TileConfig>, false>),
               "sm90a.fwd.main_cta4", true),
      describe(reinterpret_cast<const void*>(&fwd::forward_cta4_kernel<fwd::FourCtas<TileConfig>, true>),
               "sm90a.fwd.main_cta4_probe", false),
      // The three-group layout (fwd_layout.hpp): in the timed path for large heads.
      describe(reinterpret_cast<const void*>(&fwd::forward_kernel<fwd::ThreeGroups<TileConfig>, false, false>),
               "sm90a.fwd.main_three", true),
      describe(reinterpret_cast<const void*>(&fwd::forward_kernel<fwd::ThreeGroups<TileConfig>, true, false>),
               "sm90a.fwd.main_three_probe", false),
  };
}

}  // namespace vsa::sm90a
