#pragma once
// CUDA device discovery for backends' supports(). Initialises CUDA: call it in
// a worker process (or with --no-isolate), never in the parent before forking.
#include <string>
#include <vector>

#include "vsa/backend.hpp"

namespace vsa {

struct DeviceQuery {
  std::vector<DeviceInfo> devices;
  std::string note;  // why there are none, e.g. "cudaGetDeviceCount: cudaErrorNoDevice: no CUDA-capable device"
};

[[nodiscard]] DeviceQuery query_devices();

}  // namespace vsa
