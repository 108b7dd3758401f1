#include "engine/hang_report.hpp"

#include <atomic>
#include <new>

#include <cuda_runtime_api.h>

#include "engine/cuda_memory.hpp"

namespace vsa {

std::string label_text(const HangLabel& label) {
  std::string text;
  for (int i = 0; i < kHangLabelWords * 4; ++i) {
    const char c = char((label.words[i / 4] >> (8 * (i % 4))) & 0xffu);
    if (c == '\0') break;
    text += c;
  }
  return text;
}

std::string describe_hang(const HangRecord& r) {
  std::string s = "hang: cta " + std::to_string(r.block) + " warp " + std::to_string(r.warp) + " (" +
                  label_text(r.site.role) + ") waited on " + label_text(r.site.barrier) + "[" + std::to_string(r.slot) +
                  "] parity " + std::to_string(r.parity);
  if (r.step >= 0) s += " at step " + std::to_string(r.step);
  s += " for " + std::to_string(r.waited_ms) + " ms (" + label_text(r.site.kernel);
  if (r.item >= 0) s += ", item " + std::to_string(r.item);
  return s + ")";
}

MappedHangRecord::MappedHangRecord(std::uint32_t timeout_ms) : m_timeout_ms(timeout_ms) {
  // cudaHostAllocMapped needs no cudaSetDeviceFlags(cudaDeviceMapHost) first: the flag "is
  // implicit for the runtime" (cuda_runtime_api.h, cudaSetDeviceFlags and cudaHostAlloc).
  void* host = nullptr;
  cuda_check(cudaHostAlloc(&host, sizeof(HangRecord), cudaHostAllocMapped), "cudaHostAlloc (hang record)");
  m_host = new (host) HangRecord{};
  void* device = nullptr;
  const cudaError_t err = cudaHostGetDevicePointer(&device, host, 0);
  if (err != cudaSuccess) {
    (void)cudaFreeHost(host);
    cuda_check(err, "cudaHostGetDevicePointer (hang record)");
  }
  m_device = static_cast<HangRecord*>(device);
}

MappedHangRecord::~MappedHangRecord() {
  if (m_host) (void)cudaFreeHost(m_host);  // may fail after a trap: the context is gone
}

std::optional<HangRecord> MappedHangRecord::read() const {
  // The device sets `complete` last, after a system-scope fence (hang_watch.cuh).
  if (std::atomic_ref<std::uint32_t>(m_host->complete).load(std::memory_order_acquire) != 1u) return std::nullopt;
  return *m_host;
}

std::string hang_fault_reason(const MappedHangRecord* watch, const std::string& cuda_error) {
  if (watch)
    if (const auto record = watch->read()) return describe_hang(*record) + "; then " + cuda_error;
  return cuda_error;
}

}  // namespace vsa
