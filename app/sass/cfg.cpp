#include "sass/cfg.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

namespace vsa::sass {

namespace {

enum class Flow { none, branch, indirect, call, ret, exit };

Flow flow_of(const Instruction& inst) {
  const auto base = inst.base_opcode();
  if (base == "BRA" || base == "JMP") return Flow::branch;
  if (base == "BRX" || base == "JMX") return Flow::indirect;
  if (base == "CALL") return Flow::call;
  if (base == "RET") return Flow::ret;
  if (base == "EXIT" || inst.opcode_starts_with("BPT.TRAP")) return Flow::exit;
  return Flow::none;
}

std::optional<std::size_t> index_of(const std::vector<Instruction>& insts, std::uint32_t offset) {
  const auto it = std::lower_bound(insts.begin(), insts.end(), offset,
                                   [](const Instruction& inst, std::uint32_t o) { return inst.offset < o; });
  if (it == insts.end() || it->offset != offset) return std::nullopt;
  return static_cast<std::size_t>(it - insts.begin());
}

void add_edge(BasicBlock& from, std::size_t to) {
  if (std::find(from.successors.begin(), from.successors.end(), to) == from.successors.end())
    from.successors.push_back(to);
}

}  // namespace

bool always_transfers(const Instruction& inst) {
  const auto flow = flow_of(inst);
  if (flow == Flow::none || flow == Flow::call) return false;
  if (!inst.predicate.empty() && inst.predicate != "@PT") return false;
  // A second operand is a condition: `BRA.U !UP0, 0x230`, `BRA.DIV UR4, 0x..`.
  return inst.operands.find(',') == std::string::npos;
}

ControlFlowGraph build_cfg(const Kernel& kernel) {
  ControlFlowGraph cfg;
  const auto& insts = kernel.instructions;
  const std::size_t n = insts.size();
  if (n == 0) return cfg;

  std::set<std::size_t> leaders = {0};
  for (std::size_t i = 0; i < n; ++i) {
    const auto flow = flow_of(insts[i]);
    if (flow == Flow::none) continue;
    if (flow == Flow::branch || flow == Flow::call) {
      if (const auto target = insts[i].control_target()) {
        if (const auto at = index_of(insts, *target)) leaders.insert(*at);
      }
    }
    if (i + 1 < n) leaders.insert(i + 1);
  }

  std::vector<std::size_t> block_of(n);
  for (auto it = leaders.begin(); it != leaders.end(); ++it) {
    const auto next = std::next(it);
    BasicBlock block;
    block.first = *it;
    block.last = (next == leaders.end() ? n : *next) - 1;
    for (std::size_t i = block.first; i <= block.last; ++i) block_of[i] = cfg.blocks.size();
    cfg.blocks.push_back(block);
  }

  std::vector<std::size_t> indirect_blocks;
  std::vector<std::size_t> ret_blocks;
  std::vector<std::size_t> return_points;
  for (std::size_t b = 0; b < cfg.blocks.size(); ++b) {
    auto& block = cfg.blocks[b];
    const auto& last = insts[block.last];
    const auto flow = flow_of(last);
    if (!always_transfers(last) && block.last + 1 < n) add_edge(block, block_of[block.last + 1]);
    if (flow == Flow::branch || flow == Flow::call) {
      if (const auto target = last.control_target()) {
        if (const auto at = index_of(insts, *target)) add_edge(block, block_of[*at]);
      }
    }
    if (flow == Flow::call && block.last + 1 < n) return_points.push_back(block_of[block.last + 1]);
    if (flow == Flow::indirect) indirect_blocks.push_back(b);
    if (flow == Flow::ret) ret_blocks.push_back(b);
  }
  for (const auto b : ret_blocks) {
    for (const auto to : return_points) add_edge(cfg.blocks[b], to);
  }
  if (!indirect_blocks.empty()) {
    cfg.has_indirect_branch = true;
    std::vector<bool> reached(cfg.blocks.size(), false);
    reached[0] = true;
    for (const auto& block : cfg.blocks) {
      for (const auto to : block.successors) reached[to] = true;
    }
    for (const auto b : indirect_blocks) {
      for (std::size_t to = 0; to < cfg.blocks.size(); ++to) {
        if (!reached[to]) add_edge(cfg.blocks[b], to);
      }
    }
  }
  return cfg;
}

}  // namespace vsa::sass
