// arrive-before-wait: a barrier arrive that hands a buffer back while a load from
// that kind of buffer may still be reading it.
//
// Model (lint/README.md, "arrive-before-wait"): walk the kernel in address order. A load
// (LDS/LDSM/LDTM) records itself on the scoreboard its control bits set; an
// instruction whose wait mask names that scoreboard, or a DEPBAR.LE that drains
// it, retires it. HGMMA ops are tracked by warpgroup group (gsb0) and retired by
// WARPGROUP.DEPBAR.LE. A MEMBAR, once its own scoreboard is waited on, retires the
// shared-memory loads issued before it (fence.proxy.async compiles to one). An
// arrive that issues while any tracked op is outstanding
// is a finding. State is dropped at branch targets and after unconditional
// control transfers, so only straight-line code (extended basic blocks) is seen.
#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <set>
#include <string_view>

#include "lint/checks.hpp"
#include "util/strings.hpp"

namespace vsa::lint {

namespace {

// memory_fence: a MEMBAR; once it has completed (its scoreboard drained), every
// shared-memory access issued before it has been performed.
enum class Kind { untracked, shared_load, tensor_load, async_mma, memory_fence };

struct Outstanding {
  std::uint32_t offset = 0;
  std::string opcode;
  Kind kind = Kind::untracked;
  int scoreboard = -1;    // -1: an HGMMA group
  std::uint64_t seq = 0;  // issue order within the block
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

Kind op_kind(const sass::Instruction& inst, const ArriveRule& rule) {
  const auto base = inst.base_opcode();
  if (rule.shared_loads && (base == "LDS" || base == "LDSM")) return Kind::shared_load;
  if (rule.tensor_loads && base == "LDTM") return Kind::tensor_load;
  if (base == "MEMBAR") return Kind::memory_fence;
  return Kind::untracked;
}

bool is_tracked(Kind kind) { return kind == Kind::shared_load || kind == Kind::tensor_load || kind == Kind::async_mma; }

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

bool ends_block(const sass::Instruction& inst) {
  const auto base = inst.base_opcode();
  if (base == "CALL") return true;  // the callee's waits are not seen
  const bool transfer = base == "BRA" || base == "BRX" || base == "JMP" || base == "JMX" || base == "EXIT" ||
                        base == "RET";
  return transfer && inst.unconditional();
}

std::string describe(const Outstanding& op) {
  const auto where = op.opcode + " at " + sass::format_offset(op.offset);
  switch (op.kind) {
    case Kind::shared_load:
      return where + " (shared-memory load, SB" + std::to_string(op.scoreboard) + ")";
    case Kind::tensor_load:
      return where + " (tcgen05.ld from tensor memory, SB" + std::to_string(op.scoreboard) + ")";
    case Kind::async_mma:
      return where + " (wgmma reading shared memory, group gsb0)";
    case Kind::untracked:
    case Kind::memory_fence:
      break;
  }
  return where;
}

std::string remedy(Kind kind) {
  switch (kind) {
    case Kind::shared_load:
      return "consume the loaded registers before the arrive";
    case Kind::tensor_load:
      return "tcgen05.wait::ld before the arrive";
    case Kind::async_mma:
      return "wgmma.wait_group before the arrive";
    case Kind::untracked:
    case Kind::memory_fence:
      break;
  }
  return {};
}

class ScoreboardState {
 public:
  void reset() {
    for (auto& sb : m_scoreboards) sb.clear();
    m_closed_groups.clear();
    m_overlapped_groups.clear();
    m_open_group.clear();
  }

  void apply_wait_mask(const sass::ControlBits& bits) {
    for (int sb = 0; sb < sass::kScoreboards; ++sb) {
      if (bits.waits_on(sb)) keep_newest(static_cast<std::size_t>(sb), 0);
    }
  }

