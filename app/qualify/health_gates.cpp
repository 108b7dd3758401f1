#include "qualify/health_gates.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "qualify/check_codes.hpp"
#include "report/shared_gpu.hpp"

namespace vsa {

namespace {

using nlohmann::json;

NodeCheck make(const char* kind, Verdict verdict, const char* code, std::string reason, json value = nullptr,
               json threshold = nullptr) {
  NodeCheck c;
  c.name = std::string("health.") + kind;
  c.kind = kind;
  c.verdict = verdict;
  c.code = code;
  c.reason = std::move(reason);
  c.value = std::move(value);
  c.threshold = std::move(threshold);
  return c;
}

NodeCheck unknown(const char* kind, const std::string& why) {
  return make(kind, kSkip, kCodeHealthUnknown, "NVML cannot say: " + why);
}

// The latest answer: after the run, else before it.
template <typename T>
const NvmlAnswer<T>& latest(const NvmlAnswer<T>& before, const NvmlAnswer<T>& after) {
  return after.value ? after : before;
}

NodeCheck remapped_rows(const HealthRecord& r) {
  const auto& a = latest(r.before.remapped_rows, r.after.remapped_rows);
  if (!a.value) return unknown("remapped_rows", a.why);
  const RemappedRows& v = *a.value;
  const json value = {{"correctable", v.correctable},
                      {"uncorrectable", v.uncorrectable},
                      {"pending", v.pending},
                      {"failure", v.failure}};
  const json threshold = {{"pending", false}, {"failure", false}};
  const std::string counts = std::to_string(v.correctable) + " correctable, " + std::to_string(v.uncorrectable) +
                             " uncorrectable rows remapped";
  // NVML: a pending remap needs a GPU reset to take effect; a failed one means the bank ran out of spare rows.
  if (v.failure)
    return make("remapped_rows", kFail, kCodeRowRemap,
                "a row remap has failed on this GPU (" + counts + "): replace it", value, threshold);
  if (v.pending)
    return make("remapped_rows", kFail, kCodeRowRemap, "a row remap is pending (" + counts + "): reset the GPU", value,
                threshold);
  return make("remapped_rows", kPass, kCodeCheckOk, "no pending or failed row remap (" + counts + ")", value,
              threshold);
}

NodeCheck retired_pages(const HealthRecord& r) {
  const auto& pending = latest(r.before.retired_pages_pending, r.after.retired_pages_pending);
  if (!pending.value) return unknown("retired_pages", pending.why);
  const auto& sbe = latest(r.before.retired_pages_sbe, r.after.retired_pages_sbe);
  const auto& dbe = latest(r.before.retired_pages_dbe, r.after.retired_pages_dbe);
  const json value = {{"pending", *pending.value},
                      {"single_bit", sbe.value ? json(*sbe.value) : json()},
                      {"double_bit", dbe.value ? json(*dbe.value) : json()}};
  const std::string counts = (sbe.value ? std::to_string(*sbe.value) : std::string("?")) + " single-bit, " +
                             (dbe.value ? std::to_string(*dbe.value) : std::string("?")) + " double-bit pages retired";
  if (*pending.value)
    return make("retired_pages", kFail, kCodeRetiredPages,
                "pages are pending retirement (" + counts + "): reload the driver or reboot", value,
                {{"pending", false}});
  return make("retired_pages", kPass, kCodeCheckOk, "no page pending retirement (" + counts + ")", value,
              {{"pending", false}});
}

NodeCheck xid(const HealthRecord& r) {
  if (!r.xid_watched && r.xids.empty())
    return unknown("xid", r.xid_note.empty() ? std::string("Xid events were not watched") : r.xid_note);
  std::string list;
  for (const auto x : r.xids) list += (list.empty() ? "" : ", ") + std::to_string(x);
  const json value = {{"events", r.xids}, {"seconds", r.seconds}};
  if (!r.xids.empty())
    return make("xid", kFail, kCodeXid,
                std::to_string(r.xids.size()) + " critical Xid event(s) during the run: Xid " + list +
                    " (see the kernel log, `dmesg | grep -i xid`)",
                value, {{"events", 0}});
  return make("xid", kPass, kCodeCheckOk,
              "no critical Xid event in " + std::to_string(int(r.seconds)) + " s of the run" +
                  (r.xid_note.empty() ? "" : " (" + r.xid_note + ")"),
              value, {{"events", 0}});
}

NodeCheck pcie_link(const HealthRecord& r) {
  const auto& max = latest(r.before.pcie_link_max, r.after.pcie_link_max);
  if (!max.value) return unknown("pcie_link", max.why);
  if (!r.pcie_best) return unknown("pcie_link", r.pcie_note.empty() ? std::string("no link sample") : r.pcie_note);
  const PcieLink& best = *r.pcie_best;
  const json value = {{"generation", best.generation}, {"width", best.width}, {"samples", r.pcie_samples}};
  const json threshold = {{"generation", max.value->generation}, {"width", max.value->width}};
  const std::string seen = "best link during the run Gen" + std::to_string(best.generation) + " x" +
                           std::to_string(best.width) + ", the GPU and slot allow Gen" +
                           std::to_string(max.value->generation) + " x" + std::to_string(max.value->width);
  if (best.generation < max.value->generation || best.width < max.value->width)
    return make("pcie_link", kFail, kCodePcieLink, seen + ": the link trained down (reseat, check the riser/cable)",
                value, threshold);
  return make("pcie_link", kPass, kCodeCheckOk, seen, value, threshold);
}

NodeCheck ecc_growth(const HealthRecord& r) {
  const auto& b = r.before.ecc_uncorrected;
  const auto& a = r.after.ecc_uncorrected;
  if (!b.value || !a.value) return unknown("ecc_growth", b.value ? a.why : b.why);
  const std::int64_t grew = std::int64_t(*a.value) - std::int64_t(*b.value);
  json value = {{"uncorrected_before", *b.value}, {"uncorrected_after", *a.value}};
  std::string corrected;
  if (r.before.ecc_corrected.value && r.after.ecc_corrected.value) {
    value["corrected_before"] = *r.before.ecc_corrected.value;
    value["corrected_after"] = *r.after.ecc_corrected.value;
    corrected = ", corrected " + std::to_string(*r.before.ecc_corrected.value) + " -> " +
                std::to_string(*r.after.ecc_corrected.value);
  }
  const std::string counts =
      "uncorrected volatile ECC errors " + std::to_string(*b.value) + " -> " + std::to_string(*a.value) + corrected;
  if (grew > 0)
    return make("ecc_growth", kFail, kCodeEccGrowth, counts + ": uncorrected errors grew during the run", value,
                {{"uncorrected_growth", 0}});
  return make("ecc_growth", kPass, kCodeCheckOk, counts, value, {{"uncorrected_growth", 0}});
}

// An idle reading (idle_utilization.hpp) as text: "37%, 36%, 36% over 2.2 s". A single
// reading spans no time of ours: it is NVML's figure for its own last sample period, which the
// NVML reference puts between 1/6 s and 1 s by product ("over 0.0 s" read as no evidence).
std::string idle_text(const IdleUtilization& idle) {
  if (idle.busy_percent.size() == 1)
    return fmt::format("{}% in one reading of NVML's last sample period", idle.busy_percent.front());
  return fmt::format("{}% over {:.1f} s", fmt::join(idle.busy_percent, "%, "), idle.seconds);
}

bool any_case_hung(const Report& report) {
  return std::any_of(report.cases.begin(), report.cases.end(), [](const CaseResult& c) { return c.verdict == kHang; });
}

// What the two idle readings add to a verdict that did not FAIL on them.
std::string idle_readings_said(const HealthRecord& record, bool hung) {
  const IdleUtilization& before = record.idle;
  const IdleUtilization& after = record.idle_after;
  std::string said;
  if (!record.monitored || before.busy_percent.empty() || !before.why.empty())
    said = "; whether an unlisted process ran before the first case is unknown" +
           (before.why.empty() ? std::string() : " (" + before.why + ")");
  else if (!before.busy())
    said = "; before its first case the GPU ran no one's work (" + idle_text(before) + ")";
  if (record.monitored && hung && after.busy())
    said += "; the reading after the run (" + idle_text(after) + ") is not judged";
  else if (!record.monitored || after.busy_percent.empty() || !after.why.empty())
    said += "; whether one ran after the last case is unknown" +
            (after.why.empty() ? std::string() : " (" + after.why + ")");
  else if (!after.busy())
    said += "; after its last worker ended the GPU ran no one's work (" + idle_text(after) + ")";
  return said;
}

// Whether the GPU was this run's alone while it timed (report/shared_gpu.hpp): a neighbour's
// CUDA work time-slices with the cases, so every figure the floors judged may be low, at any
// spread (kernels/sm90a/notes/runs.md, run 49). Three views: the processes NVML lists in each
// timing's samples, and the work the GPU did before this invocation launched any kernel and
// after its last worker ended (idle_utilization.hpp), which also show a neighbour the list
// leaves out (another pid namespace, on current drivers): one there from the start, and one
// that came during the run and stayed.
NodeCheck exclusive(const Report& report, const HealthRecord& record) {
  int timings = 0, sampled = 0, shared = 0;
  std::set<unsigned> pids;
  std::string first, unknown_why;
  for (const auto& c : report.cases)
    for (const auto& b : c.backends)
      for (const auto& t : b.timings) {
        ++timings;
        const SharedGpu s = shared_gpu(t);
        if (s.sampled_passes > 0) ++sampled;
        if (unknown_why.empty()) unknown_why = s.unknown_why;
        if (s.passes == 0) continue;
        ++shared;
        pids.insert(s.pids.begin(), s.pids.end());
        if (first.empty()) first = c.name + " " + b.backend + " " + t.op;
      }
  const IdleUtilization& before = record.idle;
  const IdleUtilization& after = record.idle_after;
  // A worker killed for a HANG leaves its kernel to the driver, which may still be ending it.
  const bool hung = any_case_hung(report);
  const json value = {{"timings", timings},
                      {"sampled", sampled},
                      {"shared", shared},
                      {"pids", pids},
                      {"idle_busy_percent", before.busy_percent},
                      {"idle_after_busy_percent", after.busy_percent},
                      {"idle_persistence_mode", before.persistence_mode ? json(*before.persistence_mode) : json()}};
  if (shared > 0)
    return make("exclusive", kFail, kCodeSharedGpu,
                std::to_string(shared) + " of " + std::to_string(timings) +
                    " timings ran beside another process's CUDA context (first: " + first +
                    "; pids seen: " + fmt::format("{}", fmt::join(pids, ", ")) +
                    ", this run's worker among them): its work slows ours at any spread; run the node again with "
                    "the GPU to itself",
                value, 0);
  if (record.monitored && before.busy_with_others())
    return make("exclusive", kFail, kCodeSharedGpu,
                "the GPU was busy before this run launched any kernel: " + idle_text(before) +
                    " (nvmlDeviceGetUtilizationRates, persistence mode on), and still at the last reading; a process "
                    "the list may leave out (another container's pid namespace, on current drivers) shows only in "
                    "its work, which slows ours; run the node again with the GPU to itself",
                value, 0);
  if (record.monitored && after.busy_with_others() && !hung)
    return make("exclusive", kFail, kCodeSharedGpu,
                "the GPU was busy after this run's last worker had ended: " + idle_text(after) +
                    " (nvmlDeviceGetUtilizationRates, from " + fmt::format("{:.1f}", kIdleSettle.count() / 1000.0) +
                    " s after, persistence mode on), and still at the last reading; a process that came during the "
                    "run and that the list may leave out (another container's pid namespace, on current drivers) "
                    "shows only in its work, which slowed ours from when it came; run the node again with the GPU "
                    "to itself",
                value, 0);
  const std::string idle_said = idle_readings_said(record, hung);
  if (timings == 0) return make("exclusive", kSkip, kCodeHealthUnknown, "no timing in this run" + idle_said, value);
  if (sampled == 0)
    return make("exclusive", kSkip, kCodeHealthUnknown,
                "NVML cannot say: no timing's samples list the processes on the GPU "
                "(nvmlDeviceGetComputeRunningProcesses_v3)" +
                    (unknown_why.empty() ? std::string() : ": " + unknown_why) + idle_said,
                value);
  // Under MIG the lists were read from the worker's instance (telemetry/nvml_cuda.hpp).
  const bool mig = report.device.is_object() && report.device.value("mig_enabled", json()) == true;
  const std::string listed = std::string("no other process held a CUDA context on this ") +
                             (mig ? "MIG instance" : "GPU") + " during the " + std::to_string(sampled) +
                             " sampled timings";
  if (record.monitored && hung && after.busy())
    return make("exclusive", kSkip, kCodeHealthUnknown,
                listed + ", but the GPU was busy after the last worker ended (" + idle_text(after) +
                    ") and a case HANGed: its killed worker's kernel may run until the driver ends it, so a "
                    "neighbour that came during the run is neither shown nor ruled out",
                value);
  // Busy without persistence mode: the driver may have just brought the GPU up, or be taking it down.
  for (const auto* idle : {&before, &after}) {
    if (!record.monitored || !idle->busy()) continue;
    return make("exclusive", kSkip, kCodeHealthUnknown,
                listed + ", but the GPU was busy " +
                    (idle == &before ? "before the first case" : "after the last worker ended") + " (" +
                    idle_text(*idle) + ") with persistence mode " + (idle->persistence_mode ? "off" : "unknown") +
                    (idle == &before ? ": the driver may just have brought the GPU up (ECC scrubbing reads as busy)"
                                     : ": without it the driver's own work (ECC scrubbing when it brings the GPU up) "
                                       "can read as busy") +
                    ", so a neighbour the list leaves out is neither shown nor ruled out",
                value);
  }
  return make("exclusive", kPass, kCodeCheckOk, listed + idle_said, value, 0);
}

}  // namespace

std::vector<NodeCheck> health_checks(const HealthRecord& record, const Report& report,
                                     const std::vector<NodeCheck>& floors, const ThrottlePolicy& policy) {
  std::vector<NodeCheck> checks;
  if (!record.monitored) {
    for (const char* kind : {"remapped_rows", "retired_pages", "xid", "pcie_link", "ecc_growth"})
      checks.push_back(unknown(kind, record.why_not.empty() ? std::string("not monitored") : record.why_not));
  } else {
    checks.push_back(remapped_rows(record));
    checks.push_back(retired_pages(record));
    checks.push_back(xid(record));
    checks.push_back(pcie_link(record));
    checks.push_back(ecc_growth(record));
  }
  checks.push_back(throttle_check(report, record, floors, policy));
  checks.push_back(exclusive(report, record));
  return checks;
}

}  // namespace vsa
