#include "engine/devices.hpp"

#include <cuda_runtime_api.h>

namespace vsa {

DeviceQuery query_devices() {
  DeviceQuery q;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    q.note = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
    return q;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    DeviceInfo d;
    d.ordinal = i;
    d.name = p.name;
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.sm_count = p.multiProcessorCount;
    d.smem_per_block_optin = p.sharedMemPerBlockOptin;
    d.global_mem = p.totalGlobalMem;
    q.devices.push_back(d);
  }
  if (q.devices.empty()) q.note = "no CUDA device";
  return q;
}

}  // namespace vsa