  // "DEPBAR.LE SB0, 0x1" (counter <= 1: all but the newest op retired) and
  // "DEPBAR.LE SB0, 0x0, {4,3}" (also SB4 and SB3 drained).
  void apply_depbar(const sass::Instruction& inst) {
    const std::string_view ops(inst.operands);
    const auto open = ops.find('{');
    const auto close = ops.find('}');
    if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
      for (const char c : ops.substr(open + 1, close - open - 1)) {
        if (c >= '0' && c < '0' + sass::kScoreboards) keep_newest(static_cast<std::size_t>(c - '0'), 0);
      }
    }
    const auto counted = trim(ops.substr(0, open));  // "SB0, 0x1,"
    const auto comma = counted.find(',');
    const auto sb_token = trim(counted.substr(0, comma));
    if (comma == std::string_view::npos || sb_token.size() != 3 || !sb_token.starts_with("SB")) return;
    const int sb = sb_token[2] - '0';
    auto count_token = counted.substr(comma + 1);
    count_token = count_token.substr(0, count_token.find(','));
    const auto keep = parse_count(count_token);
    if (sb >= 0 && sb < sass::kScoreboards && keep) keep_newest(static_cast<std::size_t>(sb), *keep);
  }

  // "WARPGROUP.DEPBAR.LE gsb0, N": at most N committed wgmma groups stay in flight.
  // When the wait retires at least one group, the N left running are deliberate
  // overlap (FA3-style: wait for S = QK^T, release K, let P.V run on); they are not
  // reported, since which buffer a barrier guards is unknown. A wait that retires
  // nothing (N too large) leaves them reportable.
  void apply_warpgroup_depbar(const sass::Instruction& inst) {
    const std::string_view ops(inst.operands);
    const auto comma = ops.find(',');
    const auto keep = comma == std::string_view::npos ? std::optional<int>(0) : parse_count(ops.substr(comma + 1));
    // Overlapped groups are older than every closed one and retire first.
    const auto in_flight = m_overlapped_groups.size() + m_closed_groups.size();
    if (!keep || static_cast<int>(in_flight) <= *keep) return;
    auto retire = in_flight - static_cast<std::size_t>(*keep);
    const auto from_overlapped = std::min(retire, m_overlapped_groups.size());
    m_overlapped_groups.erase(m_overlapped_groups.begin(),
                              m_overlapped_groups.begin() + static_cast<std::ptrdiff_t>(from_overlapped));
    retire -= from_overlapped;
    m_closed_groups.erase(m_closed_groups.begin(), m_closed_groups.begin() + static_cast<std::ptrdiff_t>(retire));
    m_overlapped_groups.insert(m_overlapped_groups.end(), m_closed_groups.begin(), m_closed_groups.end());
    m_closed_groups.clear();
  }

  void record(const sass::Instruction& inst, Kind kind) {
    const auto& bits = inst.control;
    const auto seq = m_seq++;
    if (kind == Kind::memory_fence && bits.write_barrier == sass::kNoBarrier &&
        bits.read_barrier == sass::kNoBarrier) {
      retire_shared_loads_before(seq);  // no scoreboard: the MEMBAR blocks until done
      return;
    }
    // Every op that sets a scoreboard counts for DEPBAR.LE; a load is retired
    // by its write barrier (data in registers) or, lacking one, its read barrier.
    if (bits.write_barrier != sass::kNoBarrier) {
      push(bits.write_barrier, {inst.offset, inst.opcode, kind, bits.write_barrier, seq});
    }
    if (bits.read_barrier != sass::kNoBarrier) {
      const bool also_on_write = bits.write_barrier != sass::kNoBarrier && kind != Kind::memory_fence;
      push(bits.read_barrier, {inst.offset, inst.opcode, also_on_write ? Kind::untracked : kind, bits.read_barrier, seq});
    }
  }

  // wgmma ops join the open group; the one marked gsb0 commits it.
  void record_hgmma(const sass::Instruction& inst) {
    m_open_group.push_back({inst.offset, inst.opcode, Kind::async_mma, -1, m_seq++});
    if (inst.operands.find("gsb0") != std::string::npos) {
      m_closed_groups.push_back(m_open_group.front());
      m_open_group.clear();
    }
  }

