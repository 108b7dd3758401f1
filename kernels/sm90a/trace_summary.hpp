#pragma once
// Reads the timeline records of the forward and the backward (trace.hpp) into the few
// numbers that say where a small problem's time goes. Host-only, header-only: the device driver prints it and a
// unit test checks it on a synthetic record.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "trace.hpp"

namespace vsa::sm90a {

struct TraceSummary {
  int slots = 0;  // records with a start stamp
  int items = 0;  // items stamped (count-0 items included)
  // Microseconds from the first consumer start of the launch (t0), medians (med) and
  // maxima (max) over slots or items:
  double start_skew_max_us = 0;  // latest consumer start
  double dependency_med_us = 0;  // producer passed griddepcontrol.wait (the order kernel); < 0: before t0
  double dependency_max_us = 0;
  double first_arrival_med_us = 0;  // Q of the slot's first item arrived, after its dependency stamp
  double first_scores_med_us = 0;   // first S of an item done, after the item's arrival
  double item_med_us = 0;           // arrival -> epilogue done, every item
  double boundary_med_us = 0;       // epilogue done -> next item's arrival, same slot
  double last_done_med_us = 0;      // a slot's last epilogue
  double last_done_max_us = 0;      // the launch's last epilogue (span of the work)
  double clock_ghz = 0;             // SM cycles per ns over the records (clock64 / globaltimer)
};

namespace trace_detail {
inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}
inline double max_of(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }
// Stamp `stamp` of record `slot`: its time (ns) and its second word (cycles or an item id).
inline std::uint64_t stamp_ns(const std::vector<std::uint64_t>& words, std::size_t slot, int stamp) {
  return words[slot * kTraceWords + 2 * std::size_t(stamp)];
}
inline std::uint64_t stamp_value(const std::vector<std::uint64_t>& words, std::size_t slot, int stamp) {
  return words[slot * kTraceWords + 2 * std::size_t(stamp) + 1];
}
// The launch's t0: the earliest consumer start stamp, 0 when nothing was stamped.
inline std::uint64_t first_start(const std::vector<std::uint64_t>& words) {
  std::uint64_t t0 = 0;
  for (std::size_t s = 0; s < words.size() / kTraceWords; ++s) {
    const std::uint64_t start = stamp_ns(words, s, kTraceConsumerStart);
    if (start != 0 && (t0 == 0 || start < t0)) t0 = start;
  }
  return t0;
}
}  // namespace trace_detail

// `words`: slots x kTraceWords, as the kernel left them (zero: not stamped).
[[nodiscard]] inline TraceSummary summarize_trace(const std::vector<std::uint64_t>& words) {
  using trace_detail::max_of;
  using trace_detail::median_of;
  TraceSummary out;
  const std::size_t slots = words.size() / kTraceWords;
  auto ns = [&](std::size_t slot, int stamp) { return trace_detail::stamp_ns(words, slot, stamp); };
  auto cycles = [&](std::size_t slot, int stamp) { return trace_detail::stamp_value(words, slot, stamp); };
  const std::uint64_t t0 = trace_detail::first_start(words);
  if (t0 == 0) return out;
  // Signed: a producer may pass its dependency before the first consumer's start stamp.
  auto us = [&](std::uint64_t t) { return (double(t) - double(t0)) * 1e-3; };
  std::vector<double> starts, deps, arrivals, scores, items, boundaries, last_done, ghz;
  for (std::size_t s = 0; s < slots; ++s) {
    if (ns(s, kTraceConsumerStart) == 0) continue;
    ++out.slots;
    starts.push_back(us(ns(s, kTraceConsumerStart)));
    const std::uint64_t dep = ns(s, kTraceDependency);
    if (dep != 0) deps.push_back(us(dep));
    std::uint64_t prev_done = 0, first_ns = 0, first_cycles = 0, final_ns = 0, final_cycles = 0;
    for (int k = 0; k < kTraceItems; ++k) {
      const std::uint64_t arrive = ns(s, trace_item_stamp(k, 0));
      if (arrive == 0) break;
      ++out.items;
      if (k == 0 && dep != 0) arrivals.push_back(double(arrive - std::min(arrive, dep)) * 1e-3);
      if (k == 0) first_ns = arrive, first_cycles = cycles(s, trace_item_stamp(k, 0));
      if (prev_done != 0) boundaries.push_back(double(arrive - std::min(arrive, prev_done)) * 1e-3);
      const std::uint64_t first_s = ns(s, trace_item_stamp(k, 1));
      const std::uint64_t done = ns(s, trace_item_stamp(k, 2));
      if (first_s != 0) scores.push_back(double(first_s - std::min(first_s, arrive)) * 1e-3);
      if (done != 0) {
        items.push_back(double(done - std::min(done, arrive)) * 1e-3);
        prev_done = done;
        final_ns = done, final_cycles = cycles(s, trace_item_stamp(k, 2));
      }
    }
    if (prev_done != 0) last_done.push_back(us(prev_done));
    if (final_ns > first_ns && final_cycles > first_cycles)
      ghz.push_back(double(final_cycles - first_cycles) / double(final_ns - first_ns));
  }
  out.start_skew_max_us = max_of(starts);
  out.dependency_med_us = median_of(deps);
  out.dependency_max_us = max_of(deps);
  out.first_arrival_med_us = median_of(arrivals);
  out.first_scores_med_us = median_of(scores);
  out.item_med_us = median_of(items);
  out.boundary_med_us = median_of(boundaries);
  out.last_done_med_us = median_of(last_done);
  out.last_done_max_us = max_of(last_done);
  out.clock_ghz = median_of(ghz);
  return out;
}

