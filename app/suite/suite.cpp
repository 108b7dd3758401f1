#include "suite/suite.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "embedded_suites.hpp"
#include "model/case_footprint.hpp"
#include "suite/json_fields.hpp"
#include "util/json_member_path.hpp"
#include "model/probe_spec.hpp"
#include "util/json_input.hpp"
#include "util/printable.hpp"

namespace vsa {
namespace {

using nlohmann::json;

Mode parse_mode(const std::string& s, JsonFields& f, const std::string& path) {
  if (s == "check") return Mode::check;
  if (s == "stability") return Mode::stability;
  if (s == "perf") return Mode::perf;
  f.fail(path, "must be one of check, stability, perf; got \"" + s + "\"");
}

OpSelect parse_op(const std::string& s, JsonFields& f, const std::string& path) {
  if (s == "fwd") return OpSelect::forward;
  if (s == "bwd") return OpSelect::backward;
  if (s == "both") return OpSelect::both;
  f.fail(path, "must be one of fwd, bwd, both; got \"" + s + "\"");
}

template <class T, std::size_t N>
void read_array(JsonFields& f, const std::string& key, std::array<T, N>& out) {
  if (!f.has(key)) return;
  const json& v = f.raw(key);
  if (!v.is_array() || v.size() != N) f.fail(f.path_of(key), "must be an array of " + std::to_string(N) + " integers");
  for (std::size_t i = 0; i < N; ++i) {
    out[i] = f.checked<T>(v[i], f.path_of(key) + "[" + std::to_string(i) + "]");
  }
}

void read_pattern(const json& j, const std::string& path, const std::string& src, PatternSpec& p) {
  JsonFields f(j, path, src);
  f.read("kind", p.kind);
  f.read("density", p.density);
  f.read("zero_rows", p.zero_rows);
  f.read("sorted", p.sorted);
  read_array(f, "latent", p.latent);
  read_array(f, "window", p.window);
  if (f.has("rows")) {
    const json& rows = f.raw("rows");
    const std::string rpath = f.path_of("rows");
    if (!rows.is_array()) f.fail(rpath, "must be an array of arrays of kv block ids");
    p.rows.clear();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].is_array()) f.fail(rpath + "[" + std::to_string(i) + "]", "must be an array of kv block ids");
      std::vector<int> row;
      for (std::size_t e = 0; e < rows[i].size(); ++e) {
        row.push_back(f.checked<int>(rows[i][e], rpath + "[" + std::to_string(i) + "][" + std::to_string(e) + "]"));
      }
      p.rows.push_back(std::move(row));
    }
  }
  f.finish();
  static const char* kinds[] = {"topk", "ragged", "dense", "video", "explicit"};
  if (std::find(std::begin(kinds), std::end(kinds), p.kind) == std::end(kinds))
    f.fail(f.path_of("kind"), "must be one of topk, ragged, dense, video, explicit; got \"" + p.kind + "\"");
  if ((p.kind == "topk" || p.kind == "ragged") && !(p.density > 0.0 && p.density <= 1.0))
    f.fail(f.path_of("density"), "must be in (0, 1], got " + json(p.density).dump());
  if (!(p.zero_rows >= 0.0 && p.zero_rows <= 1.0))
    f.fail(f.path_of("zero_rows"), "must be in [0, 1], got " + json(p.zero_rows).dump());
}

void read_vbs(const json& j, const std::string& path, const std::string& src, VbsSpec& v) {
  JsonFields f(j, path, src);
  f.read("kind", v.kind);
  f.read("values", v.values);
  f.finish();
  if (v.kind != "full" && v.kind != "random" && v.kind != "video-tail" && v.kind != "explicit")
    f.fail(f.path_of("kind"), "must be one of full, random, video-tail, explicit; got \"" + v.kind + "\"");
}

// Expands "sweep": {"dotted.key": [v1, v2], ...} into the cartesian product of cases.
// A sweep key names a field by its object members, dot-separated ("S", "pattern.density"):
// nothing else reaches a field of a case (a JSON pointer's "~" escapes or array indices would
// reach nlohmann's own errors, or allocate an array of 10^11 elements).
constexpr int kMaxSweepKeyParts = 8;

