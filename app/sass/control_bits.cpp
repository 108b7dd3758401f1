#include "sass/control_bits.hpp"

namespace vsa::sass {

namespace {
constexpr int kControlShift = 41;  // bit 105 of the 128-bit instruction

std::uint32_t field(std::uint64_t control, int lsb, int width) {
  return static_cast<std::uint32_t>((control >> lsb) & ((1U << width) - 1U));
}

std::string barrier_name(std::uint8_t barrier) {
  return barrier == kNoBarrier ? std::string("-") : "SB" + std::to_string(barrier);
}
}  // namespace

ControlBits decode_control_bits(std::uint64_t high_word) {
  const std::uint64_t control = high_word >> kControlShift;
  ControlBits bits;
  bits.stall = static_cast<std::uint8_t>(field(control, 0, 4));
  bits.yield = field(control, 4, 1) != 0;
  bits.write_barrier = static_cast<std::uint8_t>(field(control, 5, 3));
  bits.read_barrier = static_cast<std::uint8_t>(field(control, 8, 3));
  bits.wait_mask = static_cast<std::uint8_t>(field(control, 11, 6));
  bits.reuse = static_cast<std::uint8_t>(field(control, 17, 4));
  return bits;
}

std::string describe(const ControlBits& bits) {
  std::string waits;
  for (int sb = 0; sb < kScoreboards; ++sb) {
    if (bits.waits_on(sb)) waits += (waits.empty() ? "SB" : ",SB") + std::to_string(sb);
  }
  return "wait{" + waits + "} rd:" + barrier_name(bits.read_barrier) + " wr:" + barrier_name(bits.write_barrier) +
         " stall:" + std::to_string(bits.stall);
}

}  // namespace vsa::sass
