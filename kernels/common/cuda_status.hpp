#pragma once
// CUDA error -> vsa::Status, shared by every GPU backend's host launchers.
// Only the runtime API header is needed, so g++-compiled .cpp files can use it too.
#include <cuda_runtime_api.h>

#include <string>

#include "vsa/backend.hpp"

namespace vsa::device {

// "cudaErrorIllegalAddress: an illegal memory access was encountered"; success is empty.
[[nodiscard]] inline Status status_from(cudaError_t error) {
  if (error == cudaSuccess) return Status::success();
  return Status::failure(std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error));
}

// Call right after a <<<...>>> launch: picks up configuration errors (bad grid,
// too much shared memory, no kernel image for this device) without a host sync.
[[nodiscard]] inline Status last_launch_status() { return status_from(cudaGetLastError()); }

}  // namespace vsa::device
