#pragma once
// Minimal RAII over the CUDA runtime for the harness (host code, g++).
// Every failure throws CudaError carrying the error name and text, and whether
// the context is now unusable (a sticky error such as an illegal address).
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace vsa {

class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& what, bool sticky) : std::runtime_error(what), m_sticky(sticky) {}
  [[nodiscard]] bool sticky() const { return m_sticky; }

 private:
  bool m_sticky;
};

// Throws CudaError when err != cudaSuccess; `where` names the call.
void cuda_check(cudaError_t err, const char* where);
// After a launch: the launch error, then (sync) the execution error.
void cuda_check_launch(cudaStream_t stream, const char* where);
[[nodiscard]] bool cuda_error_is_sticky(cudaError_t err);

class DeviceBytes {
 public:
  DeviceBytes() = default;
  explicit DeviceBytes(std::size_t bytes);
  DeviceBytes(DeviceBytes&& o) noexcept : m_ptr(o.m_ptr), m_bytes(o.m_bytes) {
    o.m_ptr = nullptr;
    o.m_bytes = 0;
  }
  DeviceBytes& operator=(DeviceBytes&& o) noexcept;
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  ~DeviceBytes();
  [[nodiscard]] void* get() const { return m_ptr; }
  [[nodiscard]] std::size_t bytes() const { return m_bytes; }

 private:
  void* m_ptr = nullptr;
  std::size_t m_bytes = 0;
};

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t count) : m_mem(count * sizeof(T)), m_count(count) {}
  [[nodiscard]] T* get() const { return static_cast<T*>(m_mem.get()); }
  [[nodiscard]] std::size_t size() const { return m_count; }
  void upload(const std::vector<T>& host, cudaStream_t stream) {
    cuda_check(cudaMemcpyAsync(get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream), "upload");
  }
  [[nodiscard]] std::vector<T> download(cudaStream_t stream) const {
    std::vector<T> host(m_count);
    cuda_check(cudaMemcpyAsync(host.data(), get(), m_count * sizeof(T), cudaMemcpyDeviceToHost, stream), "download");
    cuda_check(cudaStreamSynchronize(stream), "download sync");
    return host;
  }

 private:
  DeviceBytes m_mem;
  std::size_t m_count = 0;
};

}  // namespace vsa
