#pragma once
// Query blocks paired by list overlap, for the floor driver's "pairs" layouts (issue 22, the
// fewer-bytes lead of kernels/sm90a/notes/forward-account.md): within each head, the first
// unpaired query block takes, among the next `window` unpaired ones, the one whose kv list shares
// most blocks with its own (the earliest on a tie), and the pair's K/V tiles are moved once per
// block of the union of the two lists. With window 16 this is the pairing FlashInfer's SM90 VSA
// planner uses (run 32b) and scripts/dev/pair_overlap.py counts; window 1 pairs neighbours.
// Host code only: the floor kernel streams the result as items, so it is unit-tested here.
//
// Union order: the first block's list as it is, then the partner's blocks it lacks, in the
// partner's order (ascending lists give a list ascending in two runs).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace vsa::tools {

struct PairedLists {
  int items = 0;                  // pairs, heads x items_per_head
  int items_per_head = 0;         // rows_per_head / 2
  int max_kv = 0;                 // the row stride of idx: twice the input's, the longest possible union
  std::vector<std::int32_t> idx;  // [items, max_kv], each pair's union
  std::vector<std::int32_t> num;  // [items]
  std::string error;              // empty when the input could be paired
};

// q2k_idx is [heads * rows_per_head, max_kv], q2k_num [heads * rows_per_head] (counts past
// max_kv are clamped, as the kernels clamp them); each row's ids are distinct, in [0, kv_blocks)
// (the harness's lists; overlap is counted on sets, as pair_overlap.py counts it). rows_per_head
// must be even, so every head's rows pair up and each head has the same number of pairs.
[[nodiscard]] inline PairedLists pair_by_overlap(const std::vector<std::int32_t>& q2k_idx,
                                                 const std::vector<std::int32_t>& q2k_num, int heads, int rows_per_head,
                                                 int max_kv, int kv_blocks, int window) {
  PairedLists out;
  if (heads < 1 || rows_per_head < 2 || rows_per_head % 2 != 0 || max_kv < 1 || kv_blocks < 1 || window < 1)
    out.error =
        "pair_by_overlap: needs heads >= 1, an even rows_per_head >= 2, max_kv >= 1, kv_blocks >= 1, window >= 1";
  else if (q2k_num.size() != std::size_t(heads) * std::size_t(rows_per_head) ||
           q2k_idx.size() != q2k_num.size() * std::size_t(max_kv))
    out.error = "pair_by_overlap: q2k_idx / q2k_num do not match heads x rows_per_head x max_kv";
  if (!out.error.empty()) return out;
  out.items_per_head = rows_per_head / 2;
  out.items = heads * out.items_per_head;
  out.max_kv = 2 * max_kv;
  out.idx.assign(std::size_t(out.items) * std::size_t(out.max_kv), 0);
  out.num.assign(std::size_t(out.items), 0);
  const auto row_list = [&](std::size_t row) {
    const int count = std::clamp(q2k_num[row], 0, max_kv);
    const auto first = q2k_idx.begin() + std::ptrdiff_t(row * std::size_t(max_kv));
    return std::vector<std::int32_t>(first, first + count);
  };
  // Membership in the first row's list by a mark per block id (65536 tokens at 25%: 8 heads x 1024
  // rows x 16 candidates x 256 blocks, linear in the list length). The same marks check every
  // row's ids first, and are left cleared.
  std::vector<char> in_first(std::size_t(kv_blocks), 0);
  for (std::size_t row = 0; row < q2k_num.size(); ++row) {
    const auto list = row_list(row);
    for (const std::int32_t x : list) {
      if (x < 0 || x >= kv_blocks || in_first[std::size_t(x)]) {
        out.error = "pair_by_overlap: row " + std::to_string(row) + " selects block " + std::to_string(x) +
                    (x < 0 || x >= kv_blocks ? ", outside [0, " + std::to_string(kv_blocks) + ")" : " twice");
        return out;
      }
      in_first[std::size_t(x)] = 1;
    }
    for (const std::int32_t x : list) in_first[std::size_t(x)] = 0;
  }
  const auto shared = [&](const std::vector<std::int32_t>& b) {
    int n = 0;
    for (const std::int32_t x : b) n += in_first[std::size_t(x)];
    return n;
  };
  int item = 0;
  for (int h = 0; h < heads; ++h) {
    std::vector<int> unpaired(static_cast<std::size_t>(rows_per_head));
    for (int i = 0; i < rows_per_head; ++i) unpaired[std::size_t(i)] = i;
    while (!unpaired.empty()) {
      const std::size_t base = std::size_t(h) * std::size_t(rows_per_head);
      const std::vector<std::int32_t> a = row_list(base + std::size_t(unpaired.front()));
      unpaired.erase(unpaired.begin());
      for (const std::int32_t x : a) in_first[std::size_t(x)] = 1;
      std::size_t best = 0;
      int best_shared = -1;
      for (std::size_t j = 0; j < unpaired.size() && j < std::size_t(window); ++j) {
        const int n = shared(row_list(base + std::size_t(unpaired[j])));
        if (n > best_shared) {
          best_shared = n;
          best = j;
        }
      }
      const std::vector<std::int32_t> b = row_list(base + std::size_t(unpaired[best]));
      unpaired.erase(unpaired.begin() + std::ptrdiff_t(best));
      std::vector<std::int32_t> u = a;
      for (const std::int32_t x : b)
        if (!in_first[std::size_t(x)]) u.push_back(x);
      for (const std::int32_t x : a) in_first[std::size_t(x)] = 0;
      std::copy(u.begin(), u.end(), out.idx.begin() + std::ptrdiff_t(std::size_t(item) * std::size_t(out.max_kv)));
      out.num[std::size_t(item)] = std::int32_t(u.size());
      ++item;
    }
  }
  return out;
}

}  // namespace vsa::tools