// A loop, not std::regex: libstdc++'s matcher recurses per character and overflows the stack on
// a key of some 30,000 characters (a segfault, where the suite's error was due).
bool is_field_name(const std::string& key) {
  const auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  bool at_start = true;  // of a dot-separated part
  for (const char c : key) {
    if (at_start) {
      if (!letter(c)) return false;
      at_start = false;
    } else if (c == '.') {
      at_start = true;
    } else if (!letter(c) && !digit(c)) {
      return false;
    }
  }
  return !at_start;
}

std::vector<json> expand_sweep(const json& merged, const std::string& path, const std::string& src) {
  if (!merged.contains("sweep")) return {merged};
  const json& sweep = merged.at("sweep");
  if (!sweep.is_object()) throw SuiteError(src + ": " + path + ".sweep: must be an object of key -> list of values");
  if (const auto name = merged.find("name"); name != merged.end() && !name->is_string())
    throw SuiteError(src + ": " + path + ".name: must be a string, got " + std::string(name->type_name()));
  double product = 1;  // counted before expanding: 10^12 cases must be refused, not allocated
  for (const auto& item : sweep.items()) {
    if (!is_field_name(item.key()))
      throw SuiteError(src + ": " + path + ".sweep: \"" + printable(item.key()) +
                       "\" is not a field name (names of object members, dot-separated: \"S\", \"pattern.density\")");
    // Each part nests an object in the case, and nlohmann copies nests by recursion: 100,000
    // parts overflowed the stack. No field of a case is more than a few members deep.
    if (const auto parts = std::count(item.key().begin(), item.key().end(), '.') + 1; parts > kMaxSweepKeyParts)
      throw SuiteError(src + ": " + path + ".sweep: \"" +
                       printable(item.key().size() > 60 ? item.key().substr(0, 60) + "..." : item.key()) +
                       "\" is a key of " + std::to_string(parts) +
                       " dot-separated names; no field of a case is deeper than " + std::to_string(kMaxSweepKeyParts));
    if (!item.value().is_array() || item.value().empty())
      throw SuiteError(src + ": " + path + ".sweep." + item.key() + ": must be a non-empty list of values");
    product *= double(item.value().size());
  }
  if (product > double(kMaxSuiteCases))
    throw SuiteError(src + ": " + path + ".sweep: expands to " + fmt::format("{:.3g}", product) +
                     " cases, more than the limit of " + std::to_string(kMaxSuiteCases));
  std::vector<json> out{merged};
  out[0].erase("sweep");
  for (const auto& item : sweep.items()) {
    std::vector<json> next;
    for (const json& base : out)
      for (const json& value : item.value()) {
        json c = base;
        // Appended, not "/" + string: GCC 12 reports a bogus -Wrestrict overlap inside
        // std::string's operator+(const char*, string&&) (GCC bug 105329).
        std::string pointer = "/";
        std::string key_path = item.key();
        std::replace(key_path.begin(), key_path.end(), '.', '/');
        pointer += key_path;
        json::json_pointer ptr(pointer);
        try {
          c[ptr] = value;
        } catch (const json::exception&) {  // a field on the way is no object ("S.x" with S = 128)
          throw SuiteError(src + ": " + path + ".sweep." + item.key() +
                           ": cannot be set: " + "a field on its way is not an object in the case");
        }
        std::string suffix = item.key().substr(item.key().rfind('.') + 1) + "=" +
                             (value.is_string() ? value.get<std::string>() : value.dump());
        c["name"] = c.value("name", std::string("case")) + (base.contains("sweep_tag") ? "," : "/") + suffix;
        c["sweep_tag"] = true;
        next.push_back(std::move(c));
      }
    out = std::move(next);
  }
  for (json& c : out) c.erase("sweep_tag");
  return out;
}

std::string mode_list(const std::set<Mode>& modes) {
  std::vector<std::string> names;
  for (const Mode m : modes) names.push_back(to_string(m));
  return fmt::format("{}", fmt::join(names, ", "));
}

// A sustained pass (`timing.min_pass_ms` > 0) from `defaults` is meant for the suite's perf
// cases: dropped from the cases of other modes, which time nothing, as every other `timing`
// field from `defaults` is left unused there. Written by the case itself (its own `timing` or
// its sweep), case_from_json still refuses it outside perf.
bool writes_min_pass_ms(const json& written) {
  if (written.contains("timing") && written.at("timing").is_object() && written.at("timing").contains("min_pass_ms"))
    return true;
  if (!written.contains("sweep") || !written.at("sweep").is_object()) return false;
  const json& sweep = written.at("sweep");
  return sweep.contains("timing") || sweep.contains("timing.min_pass_ms");
}

