#pragma once
// The health gates of `qualify` (docs/qualify.md, "Health gates"), each with its
// threshold and reason code, judged from a HealthRecord and the report's sustained
// timings. A fact NVML could not give is a stated SKIP (VSA_E_HEALTH_UNKNOWN).
#include <vector>

#include "model/node_check.hpp"
#include "qualify/health.hpp"
#include "report/report.hpp"

namespace vsa {

// Clock-event reasons that mean the hardware or its thermals held the clock down, as
// named by telemetry/clock_sample.hpp. sw_power_cap is the card holding its power
// limit, expected under sustained load (docs/design.md, "Timing"), and not a fault.
[[nodiscard]] const std::vector<std::string>& slowdown_reasons();

// remapped_rows, retired_pages, xid, pcie_link, ecc_growth (from the record) and
// throttle (from the report's sustained timings), in that order.
[[nodiscard]] std::vector<NodeCheck> health_checks(const HealthRecord& record, const Report& report);

}  // namespace vsa
