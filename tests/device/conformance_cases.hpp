#pragma once
// The problems every backend of the conformance suite is run on (conformance_test.cpp),
// gathered from the former per-family tests so that no case was lost: cuda-ref's odd
// shapes (D = 48 / 80 / 256, BLK = 48 / 128), the fast kernels' D = 128 cases (count-0
// rows next to full ones, padded and all-padding key blocks, unsorted ids with garbage past
// the count, x16 inputs, many items per persistent CTA, rings that wrap, 1024 kv items),
// and blk128's. A backend skips, with its own reason, every case it does not support.
#include <string>
#include <vector>

#include "bwd_cases.hpp"

namespace vsa::test {

struct ConformanceCase {
  Case c;                              // spec and row layout (bwd_cases.hpp)
  std::vector<std::vector<int>> rows;  // explicit q2k rows, cycled over (b, h, i); empty: c.rows decides
  std::vector<int> vbs;                // explicit vbs; empty: the spec's pattern
};

inline Problem make_conformance_problem(const ConformanceCase& cc) {
  Problem p = make_case(cc.c);
  const Shape& s = p.shape;
  if (!cc.rows.empty())
    for (std::int64_t row = 0; row < s.count_elems(); ++row) {
      const auto& ids = cc.rows[std::size_t(row) % cc.rows.size()];
      p.q2k_num[std::size_t(row)] = int(ids.size());
      for (std::size_t e = 0; e < ids.size(); ++e) p.q2k_idx[std::size_t(row * s.max_kv) + e] = ids[e];
    }
  if (!cc.vbs.empty()) p.vbs.assign(cc.vbs.begin(), cc.vbs.end());
  return p;
}

inline std::vector<ConformanceCase> conformance_cases() {
  // ProblemSpec: name, B, H, nb, D, BLK, max_kv, seed, input scale, vbs pattern, zero rows.
  std::vector<ConformanceCase> c;
  for (const ProblemSpec& s : attention_cases()) c.push_back({{s, Rows::random}, {}, {}});
  // Large enough for the planted overlap race to show under its probe (PlantedFaults).
  c.push_back({{{"b1h2_nb64_d64_race", 1, 2, 64, 64, 64, 8, 17, 1.0f, VbsPattern::full, false}, Rows::random}, {}, {}});
  const std::vector<ConformanceCase> fast = {
      {{{"b1h1_nb2_counts_1_0", 1, 1, 2, 128, 64, 1, 21, 1.0f, VbsPattern::full, false}, Rows::minimal_1_0}, {}, {}},
      {{{"b2h2_nb5_random_vbs", 2, 2, 5, 128, 64, 3, 22, 1.0f, VbsPattern::random, true}, Rows::random}, {}, {}},
      {{{"b1h3_nb3_tail_x4", 1, 3, 3, 128, 64, 3, 23, 4.0f, VbsPattern::tail_only, true}, Rows::random}, {}, {}},
      {{{"b2h1_nb7_random_vbs_x16", 2, 1, 7, 128, 64, 4, 24, 16.0f, VbsPattern::random, true}, Rows::random}, {}, {}},
      {{{"b1h1_nb5_one_kv_each", 1, 1, 5, 128, 64, 1, 25, 1.0f, VbsPattern::full, true}, Rows::random}, {}, {}},
      {{{"b1h2_nb9_dense_reversed", 1, 2, 9, 128, 64, 9, 26, 1.0f, VbsPattern::tail_only, false}, Rows::dense_reversed},
       {},
       {}},
      {{{"b3h1_nb6_dense_x16", 3, 1, 6, 128, 64, 6, 27, 16.0f, VbsPattern::random, false}, Rows::dense_reversed},
       {},
       {}},
      // Several items per persistent CTA, mixed kinds and lengths.
      {{{"b3h6_nb24_many_items", 3, 6, 24, 128, 64, 6, 28, 1.0f, VbsPattern::random, true}, Rows::random}, {}, {}},
      {{{"b2h24_nb12_many_fwd_items", 2, 24, 12, 128, 64, 3, 29, 1.0f, VbsPattern::full, true}, Rows::random}, {}, {}},
      // Long rows: the K/V rings wrap many times within one item.
      {{{"b1h1_nb24_long_rows_x4", 1, 1, 24, 128, 64, 24, 30, 4.0f, VbsPattern::full, false}, Rows::dense_reversed},
       {},
       {}},
      // 1024 kv items: a device-sorted longest-first order (order_by_count's many-chunk path).
      {{{"b1h16_nb64_ordered", 1, 16, 64, 128, 64, 3, 31, 1.0f, VbsPattern::random, true}, Rows::random}, {}, {}},
      // Count-0 rows between full rows, handled by neighbouring warp groups.
      {{{"zero_rows_next_to_full_b1h2_nb6", 1, 2, 6, 128, 64, 6, 32, 1.0f, VbsPattern::full, false}, Rows::random},
       {{5, 0, 3, 1, 4, 2}, {}, {2, 4, 0, 5, 1, 3}, {}, {3}, {0, 1, 2, 3, 4, 5}},
       {}},
      // Padded key blocks (vbs 1, 33, 17); masking uses the key block's vbs.
      {{{"padded_vbs_b1h2_nb5", 1, 2, 5, 128, 64, 5, 33, 1.0f, VbsPattern::full, false}, Rows::random},
       {{1}, {4, 1, 2}, {2, 0}, {3, 1, 4, 0, 2}, {}},
       {64, 1, 33, 64, 17}},
      // A block with no valid key: a row selecting only it attends to nothing.
      {{{"all_padding_selection_b1h1_nb4", 1, 1, 4, 128, 64, 3, 34, 1.0f, VbsPattern::full, false}, Rows::random},
       {{2}, {2, 0}, {0, 2}, {1}},
       {64, 64, 0, 5}},
      // 128-token blocks (sm100a-blk128): rings that wrap, many CTAs.
      {{{"blk128_b1h1_nb2_full", 1, 1, 2, 128, 128, 2, 51, 1.0f, VbsPattern::full, false}, Rows::random}, {}, {}},
      {{{"blk128_b1h2_nb12_long_rows", 1, 2, 12, 128, 128, 12, 55, 1.0f, VbsPattern::random, false}, Rows::random},
       {},
       {}},
      {{{"blk128_b2h8_nb6_many_ctas", 2, 8, 6, 128, 128, 4, 56, 1.0f, VbsPattern::full, true}, Rows::random}, {}, {}},
  };
  c.insert(c.end(), fast.begin(), fast.end());
  return c;
}

}  // namespace vsa::test