void drop_default_min_pass_ms(json& expanded) {
  const bool perf = expanded.contains("mode") && expanded.at("mode").is_string() && expanded.at("mode") == "perf";
  if (perf || !expanded.contains("timing") || !expanded.at("timing").is_object()) return;
  expanded.at("timing").erase("min_pass_ms");
}

// A mode's own settings in a case of another mode are read and never used (a `timing` block on
// a check case times nothing): a warning where the case itself writes them, its own fields or
// its sweep, and none of the cases it expands to (a sweep may vary `mode`) has their mode. Not
// an error: repro bundles before 2026-12-07 carry every block of a case's spec, and they must
// still load. From `defaults` they apply to the cases whose mode uses them (and a default
// `min_pass_ms` is dropped from the others: drop_default_min_pass_ms). A `null` block is the
// merge-patch way to drop a default, not a setting. Empty when nothing applies.
std::string settings_of_another_mode(const json& written, const std::set<Mode>& modes, const std::string& name,
                                     const std::string& src, const std::string& path) {
  const json* sweep = written.contains("sweep") && written.at("sweep").is_object() ? &written.at("sweep") : nullptr;
  std::vector<std::string> found_at;
  for (const ModeSettings& m : kModeSettings) {
    if (modes.count(m.mode)) continue;
    std::string at;
    if (written.contains(m.field) && !written.at(m.field).is_null()) {
      at = path + "." + m.field;
    } else if (sweep) {
      for (const auto& item : sweep->items())
        if (item.key() == m.field || item.key().rfind(std::string(m.field) + ".", 0) == 0) {
          at = path + ".sweep" + member_segment(item.key());
          break;
        }
    }
    if (!at.empty())
      found_at.push_back(
          fmt::format("{}: {}: applies to {} cases only and does nothing in \"{}\" (mode {}; remove "
                      "it, or set \"mode\": \"{}\")",
                      src, at, to_string(m.mode), name, mode_list(modes), to_string(m.mode)));
  }
  return fmt::format("{}", fmt::join(found_at, "; "));
}

}  // namespace

