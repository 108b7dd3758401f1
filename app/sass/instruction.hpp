#pragma once
// One disassembled SASS instruction as cuobjdump prints it:
//
//   /*01c0*/   @!P0 LDS R6, [R6+UR6] ;   /* 0x0000000606067984 */
//                                        /* 0x000e220008000800 */
//
// offset, optional guard predicate, opcode with its modifiers, operands, and the
// two 64-bit words (the high one carries the control bits).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sass/control_bits.hpp"

namespace vsa::sass {

struct Instruction {
  std::uint32_t offset = 0;
  std::string predicate;  // "@!P0", "@UP1"; empty when unguarded
  std::string opcode;     // "SYNCS.ARRIVE.TRANS64.A1T0"
  std::string operands;   // "RZ, [UR7], RZ" (no trailing ';')
  std::uint64_t low_word = 0;
  std::uint64_t high_word = 0;
  ControlBits control;

  // The opcode up to its first modifier: "SYNCS" for "SYNCS.ARRIVE.TRANS64".
  [[nodiscard]] std::string_view base_opcode() const;
  [[nodiscard]] bool opcode_starts_with(std::string_view prefix) const;
  // True when the instruction always executes: no guard predicate, and for
  // branches no uniform-predicate operand ("BRA.U !UP0, 0x120" is conditional).
  [[nodiscard]] bool unconditional() const;
  // The target of a branch / call / convergence-barrier set, when it has one.
  [[nodiscard]] std::optional<std::uint32_t> control_target() const;
  // "/*01c0*/ LDS R6, [R6+UR6]": offset and text as the disassembler shows them.
  [[nodiscard]] std::string text() const;
};

// Parses the first of the two lines of an instruction (offset, text, low word).
// Returns nullopt for any other line. The high word and control bits are set by
// the caller from the following line (see parse_high_word_line).
[[nodiscard]] std::optional<Instruction> parse_instruction_line(std::string_view line);
// The second line of an instruction: only "/* 0x... */". nullopt for any other line.
[[nodiscard]] std::optional<std::uint64_t> parse_high_word_line(std::string_view line);

// "0x01c0": the offset as cuobjdump prints it (at least four hex digits).
[[nodiscard]] std::string format_offset(std::uint32_t offset);

}  // namespace vsa::sass
