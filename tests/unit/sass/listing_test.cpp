// The cuobjdump listing parser on excerpts of real output: an executable's fat
// binary (resource usage before the code, several ELF images) and a bare cubin.
#include <gtest/gtest.h>

#include "sass/listing.hpp"

namespace vsa::sass {
namespace {

// `cuobjdump --dump-sass --dump-resource-usage` of an executable built for sm_90a
// and sm_100a (CUDA 13); the first two images hold no kernel.
constexpr const char* kExecutableListing = R"sass(
Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:0

	code for sm_90a

Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:0
 Function _Z2kxPf:
  REG:10 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0

	code for sm_90a
		Function : _Z2kxPf
	.headerflags	@"EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;             /* 0x00000a00ff017b82 */
                                                                      /* 0x000fe20000000800 */
        /*0010*/                   S2R R5, SR_TID.X ;                 /* 0x0000000000057919 */
                                                                      /* 0x000e2e0000002100 */
        /*0060*/                   STG.E desc[UR4][R2.64], R7 ;       /* 0x0000000702007986 */
                                                                      /* 0x000fe2000c101904 */
        /*0070*/                   EXIT ;                             /* 0x000000000000794d */
                                                                      /* 0x000fea0003800000 */
        /*0080*/                   BRA 0x80;                          /* 0xfffffffc00fc7947 */
                                                                      /* 0x000fc0000383ffff */
		..........



Fatbin elf code:
================
arch = sm_100a
code version = [1,8]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:0
 Function _Z2kxPf:
  REG:12 STACK:16 SHARED:0 LOCAL:8 CONSTANT[0]:904 TEXTURE:0 SURFACE:0 SAMPLER:0

	code for sm_100a
		Function : _Z2kxPf
	.headerflags	@"EF_CUDA_64BIT_ADDRESS EF_CUDA_SM100 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM100)"
        /*0000*/                   LDC R1, c[0x0][0x37c] ;  /* 0x0000df00ff017b82 */
                                                            /* 0x000fe20000000800 */
        /*0010*/                   @!UP0 SYNCS.EXCH.64 URZ, [UR7], UR4 ;      /* 0x00000004073f85b2 */
                                                                              /* 0x0010640008000100 */
        /*0020*/                   BRA.U !UP0, 0xa630 ;     /* 0x0000006108847547 */
                                                            /* 0x000fc0000383ffff */
)sass";

TEST(LintListing, ExecutableImagesArchsAndResources) {
  const auto listing = parse_listing(kExecutableListing);
  ASSERT_EQ(listing.kernels.size(), 2U);

  const auto& hopper = listing.kernels[0];
  EXPECT_EQ(hopper.name, "_Z2kxPf");
  EXPECT_EQ(hopper.arch, "sm_90a");
  EXPECT_EQ(hopper.image, 1);
  ASSERT_EQ(hopper.instructions.size(), 5U);
  ASSERT_TRUE(hopper.resources.has_value());
  EXPECT_EQ(hopper.resources->registers, 10);
  EXPECT_EQ(hopper.resources->stack_bytes, 0);

  const auto& exit = hopper.instructions[3];
  EXPECT_EQ(exit.offset, 0x70U);
  EXPECT_EQ(exit.opcode, "EXIT");
  EXPECT_EQ(exit.operands, "");
  EXPECT_EQ(exit.low_word, 0x000000000000794dULL);
  EXPECT_EQ(exit.high_word, 0x000fea0003800000ULL);
  EXPECT_EQ(exit.control.stall, 5);

  const auto& bra = hopper.instructions[4];
  EXPECT_EQ(bra.opcode, "BRA");
  EXPECT_EQ(bra.operands, "0x80");
  EXPECT_EQ(bra.control_target(), 0x80U);
  EXPECT_TRUE(bra.unconditional());

  const auto& blackwell = listing.kernels[1];
  EXPECT_EQ(blackwell.arch, "sm_100a");
  EXPECT_EQ(blackwell.image, 2);
  ASSERT_TRUE(blackwell.resources.has_value());
  EXPECT_EQ(blackwell.resources->registers, 12);
  EXPECT_EQ(blackwell.resources->stack_bytes, 16);
  EXPECT_EQ(blackwell.resources->local_bytes, 8);

  const auto& exch = blackwell.instructions[1];
  EXPECT_EQ(exch.predicate, "@!UP0");
  EXPECT_EQ(exch.opcode, "SYNCS.EXCH.64");
  EXPECT_EQ(exch.base_opcode(), "SYNCS");
  EXPECT_EQ(exch.operands, "URZ, [UR7], UR4");
  EXPECT_EQ(exch.control.write_barrier, 1);
  EXPECT_FALSE(exch.unconditional());

  const auto& uniform_branch = blackwell.instructions[2];
  EXPECT_EQ(uniform_branch.control_target(), 0xa630U);
  EXPECT_FALSE(uniform_branch.unconditional());  // guarded by its !UP0 operand
}

// A bare cubin: no "Fatbin elf code" header, the arch only from "code for", and
// the resource usage printed after the code.
constexpr const char* kCubinListing = R"sass(
	code for sm_90a
		Function : _ZN3vsa5sm90a12lint_fixture12guarded_awayEPf
	.headerflags	@"EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;  /* 0x00000a00ff017b82 */
                                                           /* 0x000fe20000000800 */
        /*0010*/                   EXIT ;                  /* 0x000000000000794d */
                                                           /* 0x000fea0003800000 */
		..........

Resource usage:
 Common:
  GLOBAL:0
 Function _ZN3vsa5sm90a12lint_fixture12guarded_awayEPf:
  REG:4 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0
)sass";

TEST(LintListing, BareCubinResourcesAfterCode) {
  const auto listing = parse_listing(kCubinListing);
  ASSERT_EQ(listing.kernels.size(), 1U);
  EXPECT_EQ(listing.kernels[0].arch, "sm_90a");
  EXPECT_EQ(listing.kernels[0].image, 0);
  ASSERT_EQ(listing.kernels[0].instructions.size(), 2U);
  ASSERT_TRUE(listing.kernels[0].resources.has_value());
  EXPECT_EQ(listing.kernels[0].resources->registers, 4);
}

TEST(LintListing, RejectsNonInstructionLines) {
  EXPECT_FALSE(parse_instruction_line("\t\tFunction : _Z2kxPf").has_value());
  EXPECT_FALSE(parse_instruction_line("      /* 0x000fea0003800000 */").has_value());
  EXPECT_FALSE(parse_instruction_line("  REG:4 STACK:0").has_value());
  EXPECT_EQ(parse_high_word_line("      /* 0x000fea0003800000 */"), 0x000fea0003800000ULL);
  EXPECT_FALSE(parse_high_word_line("/*0010*/ EXIT ; /* 0x000000000000794d */").has_value());
}

TEST(LintListing, Demangles) {
  EXPECT_EQ(demangle("_ZN3vsa5sm90a12lint_fixture12guarded_awayEPf"), "vsa::sm90a::lint_fixture::guarded_away(float*)");
  EXPECT_EQ(demangle("not_mangled"), "not_mangled");
}

}  // namespace
}  // namespace vsa::sass