  [[nodiscard]] std::vector<Outstanding> outstanding() const {
    std::vector<Outstanding> ops;
    for (const auto& sb : m_scoreboards) {
      for (const auto& op : sb) {
        if (is_tracked(op.kind)) ops.push_back(op);
      }
    }
    ops.insert(ops.end(), m_closed_groups.begin(), m_closed_groups.end());
    if (!m_open_group.empty()) ops.push_back(m_open_group.front());
    return ops;
  }

 private:
  // Retires all but the newest `keep` ops on a scoreboard; a MEMBAR among the
  // retired ones retires the shared-memory loads issued before it as well.
  void keep_newest(std::size_t sb, int keep) {
    auto& ops = m_scoreboards[sb];
    if (static_cast<int>(ops.size()) <= keep) return;
    std::uint64_t fence_seq = 0;
    bool fence = false;
    for (auto it = ops.begin(); it != ops.end() - keep; ++it) {
      if (it->kind == Kind::memory_fence) {
        fence = true;
        fence_seq = std::max(fence_seq, it->seq);
      }
    }
    ops.erase(ops.begin(), ops.end() - keep);
    if (fence) retire_shared_loads_before(fence_seq);
  }

  void retire_shared_loads_before(std::uint64_t seq) {
    for (auto& ops : m_scoreboards) {
      std::erase_if(ops, [&](const Outstanding& op) { return op.kind == Kind::shared_load && op.seq < seq; });
    }
  }

  void push(std::uint8_t sb, Outstanding op) { m_scoreboards[sb].push_back(std::move(op)); }

  std::array<std::vector<Outstanding>, sass::kScoreboards> m_scoreboards;
  std::vector<Outstanding> m_closed_groups;      // committed, not yet covered by a wait
  std::vector<Outstanding> m_overlapped_groups;  // left in flight on purpose by a wait_group N > 0
  std::vector<Outstanding> m_open_group;
  std::uint64_t m_seq = 0;
};

std::string message_for(const sass::Instruction& arrive, const std::vector<Outstanding>& ops) {
  constexpr std::size_t kListed = 3;
  std::string listed;
  for (std::size_t i = 0; i < ops.size() && i < kListed; ++i) listed += (i ? "; " : "") + describe(ops[i]);
  if (ops.size() > kListed) listed += "; and " + std::to_string(ops.size() - kListed) + " more";
  std::set<Kind> kinds;
  for (const auto& op : ops) kinds.insert(op.kind);
  std::string remedies;
  for (const auto kind : kinds) remedies += (remedies.empty() ? "" : "; ") + remedy(kind);
  return arrive.opcode + " releases a barrier while " + listed +
         (ops.size() == 1 ? " is" : " are") + " still outstanding: nothing between them waits for it (" +
         remedies + ")";
}

}  // namespace

void check_arrive_before_wait(const sass::Kernel& kernel, const ArriveRule& rule, std::vector<Finding>& out) {
  std::set<std::uint32_t> block_starts;
  for (const auto& inst : kernel.instructions) {
    if (const auto target = inst.control_target()) block_starts.insert(*target);
  }

  ScoreboardState state;
  for (const auto& inst : kernel.instructions) {
    if (block_starts.contains(inst.offset)) state.reset();
    state.apply_wait_mask(inst.control);  // waits happen before the instruction issues
    if (inst.opcode_starts_with("DEPBAR")) state.apply_depbar(inst);
    if (inst.opcode_starts_with("WARPGROUP.DEPBAR")) state.apply_warpgroup_depbar(inst);

    if (is_arrive(inst, kernel.name, rule)) {
      const auto ops = state.outstanding();
      if (!ops.empty()) {
        out.push_back({kRuleArriveBeforeWait, kernel.name, kernel.arch, inst.offset, message_for(inst, ops)});
      }
    }

    state.record(inst, op_kind(inst, rule));
    if (rule.async_mma && inst.base_opcode() == "HGMMA") state.record_hgmma(inst);
    if (ends_block(inst)) state.reset();
  }
}

}  // namespace vsa::lint
