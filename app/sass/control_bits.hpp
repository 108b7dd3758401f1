#pragma once
// The scheduling ("control") bits of one Volta..Blackwell SASS instruction.
//
// Every instruction is 128 bits; cuobjdump prints it as two 64-bit words, the low
// word on the instruction line and the high word on the line below. The compiler
// stores its scheduling decisions in bits [105, 125] of the 128-bit word, which are
// bits [41, 61] of the high word (layout documented by maxas / CuAssembler and
// checked against real cuobjdump output in tests/unit/sass/control_bits_test.cpp):
//
//   high-word bits  41..44  stall        cycles to wait before issuing the next instruction
//                   45      yield        scheduler hint
//                   46..48  write_barrier scoreboard released when results are written (7 = none)
//                   49..51  read_barrier  scoreboard released when sources have been read (7 = none)
//                   52..57  wait_mask    scoreboards (bit i = SB i) that must be clear before issue
//                   58..61  reuse        operand reuse-cache flags
#include <cstdint>
#include <string>

namespace vsa::sass {

inline constexpr std::uint8_t kNoBarrier = 7;
inline constexpr int kScoreboards = 6;

struct ControlBits {
  std::uint8_t stall = 0;
  bool yield = false;
  std::uint8_t write_barrier = kNoBarrier;
  std::uint8_t read_barrier = kNoBarrier;
  std::uint8_t wait_mask = 0;
  std::uint8_t reuse = 0;

  [[nodiscard]] bool waits_on(int scoreboard) const { return (wait_mask >> scoreboard) & 1U; }
};

[[nodiscard]] ControlBits decode_control_bits(std::uint64_t high_word);

// "wait{SB0,SB2} rd:SB1 wr:- stall:3": for messages and debugging.
[[nodiscard]] std::string describe(const ControlBits& bits);

}  // namespace vsa::sass
