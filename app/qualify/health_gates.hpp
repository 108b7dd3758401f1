#pragma once
// The health gates of `qualify` (docs/qualify.md, "Health gates"), each with its
// threshold and reason code, judged from a HealthRecord and the report's sustained
// timings. A fact NVML could not give is a stated SKIP (VSA_E_HEALTH_UNKNOWN).
#include <vector>

#include "model/node_check.hpp"
#include "qualify/health.hpp"
#include "qualify/throttle_gate.hpp"
#include "report/report.hpp"

namespace vsa {

// remapped_rows, retired_pages, xid, pcie_link, ecc_growth (from the record), throttle
// (qualify/throttle_gate.hpp: the report's sustained timings, the record's temperature
// thresholds, and the floor checks made before) and exclusive (no timing of the report ran
// beside another process's CUDA context: report/shared_gpu.hpp), in that order.
[[nodiscard]] std::vector<NodeCheck> health_checks(const HealthRecord& record, const Report& report,
                                                   const std::vector<NodeCheck>& floors = {},
                                                   const ThrottlePolicy& policy = {});

}  // namespace vsa
