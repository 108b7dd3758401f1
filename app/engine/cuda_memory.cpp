#include "engine/cuda_memory.hpp"

namespace vsa {

bool cuda_error_is_sticky(cudaError_t err) {
  // Errors after which the context cannot be used again (CUDA runtime docs:
  // "the process must be terminated"): the worker reports and exits.
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

void cuda_check(cudaError_t err, const char* where) {
  if (err == cudaSuccess) return;
  throw CudaError(std::string(where) + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err),
                  cuda_error_is_sticky(err));
}

void cuda_check_launch(cudaStream_t stream, const char* where) {
  cuda_check(cudaGetLastError(), where);
  cuda_check(cudaStreamSynchronize(stream), where);
}

DeviceBytes::DeviceBytes(std::size_t bytes) : m_bytes(bytes) {
  if (bytes > 0) cuda_check(cudaMalloc(&m_ptr, bytes), "cudaMalloc");
}

DeviceBytes& DeviceBytes::operator=(DeviceBytes&& o) noexcept {
  if (this != &o) {
    if (m_ptr) cudaFree(m_ptr);
    m_ptr = o.m_ptr;
    m_bytes = o.m_bytes;
    o.m_ptr = nullptr;
    o.m_bytes = 0;
  }
  return *this;
}

DeviceBytes::~DeviceBytes() {
  if (m_ptr) cudaFree(m_ptr);  // errors ignored: a sticky context fails every free
}

}  // namespace vsa
