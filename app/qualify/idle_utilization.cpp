#include "qualify/idle_utilization.hpp"

#include <thread>

namespace vsa {

IdleUtilization read_idle_utilization(const Nvml& nvml, NvmlDevice device, std::chrono::milliseconds settle,
                                      int max_settles, std::chrono::steady_clock::time_point not_before) {
  std::this_thread::sleep_until(not_before);
  IdleUtilization idle;
  idle.persistence_mode = nvml.persistence_mode(device);
  const auto first = std::chrono::steady_clock::now();
  for (int settles = 0;; ++settles) {
    const NvmlAnswer<unsigned> reading = nvml.kernel_busy_percent(device);
    if (!reading.value) {
      idle.why = reading.why;
      break;
    }
    idle.busy_percent.push_back(*reading.value);
    if (*reading.value == 0 || settles == max_settles) break;
    std::this_thread::sleep_for(settle);
  }
  idle.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - first).count();
  return idle;
}

nlohmann::json to_json(const IdleUtilization& idle) {
  return {{"busy_percent", idle.busy_percent},
          {"seconds", idle.seconds},
          {"why", idle.why},
          {"persistence_mode", idle.persistence_mode ? nlohmann::json(*idle.persistence_mode) : nlohmann::json()}};
}

}  // namespace vsa
