#pragma once
// A verdict about the GPU as a whole rather than about one case (docs/qualify.md):
// its speed against the floor of its GPU model, whether it held its clock under
// sustained load, and its health as NVML reports it (remapped rows, retired pages,
// XID events, PCIe link, ECC growth, hardware or thermal slowdown). PASS, FAIL, or
// SKIP with the reason the check could not be made here; never a silent pass.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/verdict.hpp"

namespace vsa {

struct NodeCheck {
  std::string name;  // unique in a report: "floor qualify/sm90a/perf-16k sm90a fwd", "health.xid"
  std::string kind;  // floor, clock_hold, remapped_rows, retired_pages, xid, pcie_link, ecc_growth, throttle,
                     // exclusive
  Verdict verdict = kSkip;
  std::string code;                    // stable reason code (docs/reason-codes.md)
  std::string reason;                  // the figure and the threshold, or why the check was skipped
  nlohmann::json value = nullptr;      // what was measured (number, object), null when nothing was
  nlohmann::json threshold = nullptr;  // what it was held against, null when skipped
  // What a timing check (floor, clock_hold) judged, so that readers need not parse the name:
  // the case, and the backend and op of the timing. A --require-floors failure for a backend
  // that was not timed has no op; "floor (any)" and the health gates leave all three empty.
  // Empty also in reports written before these fields (fleet then reads the name).
  std::string case_name;
  std::string backend;
  std::string op;
};

void to_json(nlohmann::json& j, const NodeCheck& check);
// Adds "case", "backend" and "op" to `j`, each where the check has it (to_json, JSON Lines rows).
void add_timing_fields(nlohmann::json& j, const NodeCheck& check);
void from_json(const nlohmann::json& j, NodeCheck& check);

// A check about timings' speed (kinds floor and clock_hold, named "KIND CASE BACKEND OP", with
// case_name, backend and op set; --require-floors' "floor (any)" names none of them, its failure
// for an untimed backend no op), as against the health gates, which judge a whole run.
[[nodiscard]] inline bool judges_a_timing(const NodeCheck& check) {
  return check.kind == "floor" || check.kind == "clock_hold";
}

// The worst verdict over the checks (kSkip when there are none or all skipped).
[[nodiscard]] Verdict worst_check_verdict(const std::vector<NodeCheck>& checks);

}  // namespace vsa