CaseSpec case_from_json(const json& j, const std::string& src, const std::string& path) {
  CaseSpec c;
  JsonFields f(j, path, src);
  f.read("name", c.name);
  if (c.name.empty()) f.fail(f.path_of("name"), "every case needs a non-empty name");
  if (f.has("mode")) {
    std::string m;
    f.read("mode", m);
    c.mode = parse_mode(m, f, f.path_of("mode"));
  }
  if (f.has("op")) {
    std::string o;
    f.read("op", o);
    c.op = parse_op(o, f, f.path_of("op"));
  }
  std::int64_t seq = 0;
  f.read("B", c.shape.batch);
  f.read("H", c.shape.heads);
  f.read("S", seq);
  f.read("D", c.shape.head_dim);
  f.read("blk", c.shape.block);
  if (f.has("pattern")) read_pattern(f.raw("pattern"), f.path_of("pattern"), src, c.pattern);
  if (f.has("vbs")) read_vbs(f.raw("vbs"), f.path_of("vbs"), src, c.vbs);
  f.read("seed", c.seed);
  f.read("scale", c.scale);
  f.read("backends", c.backends);
  f.read("added_backends", c.added_backends);
  f.read("reference", c.reference);
  f.read("cpu_reference_limit", c.cpu_reference_limit);
  if (!(c.cpu_reference_limit >= 0))
    f.fail(f.path_of("cpu_reference_limit"), fmt::format("must be >= 0, got {}", c.cpu_reference_limit));
  f.read("validate", c.validate);
  f.read("timeout_s", c.timeout_s);
  f.read("probes", c.probes);
  std::int64_t hang_watch_ms = c.hang_watch_ms;  // signed: a negative value is refused, not wrapped
  f.read("hang_watch_ms", hang_watch_ms);
  std::int64_t schedules = c.schedules;  // likewise
  f.read("schedules", schedules);
  f.read("schedule_seed", c.schedule_seed);
  for (const auto& [key, ns] : c.probes) {
    ProbeKey probe;
    std::string error;
    if (!parse_probe_key(key, probe, error))
      throw SuiteError(src + ": " + f.path_of("probes") + member_segment(key) + ": " + error);
  }
  if (f.has("tolerance")) {
    JsonFields t(f.raw("tolerance"), f.path_of("tolerance"), src);
    t.read("rel_max", c.tolerance.rel_max);
    t.read("rel_l2", c.tolerance.rel_l2);
    t.finish();
    // A bound at or below 0 fails every backend (even an exact one): a typo, not a check.
    if (!(c.tolerance.rel_max > 0))
      t.fail(t.path_of("rel_max"), fmt::format("must be > 0, got {}", c.tolerance.rel_max));
    if (!(c.tolerance.rel_l2 > 0)) t.fail(t.path_of("rel_l2"), fmt::format("must be > 0, got {}", c.tolerance.rel_l2));
  }
  if (f.has("timing")) {
    JsonFields t(f.raw("timing"), f.path_of("timing"), src);
    t.read("warmup", c.timing.warmup);
    t.read("iterations", c.timing.iterations);
    t.read("passes", c.timing.passes);
    t.read("l2_flush", c.timing.l2_flush);
    t.read("min_pass_ms", c.timing.min_pass_ms);
    t.read("target_spread", c.timing.target_spread);
    t.read("time_budget_s", c.timing.time_budget_s);
    t.read("max_passes", c.timing.max_passes);
    t.finish();
    if (c.timing.iterations < 1 || c.timing.passes < 1 || c.timing.warmup < 0)
      t.fail(f.path_of("timing"), "iterations and passes must be >= 1, warmup >= 0");
    if (c.timing.min_pass_ms > 0 && c.timing.l2_flush)
      t.fail(f.path_of("timing"),
             "min_pass_ms and l2_flush exclude each other: a flush between batched launches "
             "would be timed with them");
    if (!(c.timing.min_pass_ms >= 0 && c.timing.min_pass_ms <= kMaxMinPassMs))
      t.fail(f.path_of("timing") + ".min_pass_ms",
             fmt::format("must be in [0, {}] ms, got {}", kMaxMinPassMs, c.timing.min_pass_ms));
    if (!(c.timing.target_spread >= 0 && c.timing.target_spread < 1))
      t.fail(f.path_of("timing") + ".target_spread",
             fmt::format("must be in [0, 1) (a fraction: 0.02 is 2%; 0 turns adaptive sampling off), got {}",
                         c.timing.target_spread));
    if (!(c.timing.time_budget_s >= 0 && c.timing.time_budget_s <= kMaxTimeBudgetS))
      t.fail(f.path_of("timing") + ".time_budget_s",
             fmt::format("must be in [0, {}] s, got {}", kMaxTimeBudgetS, c.timing.time_budget_s));
    if (c.timing.max_passes < c.timing.passes || c.timing.max_passes > kMaxPassesLimit)
      t.fail(f.path_of("timing") + ".max_passes", fmt::format("must be in [passes ({}), {}], got {}", c.timing.passes,
                                                              kMaxPassesLimit, c.timing.max_passes));
    else if (c.timing.target_spread > 0 && c.timing.max_passes < kMinConvergedPasses)
      t.fail(f.path_of("timing") + ".max_passes",
             fmt::format("{} can never converge: adaptive sampling needs {} kept passes for a 95% interval "
                         "(set max_passes >= {}, or target_spread 0 for exactly `passes`)",
                         c.timing.max_passes, kMinConvergedPasses, kMinConvergedPasses));
  }
  if (f.has("stability")) {
    JsonFields t(f.raw("stability"), f.path_of("stability"), src);
    t.read("runs", c.stability.runs);
    t.read("bands", c.stability.bands);
    t.finish();
    if (c.stability.runs < 2) t.fail(f.path_of("stability") + ".runs", "must be >= 2");
    static const std::set<std::string> tensors = {"o", "lse", "dq", "dk", "dv"};  // engine/stability.cpp's outputs
    for (const auto& [tensor, band] : c.stability.bands) {
      if (!tensors.count(tensor))
        t.fail(f.path_of("stability") + ".bands" + member_segment(tensor),
               "unknown output (bands are for o, lse, dq, dk, dv)");
      if (!(band >= 0)) t.fail(f.path_of("stability") + ".bands" + member_segment(tensor), "must be >= 0");
    }
  }
  f.finish();
  c.pattern.check_ranges = c.validate;

  // Shape checks: the messages name the field the user wrote.
  if (c.shape.batch < 1) f.fail(f.path_of("B"), "must be >= 1");
  if (c.shape.heads < 1) f.fail(f.path_of("H"), "must be >= 1");
  if (c.shape.head_dim < 1 || c.shape.head_dim > 512) f.fail(f.path_of("D"), "must be in [1, 512]");
  if (c.shape.block < 1 || c.shape.block > 256) f.fail(f.path_of("blk"), "must be in [1, 256]");
  if (c.pattern.kind == "video" && seq == 0) {
    const std::int64_t blocks = video_num_blocks(c.pattern.latent);
    if (blocks > std::numeric_limits<int>::max())
      f.fail(f.path_of("pattern") + ".latent", fmt::format("gives {} cubes, more than an int holds", blocks));
    seq = blocks * c.shape.block;
  }
  if (seq <= 0) f.fail(f.path_of("S"), "must be > 0 (or given by pattern.latent for video)");
  if (seq % c.shape.block != 0)
    f.fail(f.path_of("S"),
           "must be a multiple of blk (" + std::to_string(c.shape.block) + "), got " + std::to_string(seq));
  if (seq / c.shape.block > std::numeric_limits<int>::max())
    f.fail(f.path_of("S"),
           fmt::format("{} blocks of {} do not fit an int, got S = {}", seq / c.shape.block, c.shape.block, seq));
  c.shape.num_blocks = int(seq / c.shape.block);
  if (!(c.scale > 0)) f.fail(f.path_of("scale"), "must be > 0");
  if (!(c.timeout_s > 0 && c.timeout_s <= kMaxTimeoutS))
    f.fail(f.path_of("timeout_s"), fmt::format("must be in (0, {}] s, got {}", kMaxTimeoutS, c.timeout_s));
  if (hang_watch_ms < 0 || hang_watch_ms > kMaxHangWatchMs)
    f.fail(f.path_of("hang_watch_ms"),
           fmt::format("must be in [0, {}] ms (0: off; the device clock of the watch spans 73 min), got {}",
                       kMaxHangWatchMs, hang_watch_ms));
  if (hang_watch_ms > 0 && !(double(hang_watch_ms) < c.timeout_s * 1000))
    f.fail(f.path_of("hang_watch_ms"), fmt::format("must be below timeout_s ({} s), or the worker is called HANG "
                                                   "before the watch can locate the wait; got {} ms",
                                                   c.timeout_s, hang_watch_ms));
  c.hang_watch_ms = std::uint32_t(hang_watch_ms);
  if (schedules < 1 || schedules > kMaxSchedules)
    f.fail(f.path_of("schedules"),
           fmt::format("must be in [1, {}] (schedules per op of the backends that explore them), got {}", kMaxSchedules,
                       schedules));
  c.schedules = int(schedules);
  if (c.backends.empty()) f.fail(f.path_of("backends"), "must name at least one backend");
  for (const auto& b : c.added_backends)
    if (std::find(c.backends.begin(), c.backends.end(), b) == c.backends.end())
      f.fail(f.path_of("added_backends"), "\"" + b + "\" is not one of the case's backends");
  if (c.timing.min_pass_ms > 0 && c.mode != Mode::perf)
    f.fail(f.path_of("timing") + ".min_pass_ms",
           fmt::format("sustained passes are timing: mode must be perf, got {}", to_string(c.mode)));
  if (c.mode == Mode::perf && c.timing.min_pass_ms > 0) {
    // The worker answers once for all of a case's timing: sustained passes must fit its timeout.
    const int ops = c.op == OpSelect::both ? 2 : 1;
    const double budget_s =
        sustained_timing_budget_s(c.timing, ops, int(c.backends.size())) + adaptive_timing_budget_s(c.timing, ops);
    if (budget_s >= c.timeout_s)
      f.fail(f.path_of("timing") + ".min_pass_ms",
             fmt::format("{} passes x {} ms x {} ops x {} backends may take {:.0f} s (x{} under a power cap, plus "
                         "calibration, plus the adaptive budget of {} s per op), not under timeout_s = {}",
                         c.timing.passes, c.timing.min_pass_ms, ops, c.backends.size(), budget_s, kCapOverrun,
                         c.timing.target_spread > 0 ? c.timing.time_budget_s : 0, c.timeout_s));
  }
  if (c.mode == Mode::perf && c.timing.min_pass_ms == 0) {
    // Adaptive sampling may take its budget per op on top of the suite's passes.
    const int ops = c.op == OpSelect::both ? 2 : 1;
    if (adaptive_timing_budget_s(c.timing, ops) >= c.timeout_s)
      f.fail(f.path_of("timing") + ".time_budget_s",
             fmt::format("{} ops x {} s of adaptive sampling do not fit under timeout_s = {}", ops,
                         c.timing.time_budget_s, c.timeout_s));
  }
  if (c.pattern.kind == "explicit" && int(c.pattern.rows.size()) != c.shape.num_blocks)
    f.fail(f.path_of("pattern") + ".rows", "needs one list per q block (" + std::to_string(c.shape.num_blocks) +
                                               "), got " + std::to_string(c.pattern.rows.size()));
  // Before the validation below builds a head's index lists: refuse what this machine cannot hold.
  const CaseFootprint need = estimate_footprint(c);
  const double have = physical_memory_bytes();
  if (have > 0 && std::max(need.host_bytes, need.validation_bytes) > have)
    f.fail(path, fmt::format("needs an estimated {:.3g} GB of host memory (B={} H={} S={} D={}), more than this "
                             "machine's {:.3g} GB",
                             std::max(need.host_bytes, need.validation_bytes) / 1e9, c.shape.batch, c.shape.heads,
                             c.shape.seq(), c.shape.head_dim, have / 1e9));
  if (c.validate) {
    // Everything make_block_map checks (index ranges, latent, vbs values), with the path.
    try {
      (void)make_block_map(Shape{1, 1, c.shape.num_blocks, c.shape.head_dim, c.shape.block, 1, 1}, c.pattern, c.vbs,
                           c.seed);
    } catch (const std::invalid_argument& e) {
      throw SuiteError(src + ": " + path + "." + e.what());
    }
  }
  return c;
}

