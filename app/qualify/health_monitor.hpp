#pragma once
// Watches one GPU's health while a run goes on (docs/qualify.md, "Health gates"): a
// snapshot before, a thread that waits on NVML's critical-Xid events and samples the
// PCIe link, a snapshot after. NVML creates no CUDA context, so the parent process
// that forks workers may run it.
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "qualify/health.hpp"

namespace vsa {

class HealthMonitor {
 public:
  // `device` null (nullopt) when NVML has no device for this GPU: the record says why_not.
  HealthMonitor(const Nvml& nvml, std::optional<NvmlDevice> device, std::string why_not = {},
                std::chrono::milliseconds poll = std::chrono::milliseconds(250));
  ~HealthMonitor();
  HealthMonitor(const HealthMonitor&) = delete;
  HealthMonitor& operator=(const HealthMonitor&) = delete;

  void start();
  // Stops the thread, takes the after snapshot; the record of the whole run.
  [[nodiscard]] HealthRecord stop();

 private:
  void watch();
  void sample_link();

  const Nvml& m_nvml;
  std::optional<NvmlDevice> m_device;
  std::chrono::milliseconds m_poll;
  HealthRecord m_record;
  void* m_events = nullptr;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
  std::mutex m_mutex;  // guards m_record while the thread runs
  std::chrono::steady_clock::time_point m_started;
};

}  // namespace vsa
