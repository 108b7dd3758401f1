#pragma once
// A kernel protocol the unit tests may edit (planted faults): copies of its scripts' op
// tables and of its barrier table, linked back into a Protocol with relink(). Shared by
// the sm100a forward and backward protocol tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/sm100a/protocol_model.hpp"

namespace vsa::sm100a::test {

class EditableProtocol {
 public:
  std::vector<std::array<std::vector<protocol::Op>, 3>> ops;  // [script][prologue, loop, epilogue]
  std::vector<protocol::Script> scripts;
  std::vector<protocol::BarrierSpec> barriers;
  protocol::Protocol p;

  explicit EditableProtocol(const protocol::Protocol& original) : p(original) {
    barriers.assign(p.barriers, p.barriers + p.barrier_count);
    for (int s = 0; s < p.script_count; ++s) {
      const protocol::Script& sc = p.scripts[s];
      auto& sections = ops.emplace_back();
      int k = 0;
      for (auto section : {protocol::Section::prologue, protocol::Section::loop, protocol::Section::epilogue})
        sections[std::size_t(k++)].assign(sc.ops(section), sc.ops(section) + sc.size(section));
      scripts.push_back(sc);
    }
    relink();
  }

  std::vector<protocol::Op>& loop(protocol::WarpRole role) { return ops[index(role)][1]; }
  std::vector<protocol::Op>& epilogue(protocol::WarpRole role) { return ops[index(role)][2]; }

  std::size_t index(protocol::WarpRole role) const {
    for (std::size_t s = 0; s < scripts.size(); ++s)
      if (scripts[s].role == role) return s;
    ADD_FAILURE() << "no script for role " << protocol::role_name(role);
    return 0;
  }

  // First op of `kind` on a barrier or buffer (kNone: the first op of that kind).
  int find(const std::vector<protocol::Op>& v, protocol::OpKind kind, std::uint8_t barrier_or_buffer) const {
    for (int i = 0; i < int(v.size()); ++i) {
      const protocol::Op& op = v[std::size_t(i)];
      if (op.kind == kind && (barrier_or_buffer == protocol::kNone || op.barrier == barrier_or_buffer ||
                              op.read[0] == barrier_or_buffer || op.write == barrier_or_buffer))
        return i;
    }
    ADD_FAILURE() << "op not found";
    return 0;
  }

  // Removes the first loop op of `kind` on a barrier or buffer.
  void erase(protocol::WarpRole role, protocol::OpKind kind, std::uint8_t barrier_or_buffer) {
    auto& l = loop(role);
    l.erase(l.begin() + find(l, kind, barrier_or_buffer));
  }

  // Moves the loop's arrive on `barrier` to just before the first op of `before_kind`.
  void move_arrive_before(protocol::WarpRole role, std::uint8_t barrier, protocol::OpKind before_kind) {
    auto& l = loop(role);
    const int arrive = find(l, protocol::OpKind::arrive, barrier);
    const protocol::Op released = l[std::size_t(arrive)];
    l.erase(l.begin() + arrive);
    l.insert(l.begin() + find(l, before_kind, protocol::kNone), released);
  }

  // Removes every wait on `barrier` from the role's epilogue; returns how many there were.
  std::size_t drop_epilogue_waits(protocol::WarpRole role, std::uint8_t barrier) {
    auto& epi = epilogue(role);
    const auto before = epi.size();
    epi.erase(std::remove_if(
                  epi.begin(), epi.end(),
                  [&](const protocol::Op& op) { return op.kind == protocol::OpKind::wait && op.barrier == barrier; }),
              epi.end());
    return before - epi.size();
  }

  // The edited tables as a Protocol (pointers into this object).
  const protocol::Protocol& relink() {
    for (std::size_t s = 0; s < scripts.size(); ++s) {
      protocol::Script& sc = scripts[s];
      sc.prologue = ops[s][0].data();
      sc.prologue_size = int(ops[s][0].size());
      sc.loop = ops[s][1].data();
      sc.loop_size = int(ops[s][1].size());
      sc.epilogue = ops[s][2].data();
      sc.epilogue_size = int(ops[s][2].size());
    }
    p.scripts = scripts.data();
    p.barriers = barriers.data();
    return p;
  }
};

}  // namespace vsa::sm100a::test
