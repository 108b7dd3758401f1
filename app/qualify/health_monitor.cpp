#include "qualify/health_monitor.hpp"

#include <algorithm>

namespace vsa {

HealthMonitor::HealthMonitor(const Nvml& nvml, std::optional<NvmlDevice> device, std::string why_not,
                             std::chrono::milliseconds poll, std::chrono::milliseconds idle_settle)
    : m_nvml(nvml), m_device(device), m_poll(poll), m_idle_settle(idle_settle) {
  m_record.why_not = std::move(why_not);
}

HealthMonitor::~HealthMonitor() {
  m_stop = true;
  if (m_thread.joinable()) m_thread.join();
  m_nvml.close_xid_events(m_events);
}

void HealthMonitor::start() {
  m_started = std::chrono::steady_clock::now();
  if (!m_device) return;
  m_record.monitored = true;
  m_record.before = take_health_snapshot(m_nvml, *m_device);
  m_record.idle = read_idle_utilization(m_nvml, *m_device, m_idle_settle);
  const auto events = m_nvml.open_xid_events(*m_device);
  if (events.value) {
    m_events = *events.value;
    m_record.xid_watched = true;
  } else {
    m_record.xid_note = events.why;
  }
  sample_link();
  m_thread = std::thread([this] { watch(); });
}

void HealthMonitor::sample_link() {
  const auto link = m_nvml.pcie_link(*m_device);
  std::lock_guard<std::mutex> lock(m_mutex);
  if (!link.value) {
    if (m_record.pcie_samples == 0) m_record.pcie_note = link.why;
    return;
  }
  ++m_record.pcie_samples;
  m_record.pcie_note.clear();
  if (!m_record.pcie_best) m_record.pcie_best = *link.value;
  m_record.pcie_best->generation = std::max(m_record.pcie_best->generation, link.value->generation);
  m_record.pcie_best->width = std::max(m_record.pcie_best->width, link.value->width);
}

void HealthMonitor::watch() {
  while (!m_stop) {
    if (m_events != nullptr) {
      const XidWait w = m_nvml.wait_xid(m_events, unsigned(m_poll.count()));
      std::lock_guard<std::mutex> lock(m_mutex);
      if (w.what == XidWait::What::event) m_record.xids.push_back(w.xid);
      if (w.what == XidWait::What::error) {
        // A failing wait would spin: stop watching and say so (the gate then SKIPs).
        m_record.xid_watched = false;
        m_record.xid_note = "stopped watching: " + w.why;
        m_nvml.close_xid_events(m_events);
        m_events = nullptr;
      }
    } else {
      std::this_thread::sleep_for(m_poll);
    }
    sample_link();
  }
}

HealthRecord HealthMonitor::stop(std::chrono::steady_clock::time_point workers_ended) {
  m_stop = true;
  if (m_thread.joinable()) m_thread.join();
  if (m_device) {
    // Events still queued when the run ended belong to it.
    for (int drained = 0; m_events != nullptr && drained < 1000; ++drained) {
      const XidWait w = m_nvml.wait_xid(m_events, 0);
      if (w.what != XidWait::What::event) break;
      m_record.xids.push_back(w.xid);
    }
    m_record.after = take_health_snapshot(m_nvml, *m_device);
    m_record.idle_after =
        read_idle_utilization(m_nvml, *m_device, m_idle_settle, kIdleMaxSettles, workers_ended + m_idle_settle);
  }
  m_nvml.close_xid_events(m_events);
  m_events = nullptr;
  m_record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
  return m_record;
}

}  // namespace vsa
