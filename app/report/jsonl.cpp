#include <sstream>

#include <nlohmann/json.hpp>

#include "model/exit_codes.hpp"
#include "report/exports.hpp"
#include "report/reason_codes.hpp"
#include "report/report_fields.hpp"
#include "util/json_lookup.hpp"

namespace vsa {

std::string gpu_id_of(const Report& r) {
  if (!r.device.is_object()) return "cpu";
  if (std::string uuid = device_uuid_of(r.device); !uuid.empty()) return uuid;
  return "gpu" + std::to_string(json_value_or(r.device, "cuda_ordinal", -1));
}

// One row per measurement: a metric of a tensor, a timing of an op, a stability output,
// or (for a backend with none) its verdict alone. Every row repeats who and what.
std::string render_jsonl(const std::vector<Report>& reports) {
  using nlohmann::json;
  std::ostringstream out;
  for (const auto& r : reports) {
    const json who = {{"host", json_value_or(r.node, "hostname", "")},
                      {"gpu_uuid", gpu_id_of(r)},
                      {"gpu_name", json_value_or(r.device, "name", "")},
                      {"label", r.label},
                      {"started_at", r.started_at}};
    auto row = [&](const CaseResult& c, const BackendResult& b, json fields) {
      json j = who;
      j.update({{"case", c.name},
                {"backend", b.backend},
                {"verdict", b.verdict},
                {"code", reason_code(b)},
                {"reason", b.reason}});
      j.update(fields);
      out << j.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    };
    for (const auto& c : r.cases) {
      if (c.backends.empty()) {
        json j = who;
        j.update({{"kind", "case"},
                  {"case", c.name},
                  {"backend", ""},
                  {"verdict", c.verdict},
                  {"code", reason_code(c)},
                  {"reason", c.message}});
        out << j.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
      }
      for (const auto& b : c.backends) {
        for (const auto& m : b.metrics)
          row(c, b,
              {{"kind", "metric"},
               {"tensor", m.tensor},
               {"rel_max", m.rel_max},
               {"rel_l2", m.rel_l2},
               {"nan_count", m.nan_count},
               {"pass", m.pass}});
        for (const auto& t : b.timings)
          row(c, b,
              {{"kind", "timing"},
               {"op", t.op},
               {"median_ms", t.median_ms},
               {"spread", t.spread},
               {"tflops", t.tflops},
               {"passes", t.passes},
               {"sampling_stop", t.sampling.stop},
               {"off_clock_passes", t.off_clock_passes.size()}});
        for (const auto& s : b.stability)
          row(c, b,
              {{"kind", "stability"},
               {"tensor", s.tensor},
               {"runs", s.runs},
               {"mismatched_runs", s.mismatched_runs},
               {"worst_rel_dev", s.worst_rel_dev},
               {"pass", s.pass}});
        if (b.metrics.empty() && b.timings.empty() && b.stability.empty()) row(c, b, {{"kind", "verdict"}});
      }
    }
    for (const auto& k : r.checks) {
      json j = who;
      j.update({{"kind", "check"},
                {"check", k.name},
                {"check_kind", k.kind},
                {"verdict", k.verdict},
                {"code", k.code},
                {"reason", k.reason},
                {"value", k.value},
                {"threshold", k.threshold}});
      add_timing_fields(j, k);  // a timing check: what it judged, as timing rows say it
      out << j.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    }
    if (r.cases.empty() && r.exit_code != kExitOk) {
      json j = who;
      j.update({{"kind", "run"},
                {"verdict", kFault},
                {"code", run_reason_code(r)},
                {"reason", r.devices_note.is_string() ? r.devices_note.get<std::string>() : ""}});
      out << j.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    }
  }
  return out.str();
}

}  // namespace vsa
