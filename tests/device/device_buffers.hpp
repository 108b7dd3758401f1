#pragma once
// Helpers for GPU tests (tests/device), usable by every backend's tests:
//
//   class MyTest : public vsa::test::DeviceTest {};        // skips: "no CUDA device"
//   TEST_F(MyTest, Works) {
//     vsa::test::DeviceBuffer<float> x(host_vector);        // cudaMalloc + upload
//     vsa::test::DeviceBuffer<float> y(n);                  // cudaMalloc only (contents undefined)
//     ASSERT_TRUE(vsa::test::ok(some_launcher(x.get(), y.get(), n, nullptr)));
//     std::vector<float> out = y.download();                 // cudaMemcpy: waits for the default stream
//   }
//
// Any CUDA failure throws std::runtime_error with the error's name and text; gtest
// turns an escaping exception into a test failure that shows the message.
// Host-only C++ (runtime API header), so tests compile with g++.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "vsa/backend.hpp"

namespace vsa::test {

inline void check_cuda(cudaError_t error, const char* what) {
  if (error != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
}

[[nodiscard]] inline bool cuda_device_present() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

// Waits for all work on the device and surfaces asynchronous (kernel) errors.
inline void synchronize() { check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

// For ASSERT_TRUE(ok(status)): shows the Status text when it fails.
[[nodiscard]] inline ::testing::AssertionResult ok(const Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << status.error;
}

// Fixture base: every test of a derived fixture is skipped, with the reason shown,
// on a machine without a CUDA device.
class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
};

// Owns `size()` elements of device memory; move-only. Size 0 allocates nothing (get() is null).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : m_size(count) {
    if (count > 0) check_cuda(cudaMalloc(reinterpret_cast<void**>(&m_data), bytes()), "cudaMalloc");
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      m_data = std::exchange(other.m_data, nullptr);
      m_size = std::exchange(other.m_size, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  [[nodiscard]] T* get() { return m_data; }
  [[nodiscard]] const T* get() const { return m_data; }
  [[nodiscard]] std::size_t size() const { return m_size; }
  [[nodiscard]] std::size_t bytes() const { return m_size * sizeof(T); }

  // Host -> device; `host` must hold exactly size() elements.
  void upload(const std::vector<T>& host) {
    if (host.size() != m_size) throw std::invalid_argument("DeviceBuffer::upload: size mismatch");
    if (m_size > 0) check_cuda(cudaMemcpy(m_data, host.data(), bytes(), cudaMemcpyHostToDevice), "upload");
  }
  // Device -> host, after the work already queued on the default stream.
  [[nodiscard]] std::vector<T> download() const {
    std::vector<T> host(m_size);
    if (m_size > 0) check_cuda(cudaMemcpy(host.data(), m_data, bytes(), cudaMemcpyDeviceToHost), "download");
    return host;
  }
  // Every byte set to `value` (e.g. 0xff to make unwritten elements stand out).
  void fill_bytes(unsigned char value) {
    if (m_size > 0) check_cuda(cudaMemset(m_data, value, bytes()), "cudaMemset");
  }

 private:
  void release() noexcept {
    if (m_data != nullptr) (void)cudaFree(m_data);
    m_data = nullptr;
  }
  T* m_data = nullptr;
  std::size_t m_size = 0;
};

}  // namespace vsa::test