Suite parse_suite(const std::string& text, const std::string& src) {
  json doc;
  try {
    doc = parse_json_input(text);
  } catch (const JsonInputError& e) {
    throw SuiteError(src + ": not valid JSON: " + e.what());
  }
  Suite suite;
  suite.source = src;
  JsonFields top(doc, "$", src);
  top.read("name", suite.name);
  top.read("description", suite.description);
  if (top.has("origin")) {
    suite.origin = top.raw("origin");
    if (!suite.origin.is_object()) top.fail("$.origin", "must be an object (repro bundles: where the case came from)");
  }
  if (top.has("plugins")) {
    const json& list = top.raw("plugins");
    if (!list.is_array()) top.fail("$.plugins", "must be an array of plugin library paths, got " + list.dump());
    if (list.size() > kMaxSuitePlugins)
      top.fail("$.plugins", "more than " + std::to_string(kMaxSuitePlugins) + " plugins");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string at = "$.plugins[" + std::to_string(i) + "]";
      if (!list[i].is_string() || list[i].get<std::string>().empty())
        top.fail(at, "must be a non-empty path string, got " + list[i].dump());
      const std::string path = list[i].get<std::string>();
      if (path.size() > kMaxPluginPathLength || path.find('\0') != std::string::npos)
        top.fail(at, "not a usable path (longer than " + std::to_string(kMaxPluginPathLength) + " or with a NUL)");
      suite.plugins.push_back(path);
    }
  }
  json defaults = json::object();
  if (top.has("defaults")) {
    defaults = top.raw("defaults");
    if (!defaults.is_object()) top.fail("$.defaults", "must be an object");
  }
  if (!top.has("cases") || !top.raw("cases").is_array() || top.raw("cases").empty())
    top.fail("$.cases", "must be a non-empty array of cases");
  const json& cases = top.raw("cases");
  top.finish();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string path = "$.cases[" + std::to_string(i) + "]";
    if (!cases[i].is_object()) throw SuiteError(src + ": " + path + ": must be an object");
    json merged = defaults;
    merged.merge_patch(cases[i]);
    std::set<Mode> modes;  // of the cases this one expands to
    // A sweep's cases share one warning, which names the case as written, not its first sweep.
    const std::string case_name =
        merged.contains("name") && merged.at("name").is_string() ? merged.at("name").get<std::string>() : "";
    const bool own_min_pass_ms = writes_min_pass_ms(cases[i]);
    for (json expanded : expand_sweep(merged, path, src)) {
      if (!own_min_pass_ms) drop_default_min_pass_ms(expanded);
      if (suite.cases.size() >= kMaxSuiteCases)
        throw SuiteError(src + ": " + path + ": the suite expands to more than " + std::to_string(kMaxSuiteCases) +
                         " cases");
      try {
        suite.cases.push_back(case_from_json(expanded, src, path));
      } catch (const SuiteError& e) {
        if (!merged.contains("sweep")) throw;
        // The path is the case's; the value that broke it came from its sweep: say which.
        throw SuiteError(std::string(e.what()) + " (in \"" + expanded.value("name", std::string("?")) + "\", from " +
                         path + ".sweep)");
      }
      modes.insert(suite.cases.back().mode);
      suite.cases.back().origin = src + ": " + path;
    }
    // Once per written case, against the modes of every case its sweep made.
    if (std::string w = settings_of_another_mode(cases[i], modes, case_name, src, path); !w.empty()) {
      spdlog::warn("{}", w);
      suite.warnings.push_back(std::move(w));
    }
  }
  std::set<std::string> names;
  for (const auto& c : suite.cases)
    if (!names.insert(c.name).second) throw SuiteError(src + ": $.cases: duplicate case name \"" + c.name + "\"");
  return suite;
}

