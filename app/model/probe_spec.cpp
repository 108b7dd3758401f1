#include "probe_spec.hpp"

#include <charconv>
#include <string_view>

namespace vsa {
namespace {

constexpr std::string_view kWarps = "@warps:";

bool parse_uint(std::string_view s, unsigned long long& v) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

// "4-7" or "0,2,5-6" -> mask of warps 0..31.
bool parse_warp_list(std::string_view list, std::uint32_t& mask, std::string& error) {
  mask = 0;
  if (list.empty()) {
    error = "empty warp list after @warps: (expected e.g. 4-7 or 0,2,5-6)";
    return false;
  }
  while (!list.empty()) {
    const auto comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (comma != std::string_view::npos && list.empty()) {
      error = "trailing ',' in the warp list";
      return false;
    }
    const auto dash = item.find('-');
    unsigned long long lo = 0, hi = 0;
    const bool ok = dash == std::string_view::npos
                        ? parse_uint(item, lo) && (hi = lo, true)
                        : parse_uint(item.substr(0, dash), lo) && parse_uint(item.substr(dash + 1), hi);
    if (!ok) {
      error = "warp list item '" + std::string(item) + "' is not a warp number or a range A-B";
      return false;
    }
    if (lo > 31 || hi > 31) {
      error = "warp list item '" + std::string(item) + "' is outside warps 0..31";
      return false;
    }
    if (lo > hi) {
      error = "warp range '" + std::string(item) + "' runs backwards";
      return false;
    }
    for (unsigned long long w = lo; w <= hi; ++w) mask |= 1u << w;
  }
  return true;
}

}  // namespace

bool parse_probe_key(const std::string& key, ProbeKey& out, std::string& error) {
  const auto at = key.find('@');
  out.point = key.substr(0, at);
  out.warps = 0;
  if (out.point.empty()) {
    error = "probe '" + key + "' has no point name";
    return false;
  }
  if (at == std::string::npos) return true;
  const std::string_view rest = std::string_view(key).substr(at);
  if (rest.substr(0, kWarps.size()) != kWarps) {
    error = "probe '" + key + "': expected @warps:LIST after the name, got '" + std::string(rest) + "'";
    return false;
  }
  std::string why;
  if (!parse_warp_list(rest.substr(kWarps.size()), out.warps, why)) {
    error = "probe '" + key + "': " + why;
    return false;
  }
  return true;
}

bool parse_probe_arg(const std::string& arg, ProbeArg& out, std::string& error) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) {
    error = "expected NAME=NANOSECONDS[@warps:LIST], got '" + arg + "'";
    return false;
  }
  const std::string name = arg.substr(0, eq);
  std::string value = arg.substr(eq + 1);
  std::string mask;
  if (const auto at = value.find('@'); at != std::string::npos) {
    mask = value.substr(at);
    value.resize(at);
  }
  unsigned long long ns = 0;
  if (!parse_uint(value, ns) || ns > 0xffffffffull) {
    error = "NANOSECONDS must be a non-negative integer below 2^32 in '" + arg + "', got '" + value + "'";
    return false;
  }
  ProbeKey key;
  if (name.find('@') != std::string::npos || !parse_probe_key(name + mask, key, error)) {
    if (name.find('@') != std::string::npos) error = "the warp mask goes after the nanoseconds: '" + arg + "'";
    return false;
  }
  out.key = probe_key(key.point, key.warps);
  out.nanoseconds = std::uint32_t(ns);
  return true;
}

std::string probe_mask_refusal(const std::map<std::string, std::uint32_t>& probes,
                               const std::vector<std::string>& points, bool masks) {
  if (masks) return {};
  for (const auto& [key, ns] : probes) {
    ProbeKey probe;
    std::string error;
    if (!parse_probe_key(key, probe, error) || probe.warps == 0 || ns == 0) continue;
    for (const auto& p : points)
      if (p == probe.point) return "probe " + key + ": this backend's probes take no warp mask";
  }
  return {};
}

std::string probe_key(const std::string& point, std::uint32_t warps) {
  if (warps == 0) return point;
  std::string list;
  for (int w = 0; w < 32;) {
    if (!((warps >> w) & 1u)) {
      ++w;
      continue;
    }
    int end = w;
    while (end + 1 < 32 && ((warps >> (end + 1)) & 1u)) ++end;
    if (!list.empty()) list += ',';
    list += std::to_string(w);
    if (end > w) {
      list += '-';
      list += std::to_string(end);
    }
    w = end + 1;
  }
  return point + std::string(kWarps) + list;
}

}  // namespace vsa
