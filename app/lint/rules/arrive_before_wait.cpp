// arrive-before-wait: a barrier arrive issued while an asynchronous read of a buffer that
// the arrive may hand back can still be in flight (docs/spec.md bug class 2).
//
// What is tracked, and why (PTX ISA section titles; the tcgen05 number as in PTX ISA 9.x):
// - tcgen05.ld (LDTM). "Memory Consistency Model for 5th generation of TensorCore
//   operations" (9.7.16.6), "Asynchronous Operations": tcgen05.ld is asynchronous and not
//   ordered with the thread's other instructions; only tcgen05.wait::ld ("tcgen05.wait")
//   waits for it. An mbarrier arrive's release orders the thread's prior memory operations,
//   not an outstanding tcgen05.ld, so the columns can be rewritten while still being read.
//   One thread's tcgen05.ld complete in issue order: ptxas relies on it (in the sm100a dQ
//   reduce, of four back-to-back LDTM.x32 only the last sets a scoreboard, and the NOP that
//   tcgen05.wait::ld compiles to waits on that one alone), so a wait that retires an LDTM
//   retires every LDTM issued before it on all paths, scoreboard or not.
// - wgmma.mma_async (HGMMA) reading shared memory. "Asynchronous Warpgroup Level Matrix
//   Multiply-Accumulate Instructions": the operands may be read until wgmma.wait_group retires
//   the group (wgmma.commit_group / wait_group); releasing the stage before that is a race.
// - tcgen05.mma (UTC*MMA) reading shared memory. Same 9.7.16.6: asynchronous; its
//   completion is observable only through tcgen05.commit (UTCBAR), which makes an mbarrier
//   track it ("tcgen05.commit"). A thread arrive while an MMA is not yet committed hands
//   the operands back with nothing tracking the MMA. After the commit the mbarrier carries
//   the completion, and which arrive releases which buffer is not known here, so later
//   arrives are not checked against that MMA.
// Not tracked: generic loads (LDS, LDSM, LDG, LD, ...). mbarrier.arrive has .release
// semantics when no .sem qualifier is given ("mbarrier.arrive"; .relaxed is the explicit
// opt-out), and bar.arrive orders the thread's prior memory accesses for the threads that
// wait on the barrier likewise ("bar, barrier"). By "Memory Consistency Model" > "Release and Acquire Patterns" and
// "Ordering of memory operations" > "Causality Order", a load that precedes a release in program order is ordered
// before every operation that observes the release through an acquire (the producer's wait). ptxas relies on it: it
// emits LDS; SYNCS.ARRIVE with no wait on the LDS scoreboard. `mbarrier.arrive.relaxed.cta` gives no such order, but
// ptxas 13.0 emits the very same SYNCS.ARRIVE words for it (lint/README.md), so the SASS cannot tell it apart.
//
// Analysis (lint/README.md, "The model"): a forward may-analysis over the kernel's control-flow
// graph (sass/cfg.hpp). The state is the set of reads that may be outstanding, joined at
// merge points by union (the worst case over all paths), iterated to a fixpoint; then every
// arrive is checked once against the state that reaches it.
#include <algorithm>
#include <array>
#include <charconv>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <fmt/ranges.h>

#include "lint/checks.hpp"
#include "sass/cfg.hpp"
#include "util/strings.hpp"

