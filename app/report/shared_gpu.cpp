#include "report/shared_gpu.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace vsa {
namespace {

// The size of a sample's compute_pids list, adding its pids to `pids`; -1 where it has none.
int listed(const nlohmann::json& sample, std::set<unsigned>& pids) {
  if (!sample.is_object()) return -1;
  const auto list = sample.find("compute_pids");
  if (list == sample.end() || !list->is_array()) return -1;
  for (const auto& pid : *list)
    if (pid.is_number_integer() && pid.get<std::int64_t>() >= 0) pids.insert(unsigned(pid.get<std::int64_t>()));
  return int(list->size());
}

// The most processes the pass's "during" summary saw, -1 where it has no count.
int during_most(const nlohmann::json& pass) {
  const auto during = pass.find("during");
  if (during == pass.end() || !during->is_object()) return -1;
  const auto stat = during->find("compute_processes");
  if (stat == during->end() || !stat->is_object()) return -1;
  const auto most = stat->find("max");
  return most != stat->end() && most->is_number() ? int(most->get<double>()) : -1;
}

}  // namespace

SharedGpu shared_gpu(const Timing& timing) {
  SharedGpu s;
  if (!timing.clocks.is_array()) return s;
  for (const auto& pass : timing.clocks) {
    if (!pass.is_object()) continue;
    std::set<unsigned> pids;
    int most = during_most(pass);
    if (pass.contains("during")) (void)listed(pass["during"], pids);  // its pids: every one seen inside
    for (const char* edge : {"before", "after"})
      if (pass.contains(edge)) most = std::max(most, listed(pass[edge], pids));
    if (most < 0) {
      for (const char* edge : {"before", "after"})
        if (s.unknown_why.empty() && pass.contains(edge) && pass[edge].is_object())
          s.unknown_why = pass[edge].value("compute_pids_why", "");
      continue;
    }
    ++s.sampled_passes;
    const int others = std::max(0, most - 1);
    if (others == 0) continue;
    ++s.passes;
    s.most_others = std::max(s.most_others, others);
    s.pids.insert(pids.begin(), pids.end());
  }
  return s;
}

std::string shared_gpu_text(const Timing& timing) {
  const SharedGpu s = shared_gpu(timing);
  if (s.passes == 0) return "";
  std::string text = std::to_string(s.passes) + " of " + std::to_string(s.sampled_passes) +
                     " passes ran beside another compute process (up to " + std::to_string(s.most_others) +
                     (s.most_others == 1 ? " other" : " others");
  if (!s.pids.empty()) text += fmt::format("; pids seen: {}", fmt::join(s.pids, ", "));
  return text + ")";
}

}  // namespace vsa
