// Delay probes for plugin kernels: `vsa-bench run --probe NAME=NS[@warps:LIST]` widens the
// window at a hand-off so a latent race shows (docs/design.md, "Finding races and faults").
//
// Pass the launch arguments' vsa_plugin_probes to the kernel by value and name the slot:
//
//   __global__ void my_kernel(..., vsa_plugin_probes probes) {
//     ...load a tile...
//     VSA_PROBE(probes, 0);  // slot 0 = probe_points[0], e.g. "fwd.release_kv"
//     ...arrive on the barrier that hands the tile back...
//   }
//
// Device code: the calling thread sleeps at least nanoseconds[slot] when its warp is in
// warps[slot] (0 = every warp). __nanosleep suspends the thread for about the given time,
// at most about 1 ms per call (CUDA C++ Programming Guide, "Time Function": __nanosleep),
// so longer delays sleep in 1 ms pieces. Host code (a CPU backend): the calling thread
// sleeps; it counts as warp 0.
//
// Only vsa/plugin.h is needed: this header is part of the plugin SDK.
#pragma once

#include "vsa/plugin.h"

#if defined(__CUDACC__)
#define VSA_PROBE_QUALIFIERS __host__ __device__ __forceinline__
#else
#define VSA_PROBE_QUALIFIERS inline
#include <time.h>
#endif

// Whether the calling warp is selected by a probe's warp mask (0 selects every warp).
VSA_PROBE_QUALIFIERS bool vsa_probe_selects_warp(uint32_t warps) {
#if defined(__CUDA_ARCH__)
  const unsigned warp = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32u;
  return warps == 0u || (warp < 32u && ((warps >> warp) & 1u) != 0u);
#else
  return warps == 0u || (warps & 1u) != 0u;
#endif
}

VSA_PROBE_QUALIFIERS void vsa_probe_sleep_ns(uint32_t nanoseconds) {
#if defined(__CUDA_ARCH__)
  while (nanoseconds > 0u) {
    const uint32_t chunk = nanoseconds < 1000000u ? nanoseconds : 1000000u;
    __nanosleep(chunk);
    nanoseconds -= chunk;
  }
#else
  struct timespec left;
  left.tv_sec = time_t(nanoseconds / 1000000000u);
  left.tv_nsec = long(nanoseconds % 1000000000u);
  while (nanosleep(&left, &left) != 0) {
  }
#endif
}

// Sleeps at probe slot `slot` of `probes` (a vsa_plugin_probes value) when it is set.
VSA_PROBE_QUALIFIERS void vsa_probe(const vsa_plugin_probes& probes, int slot) {
  if (slot < 0 || slot >= VSA_PLUGIN_MAX_PROBES) return;
  const uint32_t ns = probes.nanoseconds[slot];
  if (ns != 0u && vsa_probe_selects_warp(probes.warps[slot])) vsa_probe_sleep_ns(ns);
}

#define VSA_PROBE(probes, slot) vsa_probe((probes), (slot))
