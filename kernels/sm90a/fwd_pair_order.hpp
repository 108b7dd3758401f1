#pragma once
// Pair tiles of the forward (issue 22, notes/runs.md run 35): one CTA takes two query blocks
// of one head, one per consumer slot, and a single K/V ring carries the union of their kv
// lists, so a block both selected is loaded once. This header is the order of that union,
// shared by the producer (which streams it) and each consumer (which walks its own entries
// in it), and plain C++ so the unit tests check it without a GPU.
//
// The union is split into three queues: blocks both rows selected (shared), blocks only
// slot 0 selected, blocks only slot 1 selected. It is streamed in cycles r = 0, 1, ...;
// cycle r holds, in this order, the r-th of slot 0's own blocks (if r < only[0]), the r-th
// shared block (if r < shared) and the r-th of slot 1's own (if r < only[1]).
//
// Why cycles and not the merged id order: a consumer keeps its current V stage while it waits
// for its next K (the softmax of one block overlaps the P.V of the one before), so if the
// other slot owned the next ring-depth positions, the producer could never refill the held
// stage and all three roles would wait forever. In cycles, two consecutive entries of one
// slot are at most two positions apart (kMaxPairGap), whatever the three counts.
// Why own0 before shared before own1: slot 0 reaches a shared block as its second entry of a
// cycle and slot 1 as its first, so the two groups do not wait for the same load at the same
// step of their loops (run 35: with shared first, both did).
#include "vsa/bf16.hpp"  // VSA_HD

namespace vsa::sm90a::fwd {

struct PairCounts {
  int shared = 0;
  int only[2] = {0, 0};  // blocks only slot 0 / slot 1 selected
};

// Positions of the union that come before cycle r.
VSA_HD int pair_min(int a, int b) { return a < b ? a : b; }
VSA_HD int pair_entries_before(const PairCounts& c, int r) {
  return pair_min(r, c.shared) + pair_min(r, c.only[0]) + pair_min(r, c.only[1]);
}
VSA_HD int pair_union_size(const PairCounts& c) { return c.shared + c.only[0] + c.only[1]; }
// The entries one slot's consumer processes (its row's count).
VSA_HD int pair_slot_count(const PairCounts& c, int slot) { return c.shared + c.only[slot]; }

// Two consecutive entries of one slot are at most this far apart in the union.
inline constexpr int kMaxPairGap = 2;

// One slot's walk through its entries of the union: position() is the current entry's place
// in the union (0-based), advance() moves to the slot's next entry. Valid for
// pair_slot_count(c, slot) positions. Within a cycle, slot 0 takes its own block, then the
// shared one; slot 1 the shared one, then its own (the stream order above). (The counts are
// fields, not c.only[slot]: a runtime index would put the walk in local memory on the device.)
struct PairWalk {
  PairCounts c;
  int slot = 0;
  int n_first = 0, n_second = 0;  // slot 0: own, shared; slot 1: shared, own
  int r = 0;
  bool on_first = true;  // the current entry is the cycle's first kind for this slot

  VSA_HD static PairWalk start(const PairCounts& counts, int slot) {
    const int first = slot == 0 ? counts.only[0] : counts.shared;
    const int second = slot == 0 ? counts.shared : counts.only[1];
    PairWalk w{counts, slot, first, second, 0, first > 0};
    return w;
  }
  VSA_HD bool on_shared() const { return (slot == 0) != on_first; }
  VSA_HD int position() const {
    int at = pair_entries_before(c, r);
    if (on_shared() || slot == 1) at += r < c.only[0] ? 1 : 0;
    if (!on_shared() && slot == 1) at += r < c.shared ? 1 : 0;
    return at;
  }
  VSA_HD void advance() {
    if (on_first && r < n_second) {
      on_first = false;
      return;
    }
    ++r;
    on_first = r < n_first;
  }
};

}  // namespace vsa::sm90a::fwd
