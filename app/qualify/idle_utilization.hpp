#pragma once
// Whether the GPU ran someone else's kernels while this run had none (docs/qualify.md,
// "exclusive"): read before the first case, and again once the run's last worker has ended. The
// shared-GPU check counts the processes NVML lists, and the driver lists only those in the
// caller's pid namespace: a neighbour in another container (a time-sliced Kubernetes GPU, say)
// is not listed, and shows only in its work. Before the first case no process of this run has
// launched a kernel (the supervisor holds no CUDA context, and device discovery launches none),
// and after the workers have ended none does, so any kernel time then is another process's: the
// first reading shows a neighbour that was there from the start, the second one that came
// during the run and is still there.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "telemetry/nvml.hpp"

namespace vsa {

struct IdleUtilization {
  // Nvml::kernel_busy_percent: the first reading, then one settle period apart while above 0.
  std::vector<unsigned> busy_percent;
  double seconds = 0;  // from the first reading to the last
  std::string why;     // why there is no (further) reading (e.g. not supported under MIG)
  // Persistence mode at the reading. Without it the driver brings a GPU up when its first client
  // comes, and the NVML reference notes that ECC scrubbing then reads as high utilization.
  std::optional<bool> persistence_mode;

  // Still running kernels after the settle periods. A reading that falls to 0 was the tail of
  // work that ended before the run (a job just finished, an earlier run of this tool); one that
  // ends in an error is not known to have settled.
  [[nodiscard]] bool busy() const { return why.empty() && !busy_percent.empty() && busy_percent.back() > 0; }
  // busy(), and the GPU was not just brought up: what health.exclusive fails a node for.
  [[nodiscard]] bool busy_with_others() const { return busy() && persistence_mode == true; }
};

// Reads at `not_before` (at once when that has passed); while the reading is above 0, waits
// `settle` (longer than NVML's sample period, which is at most 1 s) and reads again, at most
// `max_settles` times. Costs nothing on an idle GPU. After a run, `not_before` is one settle
// period past its last kernel, so the first reading's window holds none of the run's own work.
inline constexpr std::chrono::milliseconds kIdleSettle{1100};
inline constexpr int kIdleMaxSettles = 3;
[[nodiscard]] IdleUtilization read_idle_utilization(const Nvml& nvml, NvmlDevice device,
                                                    std::chrono::milliseconds settle = kIdleSettle,
                                                    int max_settles = kIdleMaxSettles,
                                                    std::chrono::steady_clock::time_point not_before = {});

[[nodiscard]] nlohmann::json to_json(const IdleUtilization& idle);

}  // namespace vsa
