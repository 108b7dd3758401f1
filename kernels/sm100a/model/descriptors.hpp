#pragma once
// tcgen05.mma's descriptors, decoded from the PTX ISA text (not from the kernels' encoders in
// sm100a_ptx.cuh: a model that shared their reading would prove nothing):
//   9.7.16.4.1 "Shared Memory Descriptor" (Table 40, and Table 41 for the base offset),
//   9.7.16.4.2 "Instruction Descriptor" (Table 42, .kind::f16 column),
//   9.7.16.3   "Major-ness supported by Strides" (what LBO and SBO mean per majorness),
//   the canonical layouts of 9.7.16.3.x (K-major / MN-major with 128-byte swizzle),
//   9.7.16.10.5 "Data Path Layout Organization" (Layouts D and F: D rows -> TMEM lanes).
// Pure functions: unit-tested against hand-computed values (tests/unit/model_*).
#include <cstdint>
#include <string>

namespace vsa::model {

enum class Swizzle { none = 0, sw128_32b_atom = 1, sw128 = 2, sw64 = 4, sw32 = 6 };

struct SmemDescriptor {
  std::uint32_t start = 0;    // byte address (bits 0-13 << 4)
  std::uint32_t lbo = 0;      // leading dimension byte offset (bits 16-29 << 4)
  std::uint32_t sbo = 0;      // stride dimension byte offset (bits 32-45 << 4)
  int base_offset = 0;        // bits 49-51
  bool lbo_absolute = false;  // bit 52
  Swizzle swizzle = Swizzle::none;
};

// Throws ModelError when a fixed field (bits 46-48 = 0b001, bits 53-60 = 0) or a reserved
// field (14-15, 30-31) is wrong, or the swizzle mode is one of the invalid values 3, 5, 7.
[[nodiscard]] SmemDescriptor decode_smem_descriptor(std::uint64_t d);

struct InstrDescriptor {
  int m = 0;
  int n = 0;
  bool a_mn_major = false;  // bit 15, "Transpose A"
  bool b_mn_major = false;  // bit 16, "Transpose B"
  int dtype = 0;            // bits 4-5: 0 F16, 1 F32
  int atype = 0;            // bits 7-9: 0 F16, 1 BF16
  int btype = 0;            // bits 10-12
};

// .kind::f16, dense, cta_group::1, not .ws. Throws ModelError on reserved bits, on sparsity,
// saturate, negation or max-shift set, and on shapes 9.7.16.10.1 does not allow for
// cta_group::1 (M 64 or 128; N a multiple of 8 in 8..256 for M = 64, of 16 in 16..256 for
// M = 128). The model computes bf16 x bf16 -> fp32 only: other formats are errors too.
[[nodiscard]] InstrDescriptor decode_instr_descriptor_f16(std::uint32_t idesc);

// The 128-byte swizzle on an absolute shared-memory address: the 16-byte chunk index (bits
// 4-6) XOR bits 7-9 (the pattern repeats every 1024 bytes, Table 41).
[[nodiscard]] constexpr std::uint32_t swizzle128(std::uint32_t addr) { return addr ^ (((addr >> 7) & 7u) << 4); }

// Shared-memory byte address of element (mn, k) of a bf16 operand read through `d` with the
// canonical 128-byte-swizzle layout of its majorness, mn < 64 * (extent) and k < 16:
//   K-major  ((8,m),(T,2k)) : ((8T,SBO),(1,T)), T = 8 elements of 16 bytes: row mn at
//            (mn % 8) * 128 + (mn / 8) * SBO, k contiguous; LBO unused for swizzled K-major.
//   MN-major ((T,8,m),(8,k)) : ((1,T,LBO),(8T,SBO)): mn contiguous for 64 elements, the next
//            64 at LBO; k row at (k % 8) * 128 + (k / 8) * SBO.
// The swizzle then applies to the final address. Throws on modes the model does not cover.
[[nodiscard]] std::uint32_t operand_element_address(const SmemDescriptor& d, bool mn_major, int mn, int k);

// 9.7.16.10.5: the TMEM lane of D's row `row` for an M x N cta_group::1 MMA whose D address
// has lane field `lane_base`. Layout D (M = 128): lane = row, base 0. Layout F (M = 64, not
// .ws, half the data path): rows 16 w .. 16 w + 15 in lanes 32 w + base .. + 15, base 0 or 16.
// Throws on any other base.
[[nodiscard]] int d_row_lane(int m, int lane_base, int row);

[[nodiscard]] std::string describe(const SmemDescriptor& d);

}  // namespace vsa::model