std::string qualified_case_name(const Suite& suite, const std::string& name_or_path, const std::string& case_name) {
  const std::string prefix = suite.name.empty() ? std::filesystem::path(name_or_path).stem().string() : suite.name;
  return prefix + "/" + case_name;
}

Suite load_suite(const std::string& name_or_path) {
  for (const auto& s : embedded_suites())
    if (s.name == name_or_path) {
      spdlog::debug("suite {}: the built-in one", name_or_path);
      return parse_suite(std::string(s.json), "builtin:" + name_or_path);
    }
  std::error_code ec;
  if (!std::filesystem::exists(name_or_path, ec)) {
    throw SuiteError(name_or_path + ": no such built-in suite or readable file (built-in: " +
                     fmt::format("{}", fmt::join(builtin_suite_names(), ", ")) + ")");
  }
  spdlog::debug("suite {}: read from the file", name_or_path);
  Suite suite;
  try {
    suite = parse_suite(read_input_file(name_or_path, kMaxSuiteBytes), name_or_path);
  } catch (const JsonInputError& e) {
    throw SuiteError(name_or_path + ": " + e.what());
  }
  // A suite shipped next to its plugin names it relative to itself, wherever it is run from.
  const std::filesystem::path folder = std::filesystem::path(name_or_path).parent_path();
  for (auto& p : suite.plugins)
    if (std::filesystem::path(p).is_relative()) p = (folder / p).lexically_normal().string();
  return suite;
}

