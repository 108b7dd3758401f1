// Every tcgen05.mma descriptor the sm100a kernels issue, against CUTLASS's public encoders
// (issue 18, finding 6). The kernels build their descriptors only through
// kernels/sm100a/umma_operands.hpp (one function or constant per operand); these tests call
// the same functions at one tile address. The address enters only the start-address field
// (bits 0-13, (addr & 0x3FFFF) >> 4), which the values below cover with a nonzero address.
//
// The expected values are facts, obtained on 2026-12-01 from CUTLASS (github.com/NVIDIA/cutlass
// at 7107b0553): a scratch host program outside this repository built each operand's smem
// layout with tile_to_shape(UMMA::Layout_K_SW128_Atom<bfloat16_t> / Layout_MN_SW128_Atom, ...)
// (MN-major tiles with Step<_2,_1>: the K groups first, then the next 64-element MN chunk,
// as our [half][row][64] tiles), divided it into MMA tiles (tiled_divide by (MMA_MN, 16)),
// made the descriptor tensor with make_tensor<UMMA::smem_desc<Major>> (make_umma_desc of the
// first slice plus CUTLASS's own slice offsets) at tile address 0x10400, and printed
// UMMA::make_instr_desc<bfloat16_t, bfloat16_t, float, M, N, a_major, b_major>(). CUTLASS's
// sm100 encoders run on Blackwell; ours have not.
#include <gtest/gtest.h>

#include <cstdint>

#include "../../kernels/sm100a/umma_operands.hpp"

namespace {

using namespace vsa::sm100a;

constexpr std::uint32_t kTile = 0x10400;  // the address the CUTLASS values were printed for

// CUTLASS, K-major 64 x 128 (two 64-element K halves): Q, K of the blk64 forward; K, V, Q, dO
// as the operands of S^T = K Q^T and dP^T = V dO^T.
constexpr std::uint64_t kCutlassKMajor64x128[8] = {0x4000404000011040, 0x4000404000011042, 0x4000404000011044,
                                                   0x4000404000011046, 0x4000404000011240, 0x4000404000011242,
                                                   0x4000404000011244, 0x4000404000011246};
// CUTLASS, K-major 128 x 128: Q, K and P of the blk128 forward.
constexpr std::uint64_t kCutlassKMajor128x128[8] = {0x4000404000011040, 0x4000404000011042, 0x4000404000011044,
                                                    0x4000404000011046, 0x4000404000011440, 0x4000404000011442,
                                                    0x4000404000011444, 0x4000404000011446};
// CUTLASS, K-major 64 x 64: P (blk64 forward), P^T and dS^T as the A of dV, dK.
constexpr std::uint64_t kCutlassKMajor64x64[4] = {0x4000404000011040, 0x4000404000011042, 0x4000404000011044,
                                                  0x4000404000011046};
// CUTLASS, MN-major (N = 128, K = 64): V (blk64 forward); dO, Q, K as the B of dV, dK, dQ.
constexpr std::uint64_t kCutlassMnMajor128x64[4] = {0x4000404002001040, 0x40004040020010c0, 0x4000404002001140,
                                                    0x40004040020011c0};
// CUTLASS, MN-major (N = 128, K = 128): V (blk128 forward).
constexpr std::uint64_t kCutlassMnMajor128x128[8] = {0x4000404004001040, 0x40004040040010c0, 0x4000404004001140,
                                                     0x40004040040011c0, 0x4000404004001240, 0x40004040040012c0,
                                                     0x4000404004001340, 0x40004040040013c0};
// CUTLASS, MN-major (M = 64, K = 64): the dS^T square as the A of dQ = dS K. One MN chunk:
// LBO 0 (the kernels had 8192 until issue 18; NOTES.md, "Descriptors against CUTLASS").
constexpr std::uint64_t kCutlassMnMajor64x64[4] = {0x4000404000001040, 0x40004040000010c0, 0x4000404000001140,
                                                   0x40004040000011c0};

TEST(Sm100aDescriptors, Blk64ForwardMatchesCutlass) {
  using C = fwd::Blk64;
  for (int kk = 0; kk < C::kHeadDim / C::kMmaK; ++kk)  // S = Q K^T
    EXPECT_EQ(fwd::scores_operand<C>(kTile, kk), kCutlassKMajor64x128[kk]) << "Q/K slice " << kk;
  for (int kk = 0; kk < C::kBlock / C::kMmaK; ++kk) {  // O += P V
    EXPECT_EQ(fwd::pv_a_operand<C>(kTile, kk), kCutlassKMajor64x64[kk]) << "P slice " << kk;
    EXPECT_EQ(fwd::pv_b_operand<C>(kTile, kk), kCutlassMnMajor128x64[kk]) << "V slice " << kk;
  }
  EXPECT_EQ(fwd::kScoresIdesc<C>, 0x04100490u);  // M 64, N 64, A and B K-major
  EXPECT_EQ(fwd::kPvIdesc<C>, 0x04210490u);      // M 64, N 128, B MN-major
}

TEST(Sm100aDescriptors, Blk128ForwardMatchesCutlass) {
  using C = fwd::Blk128;
  for (int kk = 0; kk < C::kHeadDim / C::kMmaK; ++kk)
    EXPECT_EQ(fwd::scores_operand<C>(kTile, kk), kCutlassKMajor128x128[kk]) << "Q/K slice " << kk;
  for (int kk = 0; kk < C::kBlock / C::kMmaK; ++kk) {
    EXPECT_EQ(fwd::pv_a_operand<C>(kTile, kk), kCutlassKMajor128x128[kk]) << "P slice " << kk;
    EXPECT_EQ(fwd::pv_b_operand<C>(kTile, kk), kCutlassMnMajor128x128[kk]) << "V slice " << kk;
  }
  EXPECT_EQ(fwd::kScoresIdesc<C>, 0x08200490u);  // M 128, N 128
  EXPECT_EQ(fwd::kPvIdesc<C>, 0x08210490u);
}

TEST(Sm100aDescriptors, BackwardMatchesCutlass) {
  using C = bwd::Config;
  for (int kk = 0; kk < C::kHeadDim / C::kMmaK; ++kk)  // S^T = K Q^T, dP^T = V dO^T
    EXPECT_EQ(bwd::tile_k_major(kTile, kk), kCutlassKMajor64x128[kk]) << "tile slice " << kk;
  for (int kk = 0; kk < C::kBlock / C::kMmaK; ++kk) {
    EXPECT_EQ(bwd::square_k_major(kTile, kk), kCutlassKMajor64x64[kk]) << "P^T / dS^T as A, slice " << kk;
    EXPECT_EQ(bwd::tile_mn_major(kTile, kk), kCutlassMnMajor128x64[kk]) << "dO / Q / K as B, slice " << kk;
    EXPECT_EQ(bwd::square_mn_major(kTile, kk), kCutlassMnMajor64x64[kk]) << "dS^T as the A of dQ, slice " << kk;
  }
  EXPECT_EQ(bwd::kTileTileIdesc, 0x04100490u);
  EXPECT_EQ(bwd::kSquareTileIdesc, 0x04210490u);
  EXPECT_EQ(bwd::kSquareTTileIdesc, 0x04218490u);  // dQ: A and B MN-major
}

// The descriptors are constant expressions: the kernels' immediates are these values.
static_assert(bwd::tile_k_major(kTile, 5) == 0x4000404000011242, "constexpr on the host");

}  // namespace
