#pragma once
// The control-flow graph of one kernel's SASS: basic blocks and the edges between them,
// for data-flow analyses that must see every path to an instruction (lint arrive-before-wait).
//
// Leaders: the first instruction, every direct branch/call target, and every instruction
// after a control transfer. Edges:
//   BRA / JMP with an immediate target: to the target; also to the next instruction unless the
//     branch is always taken (no guard predicate and no predicate operand: `BRA 0x3c0`; the
//     forms `BRA.U UP0, 0x290`, `BRA.DIV UR4, 0x...` and `@P0 BRA` are conditional).
//   BRX / JMX (register-indirect, a jump table ptxas emits e.g. for a switch on the warp role):
//     the table is not in the listing, so the edges go to every "orphan" block, one that
//     neither a fall-through nor a direct branch reaches (code reachable only through a table
//     must start at one); a target also reached otherwise gets no edge from the BRX.
//   CALL: to the callee (immediate target) and to the return point (the next instruction).
//   RET: to the return point of every CALL in the kernel (context-insensitive); none if the
//     kernel has no CALL.
//   EXIT, BPT.TRAP: none when always executed, else the next instruction.
//   Everything else (BSSY, BSYNC, WARPSYNC, BAR, ...) falls through.
#include <cstddef>
#include <vector>

#include "sass/listing.hpp"

namespace vsa::sass {

struct BasicBlock {
  std::size_t first = 0;                // index of its first instruction in Kernel::instructions
  std::size_t last = 0;                 // index of its last instruction (inclusive)
  std::vector<std::size_t> successors;  // block indices, no duplicates
};

struct ControlFlowGraph {
  std::vector<BasicBlock> blocks;    // in address order; blocks[0] is the entry
  bool has_indirect_branch = false;  // a BRX/JMX was seen: its edges are the orphan approximation
};

// True when the instruction transfers control on every execution (see the header comment).
[[nodiscard]] bool always_transfers(const Instruction& inst);

[[nodiscard]] ControlFlowGraph build_cfg(const Kernel& kernel);

}  // namespace vsa::sass
