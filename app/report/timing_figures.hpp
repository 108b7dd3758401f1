#pragma once
// Whether a timing's figures follow from its own pass medians, as the writer derives them
// (engine/pass_sampling.hpp): `passes` counts them, the off-clock passes are a minority of
// valid indices, `median_ms` is the median of the kept ones, and `spread` their interval
// (schema 2) or (max - min) / median over all passes (schema 1), `tflops` is the case's FLOPs for
// the op over `median_ms`, and each off-clock pass names its own clock (the one `clocks` gives,
// engine/pass_sampling.hpp's pass_clocks_mhz) outside the range it records for the passes kept,
// which hold every kept pass's clock. compare, fleet and floors
// gate on `spread` and `median_ms` as stored, so a report whose spread was narrowed by hand
// (or by a damaged writer) would pass a gate its pass medians fail (review of 2026-12-06:
// passes +-12% with a stored spread of 0.5% compared as "no regression"). Every report the
// tool has committed satisfies this exactly.
#include <string>

#include "model/case_result.hpp"

namespace vsa {

// "" when consistent, else what is not, with the figures ("spread 0.5% but its pass medians give 24%").
// `flops`: the case's flops_fwd or flops_bwd for t.op.
[[nodiscard]] std::string timing_figures_inconsistency(const Timing& t, int schema_version, double flops);

}  // namespace vsa
