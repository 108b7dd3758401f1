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
  // `idle_settle`: read_idle_utilization's settle period (tests shorten it).
  HealthMonitor(const Nvml& nvml, std::optional<NvmlDevice> device, std::string why_not = {},
                std::chrono::milliseconds poll = std::chrono::milliseconds(250),
                std::chrono::milliseconds idle_settle = kIdleSettle);
  ~HealthMonitor();
  HealthMonitor(const HealthMonitor&) = delete;
  HealthMonitor& operator=(const HealthMonitor&) = delete;

  // Call before any worker runs a case: it also reads whether the GPU ran someone else's kernels
  // (idle_utilization.hpp), waiting up to a few seconds only while it did.
  void start();
  // Stops the thread, takes the after snapshot and the idle reading after the run (from one
  // settle period past `workers_ended`: the moment no worker of this run was left to launch a
  // kernel); the record of the whole run.
  [[nodiscard]] HealthRecord stop(
      std::chrono::steady_clock::time_point workers_ended = std::chrono::steady_clock::now());

 private:
  void watch();
  void sample_link();

  const Nvml& m_nvml;
  std::optional<NvmlDevice> m_device;
  std::chrono::milliseconds m_poll;
  std::chrono::milliseconds m_idle_settle;
  HealthRecord m_record;
  void* m_events = nullptr;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
  std::mutex m_mutex;  // guards m_record while the thread runs
  std::chrono::steady_clock::time_point m_started;
};

}  // namespace vsa
