#pragma once
// Checks every sm100a kernel protocol's tables must pass, whatever the kernel: TMEM
// ranges inside the allocation and pairwise disjoint, and every barrier used along its
// edge (only its `from` role arrives, only its `to` role waits, each at least once).
#include <gtest/gtest.h>

#include "kernels/sm100a/protocol_model.hpp"

namespace vsa::sm100a::test {

inline void expect_tmem_ranges_fit_and_disjoint(const protocol::Protocol& p) {
  EXPECT_LE(p.tmem_alloc_columns, 512);
  for (int i = 0; i < p.tmem_count; ++i) {
    EXPECT_LE(p.tmem[i].first_column + p.tmem[i].columns, p.tmem_alloc_columns) << p.tmem[i].name;
    for (int j = i + 1; j < p.tmem_count; ++j) {
      const bool disjoint = p.tmem[i].first_column + p.tmem[i].columns <= p.tmem[j].first_column ||
                            p.tmem[j].first_column + p.tmem[j].columns <= p.tmem[i].first_column;
      EXPECT_TRUE(disjoint) << p.tmem[i].name << " and " << p.tmem[j].name;
    }
  }
}

inline void expect_barriers_used_along_their_edge(const protocol::Protocol& p) {
  for (int b = 0; b < p.barrier_count; ++b) {
    const auto& spec = p.barriers[b];
    int arrivals = 0, waits = 0;
    for (int s = 0; s < p.script_count; ++s) {
      const protocol::Script& sc = p.scripts[s];
      for (auto section : {protocol::Section::prologue, protocol::Section::loop, protocol::Section::epilogue})
        for (int i = 0; i < sc.size(section); ++i) {
          const protocol::Op& op = sc.ops(section)[i];
          if (op.barrier != spec.id || op.kind == protocol::OpKind::tma_load) continue;
          if (op.kind == protocol::OpKind::wait) {
            ++waits;
            EXPECT_EQ(sc.role, spec.to) << spec.name << " waited by " << protocol::role_name(sc.role);
          } else {
            ++arrivals;
            EXPECT_EQ(sc.role, spec.from) << spec.name << " arrived on by " << protocol::role_name(sc.role);
          }
        }
    }
    EXPECT_GT(arrivals, 0) << spec.name;
    EXPECT_GT(waits, 0) << spec.name;
  }
}

}  // namespace vsa::sm100a::test