std::vector<std::string> builtin_suite_names() {
  std::vector<std::string> names;
  for (const auto& s : embedded_suites()) names.emplace_back(s.name);
  return names;
}

void apply_sampling_overrides(CaseSpec& c, std::optional<double> target_spread, std::optional<double> time_budget_s) {
  if (c.mode != Mode::perf) return;
  if (target_spread) {
    if (!(*target_spread >= 0 && *target_spread < 1))
      throw SuiteError(
          fmt::format("--target-spread must be in [0%, 100%) (0 turns adaptive sampling off), got {}", *target_spread));
    c.timing.target_spread = *target_spread;
  }
  if (time_budget_s) {
    if (!(*time_budget_s >= 0 && *time_budget_s <= kMaxTimeBudgetS))
      throw SuiteError(fmt::format("--timing-budget must be in [0, {}] s, got {}", kMaxTimeBudgetS, *time_budget_s));
    c.timing.time_budget_s = *time_budget_s;
  }
  const int ops = c.op == OpSelect::both ? 2 : 1;
  const double need =
      adaptive_timing_budget_s(c.timing, ops) + sustained_timing_budget_s(c.timing, ops, int(c.backends.size()));
  if (need >= c.timeout_s)
    throw SuiteError(fmt::format("--timing-budget {} s: {} may then time for {:.0f} s, not under its timeout_s = {} s",
                                 c.timing.time_budget_s, c.name, need, c.timeout_s));
}

}  // namespace vsa
