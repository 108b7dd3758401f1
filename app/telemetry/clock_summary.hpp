#pragma once
// One short phrase for the clocks behind a timing, for tables next to its TFLOPS:
// "at 1395-1620 MHz, sw_power_cap". A number measured while the card held a power
// cap is then visibly not the same kind of number as one at full clock
// (kernels/sm90a/NOTES.md, run 10: the S >= 65536 forward misses its target this way).
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace vsa {

// `clocks` is Timing::clocks: [{"pass", "before", "after", "during"?}, ...] with ClockSample
// objects (telemetry/clock_sample.hpp). Per pass it uses the summary of the samples taken
// during it where there is one (sustained passes, telemetry/pass_monitor.hpp), else the
// sample taken after it: the SM clock range, the mean power of the passes sampled during
// (NVML's one-second mean in sustained passes, the instant power in burst passes;
// "at 1395-1620 MHz, 688 W, sw_power_cap"), then the slowdown reasons seen. Empty when
// no sample has an SM clock (no NVML, or a CPU backend).
[[nodiscard]] std::string clock_summary(const nlohmann::json& clocks);

}  // namespace vsa
