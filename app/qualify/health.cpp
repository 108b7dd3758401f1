#include "qualify/health.hpp"

namespace vsa {

HealthSnapshot take_health_snapshot(const Nvml& nvml, NvmlDevice device) {
  HealthSnapshot s;
  s.remapped_rows = nvml.remapped_rows(device);
  s.retired_pages_sbe = nvml.retired_pages(device, false);
  s.retired_pages_dbe = nvml.retired_pages(device, true);
  s.retired_pages_pending = nvml.retired_pages_pending(device);
  s.ecc_corrected = nvml.ecc_volatile(device, true);
  s.ecc_uncorrected = nvml.ecc_volatile(device, false);
  s.pcie_link = nvml.pcie_link(device);
  s.pcie_link_max = nvml.pcie_link_max(device);
  s.temperature_shutdown_c = nvml.temperature_threshold(device, TemperatureThreshold::shutdown);
  s.temperature_slowdown_c = nvml.temperature_threshold(device, TemperatureThreshold::slowdown);
  s.temperature_gpu_max_c = nvml.temperature_threshold(device, TemperatureThreshold::gpu_max);
  s.temperature_memory_max_c = nvml.temperature_threshold(device, TemperatureThreshold::memory_max);
  s.thermal_violation_ns = nvml.thermal_violation_ns(device);
  return s;
}

namespace {

using nlohmann::json;

template <typename T, typename F>
json answer(const NvmlAnswer<T>& a, F&& as_json) {
  if (a.value) return as_json(*a.value);
  return {{"unavailable", a.why}};
}

json plain(auto value) { return json(value); }
json link(const PcieLink& l) { return {{"generation", l.generation}, {"width", l.width}}; }

json snapshot(const HealthSnapshot& s) {
  return {{"remapped_rows", answer(s.remapped_rows,
                                   [](const RemappedRows& r) {
                                     return json{{"correctable", r.correctable},
                                                 {"uncorrectable", r.uncorrectable},
                                                 {"pending", r.pending},
                                                 {"failure", r.failure}};
                                   })},
          {"retired_pages_sbe", answer(s.retired_pages_sbe, [](auto v) { return plain(v); })},
          {"retired_pages_dbe", answer(s.retired_pages_dbe, [](auto v) { return plain(v); })},
          {"retired_pages_pending", answer(s.retired_pages_pending, [](auto v) { return plain(v); })},
          {"ecc_corrected_volatile", answer(s.ecc_corrected, [](auto v) { return plain(v); })},
          {"ecc_uncorrected_volatile", answer(s.ecc_uncorrected, [](auto v) { return plain(v); })},
          {"pcie_link", answer(s.pcie_link, link)},
          {"pcie_link_max", answer(s.pcie_link_max, link)},
          {"temperature_shutdown_c", answer(s.temperature_shutdown_c, [](auto v) { return plain(v); })},
          {"temperature_slowdown_c", answer(s.temperature_slowdown_c, [](auto v) { return plain(v); })},
          {"temperature_gpu_max_c", answer(s.temperature_gpu_max_c, [](auto v) { return plain(v); })},
          {"temperature_memory_max_c", answer(s.temperature_memory_max_c, [](auto v) { return plain(v); })},
          {"thermal_violation_ns", answer(s.thermal_violation_ns, [](auto v) { return plain(v); })}};
}

}  // namespace

json to_json(const HealthRecord& r) {
  if (!r.monitored) return {{"monitored", false}, {"why_not", r.why_not}};
  return {{"monitored", true},
          {"seconds", r.seconds},
          {"before", snapshot(r.before)},
          {"after", snapshot(r.after)},
          {"xid", {{"watched", r.xid_watched}, {"note", r.xid_note}, {"events", r.xids}}},
          {"pcie_during",
           {{"best", r.pcie_best ? link(*r.pcie_best) : json()}, {"samples", r.pcie_samples}, {"note", r.pcie_note}}},
          {"idle_before", to_json(r.idle)},
          {"idle_after", to_json(r.idle_after)}};
}

}  // namespace vsa