namespace vsa::lint {

namespace {

enum class Kind { untracked, tensor_load, wgmma, tcgen05_mma };

// Ranks count the ops pushed onto the same scoreboard (or the wgmma groups committed) after
// this one: 0 = the newest. Ops are identified by their issuing instruction, so a loop's
// iterations collapse into one entry; its rank is a lower bound of the newest instance's
// true rank. DEPBAR.LE SBn, k retires the ranks >= k, so a lower bound retires no more than
// the hardware does (sound), and the join keeps the smaller rank.
constexpr int kMaxRank = 64;

struct Entry {
  Kind kind = Kind::untracked;
  int rank = 0;
  bool operator==(const Entry&) const = default;
};

struct Outstanding {
  std::uint32_t offset = 0;
  Kind kind = Kind::untracked;
  int scoreboard = -1;  // -1: wgmma group / tcgen05.mma
};

// "0x36" or "3" -> value; nullopt otherwise.
std::optional<int> parse_count(std::string_view token) {
  token = trim(token);
  int base = 10;
  if (token.starts_with("0x")) {
    token.remove_prefix(2);
    base = 16;
  }
  int value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value, base);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

bool is_tcgen05_mma(std::string_view base) {
  return base.starts_with("UTC") && base.ends_with("MMA");  // UTCHMMA, UTCQMMA, UTCIMMA (.WS forms too)
}

// `BAR.ARV 0x4, 0x100`: the immediate barrier id, or nothing when it sits in a register.
std::optional<int> immediate_barrier_id(const sass::Instruction& inst) {
  const std::string first = inst.operands.substr(0, inst.operands.find(','));
  if (first.rfind("0x", 0) != 0) return std::nullopt;
  try {
    return std::stoi(first, nullptr, 16);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool is_scheduling_barrier(const sass::Instruction& inst, const std::string& kernel, const ArriveRule& rule) {
  if (!inst.opcode_starts_with("BAR.ARV")) return false;
  const auto id = immediate_barrier_id(inst);
  if (!id) return false;
  for (const auto& b : rule.scheduling_barriers)
    if (b.id == *id && kernel.rfind(b.mangled_prefix, 0) == 0) return true;
  return false;
}

bool is_arrive(const sass::Instruction& inst, const std::string& kernel, const ArriveRule& rule) {
  if (is_scheduling_barrier(inst, kernel, rule)) return false;
  for (const auto& prefix : rule.arrive_opcodes) {
    if (inst.opcode_starts_with(prefix)) return true;
  }
  return false;
}

std::string describe(const Outstanding& op, const std::string& opcode) {
  const auto where = opcode + " at " + sass::format_offset(op.offset);
  switch (op.kind) {
    case Kind::tensor_load:
      return where + " (tcgen05.ld from tensor memory, SB" + std::to_string(op.scoreboard) + ")";
    case Kind::wgmma:
      return where + " (wgmma reading shared memory, group gsb0)";
    case Kind::tcgen05_mma:
      return where + " (tcgen05.mma reading shared memory, not yet committed)";
    case Kind::untracked:
      break;
  }
  return where;
}

std::string remedy(Kind kind) {
  switch (kind) {
    case Kind::tensor_load:
      return "tcgen05.wait::ld before the arrive";
    case Kind::wgmma:
      return "wgmma.wait_group before the arrive";
    case Kind::tcgen05_mma:
      return "release the operands with tcgen05.commit to the barrier, not a thread arrive";
    case Kind::untracked:
      break;
  }
  return {};
}

class State {
 public:
  bool operator==(const State&) const = default;

  // Union; the smaller rank. Returns true when *this grew.
  bool join(const State& other) {
    bool changed = false;
    for (const auto& [offset, load] : other.m_tmem_loads) {
      const auto [it, inserted] = m_tmem_loads.emplace(offset, load);
      if (inserted) {
        changed = true;
        continue;
      }
      // "issued after it on every path": the intersection.
      const auto before = it->second.issued_after.size();
      std::erase_if(it->second.issued_after, [&](std::uint32_t o) { return !load.issued_after.contains(o); });
      changed |= it->second.issued_after.size() != before;
    }
    for (int sb = 0; sb < sass::kScoreboards; ++sb) changed |= join_ranked(m_scoreboards[sb], other.m_scoreboards[sb]);
    changed |= join_ranked(m_closed_groups, other.m_closed_groups);
    changed |= join_ranked(m_overlapped_groups, other.m_overlapped_groups);
    // A group overlapped on one path but reportable on another stays reportable.
    for (const auto& [id, entry] : m_closed_groups) changed |= m_overlapped_groups.erase(id) > 0;
    changed |= join_set(m_open_group, other.m_open_group);
    changed |= join_set(m_uncommitted_mma, other.m_uncommitted_mma);
    return changed;
  }

  void apply_wait_mask(const sass::ControlBits& bits) {
    bool any = false;
    for (int sb = 0; sb < sass::kScoreboards; ++sb) {
      if (bits.waits_on(sb)) {
        m_scoreboards[sb].clear();
        any = true;
      }
    }
    if (any) retire_completed_tmem_loads();
  }

  // "DEPBAR.LE SB0, 0x1" (counter <= 1: all but the newest op retired) and
  // "DEPBAR.LE SB0, 0x0, {4,3}" (also SB4 and SB3 drained).
  void apply_depbar(const sass::Instruction& inst) {
    const std::string_view ops(inst.operands);
    const auto open = ops.find('{');
    const auto close = ops.find('}');
    if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
      for (const char c : ops.substr(open + 1, close - open - 1)) {
        if (c >= '0' && c < '0' + sass::kScoreboards) m_scoreboards[c - '0'].clear();
      }
      retire_completed_tmem_loads();
    }
    const auto counted = trim(ops.substr(0, open));  // "SB0, 0x1,"
    const auto comma = counted.find(',');
    const auto sb_token = trim(counted.substr(0, comma));
    if (comma == std::string_view::npos || sb_token.size() != 3 || !sb_token.starts_with("SB")) return;
    const int sb = sb_token[2] - '0';
    auto count_token = counted.substr(comma + 1);
    count_token = count_token.substr(0, count_token.find(','));
    const auto keep = parse_count(count_token);
    if (sb >= 0 && sb < sass::kScoreboards && keep) retire_from_rank(m_scoreboards[sb], *keep);
    retire_completed_tmem_loads();
  }

  // "WARPGROUP.DEPBAR.LE gsb0, N": at most N committed wgmma groups stay in flight.
  // When the wait retires at least one group, the N left running are deliberate overlap
  // (FA3-style: wait for S = QK^T, release K, let P.V run on); they are not reported,
  // since which buffer a barrier guards is unknown. A wait that retires nothing (N too
  // large) leaves them reportable.
  void apply_warpgroup_depbar(const sass::Instruction& inst) {
    const std::string_view ops(inst.operands);
    const auto comma = ops.find(',');
    const auto keep = comma == std::string_view::npos ? std::optional<int>(0) : parse_count(ops.substr(comma + 1));
    if (!keep) return;
    const auto retires = [&](const std::map<std::uint32_t, Entry>& groups) {
      return std::any_of(groups.begin(), groups.end(), [&](const auto& g) { return g.second.rank >= *keep; });
    };
    if (!retires(m_closed_groups) && !retires(m_overlapped_groups)) return;
    retire_from_rank(m_closed_groups, *keep);
    retire_from_rank(m_overlapped_groups, *keep);
    m_overlapped_groups.insert(m_closed_groups.begin(), m_closed_groups.end());
    m_closed_groups.clear();
  }

  // Every op that sets a scoreboard counts for DEPBAR.LE; a tracked load is retired by its
  // write scoreboard (data in registers) or, lacking one, its read scoreboard.
  void record(const sass::Instruction& inst, Kind kind) {
    const auto& bits = inst.control;
    if (kind == Kind::tensor_load) record_tmem_load(inst);
    if (bits.write_barrier != sass::kNoBarrier) push(m_scoreboards[bits.write_barrier], inst.offset, kind);
    if (bits.read_barrier != sass::kNoBarrier) {
      const bool on_write = bits.write_barrier != sass::kNoBarrier;
      push(m_scoreboards[bits.read_barrier], inst.offset, on_write ? Kind::untracked : kind);
    }
  }

  // wgmma ops join the open group; the one marked gsb0 commits it.
  void record_hgmma(const sass::Instruction& inst) {
    m_open_group.insert(inst.offset);
    if (inst.operands.find("gsb0") == std::string::npos) return;
    const auto id = *m_open_group.begin();
    age(m_closed_groups);
    age(m_overlapped_groups);
    m_overlapped_groups.erase(id);
    m_closed_groups[id] = {Kind::wgmma, 0};
    m_open_group.clear();
  }

  void record_tcgen05_mma(const sass::Instruction& inst) { m_uncommitted_mma.insert(inst.offset); }
  // tcgen05.commit: the mbarrier now tracks every prior tcgen05.mma of this thread.
  void commit_tcgen05() { m_uncommitted_mma.clear(); }

  [[nodiscard]] std::vector<Outstanding> outstanding() const {
    std::vector<Outstanding> ops;
    for (const auto& [offset, load] : m_tmem_loads) ops.push_back({offset, Kind::tensor_load, load.scoreboard});
    for (const auto& [offset, entry] : m_closed_groups) ops.push_back({offset, Kind::wgmma, -1});
    if (!m_open_group.empty()) ops.push_back({*m_open_group.begin(), Kind::wgmma, -1});
    for (const auto offset : m_uncommitted_mma) ops.push_back({offset, Kind::tcgen05_mma, -1});
    std::sort(ops.begin(), ops.end(), [](const Outstanding& a, const Outstanding& b) { return a.offset < b.offset; });
    ops.erase(std::unique(ops.begin(), ops.end(),
                          [](const Outstanding& a, const Outstanding& b) { return a.offset == b.offset; }),
              ops.end());
    return ops;
  }

 private:
  using Ranked = std::map<std::uint32_t, Entry>;  // by issuing instruction's offset

  struct TmemLoad {
    int scoreboard = -1;                   // its write (else read) scoreboard; -1: none
    std::set<std::uint32_t> issued_after;  // LDTMs issued after its newest instance, on every path
    bool operator==(const TmemLoad&) const = default;
  };

  void record_tmem_load(const sass::Instruction& inst) {
    const auto& bits = inst.control;
    for (auto& [offset, load] : m_tmem_loads) load.issued_after.insert(inst.offset);
    TmemLoad load;
    load.scoreboard = bits.write_barrier != sass::kNoBarrier  ? bits.write_barrier
                      : bits.read_barrier != sass::kNoBarrier ? bits.read_barrier
                                                              : -1;
    m_tmem_loads[inst.offset] = load;  // a new instance: nothing is known to follow it
  }

  // An LDTM whose scoreboard entry is gone has completed; so has every LDTM issued before it.
  void retire_completed_tmem_loads() {
    std::set<std::uint32_t> done;
    for (const auto& [offset, load] : m_tmem_loads) {
      if (load.scoreboard >= 0 && !m_scoreboards[load.scoreboard].contains(offset)) done.insert(offset);
    }
    if (done.empty()) return;
    std::erase_if(m_tmem_loads, [&](const auto& entry) {
      if (done.contains(entry.first)) return true;
      return std::any_of(entry.second.issued_after.begin(), entry.second.issued_after.end(),
                         [&](std::uint32_t later) { return done.contains(later); });
    });
  }

  static void age(Ranked& ops) {
    for (auto it = ops.begin(); it != ops.end();) {
      if (it->second.rank < kMaxRank) {
        ++it->second.rank;
      } else if (it->second.kind == Kind::untracked) {
        it = ops.erase(it);  // forgetting an untracked op only lets DEPBAR retire less
        continue;
      }
      ++it;
    }
  }

  static void push(Ranked& ops, std::uint32_t offset, Kind kind) {
    age(ops);
    auto& entry = ops[offset];
    entry.rank = 0;
    if (kind != Kind::untracked) entry.kind = kind;
  }

  static void retire_from_rank(Ranked& ops, int keep) {
    std::erase_if(ops, [&](const auto& op) { return op.second.rank >= keep; });
  }

  static bool join_ranked(Ranked& into, const Ranked& from) {
    bool changed = false;
    for (const auto& [offset, entry] : from) {
      const auto [it, inserted] = into.emplace(offset, entry);
      if (inserted) {
        changed = true;
        continue;
      }
      if (entry.rank < it->second.rank) {
        it->second.rank = entry.rank;
        changed = true;
      }
      if (it->second.kind == Kind::untracked && entry.kind != Kind::untracked) {
        it->second.kind = entry.kind;
        changed = true;
      }
    }
    return changed;
  }

  static bool join_set(std::set<std::uint32_t>& into, const std::set<std::uint32_t>& from) {
    const auto before = into.size();
    into.insert(from.begin(), from.end());
    return into.size() != before;
  }

  std::array<Ranked, sass::kScoreboards> m_scoreboards;  // every op that counts for DEPBAR.LE
  std::map<std::uint32_t, TmemLoad> m_tmem_loads;        // tcgen05.ld that may be outstanding
  Ranked m_closed_groups;                     // committed wgmma groups, not yet covered by a wait (by first HGMMA)
  Ranked m_overlapped_groups;                 // left in flight on purpose by a retiring wait_group N > 0
  std::set<std::uint32_t> m_open_group;       // HGMMA issued since the last gsb0 commit
  std::set<std::uint32_t> m_uncommitted_mma;  // tcgen05.mma issued since the last tcgen05.commit
};

Kind load_kind(const sass::Instruction& inst, const ArriveRule& rule) {
  if (rule.tensor_loads && inst.base_opcode() == "LDTM") return Kind::tensor_load;
  return Kind::untracked;
}

// One instruction's effect; `on_arrive` sees the state an arrive issues under.
template <typename OnArrive>
void step(State& state, const sass::Instruction& inst, const sass::Kernel& kernel, const ArriveRule& rule,
          OnArrive&& on_arrive) {
  state.apply_wait_mask(inst.control);  // waits happen before the instruction issues
  if (inst.opcode_starts_with("DEPBAR")) state.apply_depbar(inst);
  if (inst.opcode_starts_with("WARPGROUP.DEPBAR")) state.apply_warpgroup_depbar(inst);
  if (is_arrive(inst, kernel.name, rule)) on_arrive(state);
  state.record(inst, load_kind(inst, rule));
  const auto base = inst.base_opcode();
  if (rule.async_mma && base == "HGMMA") state.record_hgmma(inst);
  if (rule.tcgen05_mma && is_tcgen05_mma(base)) state.record_tcgen05_mma(inst);
  if (base == "UTCBAR") state.commit_tcgen05();
}

std::string message_for(const sass::Instruction& arrive, const std::vector<Outstanding>& ops,
                        const std::map<std::uint32_t, const sass::Instruction*>& by_offset) {
  constexpr std::size_t kListed = 3;
  std::string listed;
  for (std::size_t i = 0; i < ops.size() && i < kListed; ++i) {
    const auto it = by_offset.find(ops[i].offset);
    listed += (i ? "; " : "") + describe(ops[i], it == by_offset.end() ? "?" : it->second->opcode);
  }
  if (ops.size() > kListed) listed += "; and " + std::to_string(ops.size() - kListed) + " more";
  std::set<Kind> kinds;
  for (const auto& op : ops) kinds.insert(op.kind);
  std::vector<std::string> remedies;
  for (const auto kind : kinds) remedies.push_back(remedy(kind));
  return arrive.opcode + " releases a barrier while " + listed + (ops.size() == 1 ? " is" : " are") +
         " still outstanding on some path to it: nothing between them waits for it (" +
         fmt::format("{}", fmt::join(remedies, "; ")) + ")";
}

}  // namespace

void check_arrive_before_wait(const sass::Kernel& kernel, const ArriveRule& rule, std::vector<Finding>& out) {
  const auto cfg = sass::build_cfg(kernel);
  if (cfg.blocks.empty()) return;
  const auto& insts = kernel.instructions;

  // Fixpoint: the may-be-outstanding state at each block's entry.
  std::vector<std::optional<State>> in(cfg.blocks.size());
  in[0] = State{};
  std::deque<std::size_t> work = {0};
  std::vector<bool> queued(cfg.blocks.size(), false);
  queued[0] = true;
  while (!work.empty()) {
    const auto b = work.front();
    work.pop_front();
    queued[b] = false;
    State state = *in[b];
    const auto& block = cfg.blocks[b];
    for (std::size_t i = block.first; i <= block.last; ++i) step(state, insts[i], kernel, rule, [](const State&) {});
    for (const auto to : block.successors) {
      const bool changed = in[to] ? in[to]->join(state) : (in[to] = state, true);
      if (changed && !queued[to]) {
        queued[to] = true;
        work.push_back(to);
      }
    }
  }

  std::map<std::uint32_t, const sass::Instruction*> by_offset;
  for (const auto& inst : insts) by_offset[inst.offset] = &inst;
  for (std::size_t b = 0; b < cfg.blocks.size(); ++b) {
    if (!in[b]) continue;  // unreachable
    State state = *in[b];
    const auto& block = cfg.blocks[b];
    for (std::size_t i = block.first; i <= block.last; ++i) {
      const auto& inst = insts[i];
      step(state, inst, kernel, rule, [&](const State& s) {
        const auto ops = s.outstanding();
        if (!ops.empty())
          out.push_back(
              {kRuleArriveBeforeWait, kernel.name, kernel.arch, inst.offset, message_for(inst, ops, by_offset)});
      });
    }
  }
}

}  // namespace vsa::lint
