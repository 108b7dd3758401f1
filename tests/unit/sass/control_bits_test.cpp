// The control-bit decoder against instruction words copied from real cuobjdump
// output (CUDA 13, sm_90a / sm_100a); the expected fields follow from what the
// neighbouring instructions do (a load sets SBn, its first use waits on SBn).
#include <gtest/gtest.h>

#include "sass/control_bits.hpp"

namespace vsa::sass {
namespace {

TEST(LintControlBits, SharedLoadSetsWriteBarrier) {
  // /*01d0*/ LDS R7, [R4+UR6] ;  high word 0x000e220008000800
  const auto bits = decode_control_bits(0x000e220008000800ULL);
  EXPECT_EQ(bits.write_barrier, 0);
  EXPECT_EQ(bits.read_barrier, kNoBarrier);
  EXPECT_EQ(bits.wait_mask, 0);
  EXPECT_EQ(bits.stall, 1);
  EXPECT_TRUE(bits.yield);
  EXPECT_EQ(bits.reuse, 0);
}

TEST(LintControlBits, UseOfTheLoadWaitsOnItsScoreboard) {
  // /*01f0*/ STG.E desc[UR10][R2.64], R7 ;  stores the LDS result: waits on SB0
  const auto bits = decode_control_bits(0x001fe2000c10190aULL);
  EXPECT_EQ(bits.wait_mask, 0x01);
  EXPECT_TRUE(bits.waits_on(0));
  EXPECT_FALSE(bits.waits_on(1));
  EXPECT_EQ(bits.write_barrier, kNoBarrier);
  EXPECT_EQ(bits.read_barrier, kNoBarrier);
}

TEST(LintControlBits, GlobalLoadAndItsConsumer) {
  // /*0050*/ LDG.E R0, desc[UR10][R2.64] ;  sets SB2 ...
  const auto load = decode_control_bits(0x000ea2000c1e1900ULL);
  EXPECT_EQ(load.write_barrier, 2);
  // ... /*0150*/ STS [R7], R0 ; consumes R0: waits on SB2 (mask 0b100), stall 4
  const auto store = decode_control_bits(0x004fe80000000800ULL);
  EXPECT_EQ(store.wait_mask, 0x04);
  EXPECT_EQ(store.stall, 4);
}

TEST(LintControlBits, ReadAndWriteBarrierTogether) {
  // /*0170*/ @!UP0 SYNCS.EXCH.64 URZ, [UR7], UR4 ;  waits SB0, sets SB1 (write) and SB0 (read)
  const auto bits = decode_control_bits(0x0010640008000100ULL);
  EXPECT_EQ(bits.wait_mask, 0x01);
  EXPECT_EQ(bits.write_barrier, 1);
  EXPECT_EQ(bits.read_barrier, 0);
  EXPECT_EQ(bits.stall, 2);
}

TEST(LintControlBits, TensorMemoryLoadAndTcgen05WaitLd) {
  // sm_100a: /*0450*/ LDTM.x4 R4, tmem[UR6] ; sets SB1
  EXPECT_EQ(decode_control_bits(0x000e620008140000ULL).write_barrier, 1);
  // /*0470*/ NOP ; carries tcgen05.wait::ld: waits on SB1
  EXPECT_EQ(decode_control_bits(0x002fe20000000000ULL).wait_mask, 0x02);
}

TEST(LintControlBits, ReuseFlagAndPadding) {
  // /*0070*/ ISETP.NE.AND P0, PT, R9.reuse, RZ, PT ;  operand A reuse
  EXPECT_EQ(decode_control_bits(0x040fe20003f05270ULL).reuse, 0x1);
  // the NOP padding after a kernel: no barriers, no waits, no stall
  const auto pad = decode_control_bits(0x000fc00000000000ULL);
  EXPECT_EQ(pad.write_barrier, kNoBarrier);
  EXPECT_EQ(pad.read_barrier, kNoBarrier);
  EXPECT_EQ(pad.wait_mask, 0);
  EXPECT_EQ(pad.stall, 0);
  EXPECT_FALSE(pad.yield);
}

TEST(LintControlBits, Describe) {
  EXPECT_EQ(describe(decode_control_bits(0x0010640008000100ULL)), "wait{SB0} rd:SB0 wr:SB1 stall:2");
}

}  // namespace
}  // namespace vsa::sass