// The backward's records (one per consumer slot): its kv items, then (deterministic mode) its q
// items, which may start only after the kv items they read are done.
struct BwdTraceSummary {
  int slots = 0;  // records with a start stamp (consumer slots)
  int kv_items = 0, q_items = 0;
  // Microseconds from the first consumer start (t0); med / max over slots or items.
  double dependency_med_us = 0;  // producer past griddepcontrol.wait (the preprocess kernel); < 0: before t0
  double dependency_max_us = 0;
  double first_arrival_med_us = 0;  // a slot's first item ready (mailbox, resident tiles) after its dependency
  double kv_gemms_med_us = 0;       // kv item: arrival -> its GEMMs done
  double kv_epilogue_med_us = 0;    // kv item: GEMMs done -> epilogue done (exchange, dK/dV stores)
  double q_gemms_med_us = 0;        // q item: arrival -> GEMMs done (includes waiting for dS tiles)
  double q_epilogue_med_us = 0;
  double boundary_med_us = 0;         // epilogue done -> the next item's arrival, same slot
  double kv_last_done_med_us = 0;     // a slot's last kv item done
  double kv_last_done_max_us = 0;     // the kv phase's end
  double q_first_arrival_med_us = 0;  // a slot's first q item arrived
  double q_first_arrival_min_us = 0;
  double last_done_med_us = 0;
  double last_done_max_us = 0;
};

// `words`: consumer slots x kTraceWords; ids below num_kv_items are kv items.
[[nodiscard]] inline BwdTraceSummary summarize_backward_trace(const std::vector<std::uint64_t>& words,
                                                              std::int64_t num_kv_items) {
  using trace_detail::max_of;
  using trace_detail::median_of;
  BwdTraceSummary out;
  const std::size_t slots = words.size() / kTraceWords;
  auto ns = [&](std::size_t c, int stamp) { return trace_detail::stamp_ns(words, c, stamp); };
  auto value = [&](std::size_t c, int stamp) { return trace_detail::stamp_value(words, c, stamp); };
  const std::uint64_t t0 = trace_detail::first_start(words);
  if (t0 == 0) return out;
  auto us = [&](std::uint64_t t) { return (double(t) - double(t0)) * 1e-3; };  // signed, as above
  auto span = [](std::uint64_t from, std::uint64_t to) { return double(to - std::min(to, from)) * 1e-3; };
  std::vector<double> deps, arrivals, kv_gemms, kv_epi, q_gemms, q_epi, boundaries, kv_last, q_first, last;
  for (std::size_t c = 0; c < slots; ++c) {
    if (ns(c, kTraceConsumerStart) == 0) continue;
    ++out.slots;
    const std::uint64_t dep = ns(c, kTraceDependency);
    if (dep != 0) deps.push_back(us(dep));
    std::uint64_t prev_done = 0, kv_done = 0, q_arrival = 0;
    for (int k = 0; k < kTraceItems; ++k) {
      const std::uint64_t arrive = ns(c, trace_item_stamp(k, 0));
      if (arrive == 0) break;
      const bool kv = std::int64_t(value(c, trace_item_stamp(k, 0))) < num_kv_items;
      ++(kv ? out.kv_items : out.q_items);
      if (k == 0 && dep != 0) arrivals.push_back(span(dep, arrive));
      if (prev_done != 0) boundaries.push_back(span(prev_done, arrive));
      if (!kv && q_arrival == 0) q_arrival = arrive;
      const std::uint64_t gemms = ns(c, trace_item_stamp(k, 1)), done = ns(c, trace_item_stamp(k, 2));
      if (gemms != 0) (kv ? kv_gemms : q_gemms).push_back(span(arrive, gemms));
      if (gemms != 0 && done != 0) (kv ? kv_epi : q_epi).push_back(span(gemms, done));
      if (done != 0) {
        prev_done = done;
        if (kv) kv_done = done;
      }
    }
    if (kv_done != 0) kv_last.push_back(us(kv_done));
    if (q_arrival != 0) q_first.push_back(us(q_arrival));
    if (prev_done != 0) last.push_back(us(prev_done));
  }
  out.dependency_med_us = median_of(deps);
  out.dependency_max_us = max_of(deps);
  out.first_arrival_med_us = median_of(arrivals);
  out.kv_gemms_med_us = median_of(kv_gemms);
  out.kv_epilogue_med_us = median_of(kv_epi);
  out.q_gemms_med_us = median_of(q_gemms);
  out.q_epilogue_med_us = median_of(q_epi);
  out.boundary_med_us = median_of(boundaries);
  out.kv_last_done_med_us = median_of(kv_last);
  out.kv_last_done_max_us = max_of(kv_last);
  out.q_first_arrival_med_us = median_of(q_first);
  out.q_first_arrival_min_us = q_first.empty() ? 0 : *std::min_element(q_first.begin(), q_first.end());
  out.last_done_med_us = median_of(last);
  out.last_done_max_us = max_of(last);
  return out;
}

}  // namespace vsa::sm90a
