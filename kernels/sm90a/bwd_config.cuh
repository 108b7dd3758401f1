#pragma once
// Tile configuration of the Hopper backward: one constexpr block per choice, the
// reason beside it, the shared-memory layouts of both kernels and static_asserts
// that they fit. See NOTES.md ("Backward") for the measurements behind the numbers.
#include <cstddef>
#include <cstdint>

#include "launch.hpp"
#include "vsa/bf16.hpp"

namespace vsa::sm90a::bwd {

inline constexpr int kBlk = kBlock;   // 64 tokens: one wgmma M (kv or q rows of a block)
inline constexpr int kD = kHeadDim;   // 128: the contraction of S and dP, the N of dK/dV/dQ

// Every 64 x 128 bf16 tile lives in shared memory as two 64-column chunks of
// 64 rows x 128 bytes, 128-byte swizzled (TMA SWIZZLE_128B, box 64 x 64). One layout
// serves as a K-major operand (K = d: S = A B^T) and as an MN-major operand
// (K = rows: dV += P^T dO, dQ = dS K), so no tile is ever transposed in memory.
inline constexpr int kChunkCols = 64;                          // 128 bytes of bf16
inline constexpr int kChunkBytes = kBlk * kChunkCols * 2;      // 8 KiB
inline constexpr int kTileBytes = kBlk * kD * 2;               // 16 KiB
inline constexpr int kTileElems = kBlk * kD;
inline constexpr int kSwizzleAtomBytes = 1024;                 // 8 rows x 128 B
inline constexpr int kRowStatBytes = kBlk * 4;                 // 64 fp32 lse or Delta values
static_assert(kD == 2 * kChunkCols, "the tile is exactly two 128-byte swizzle chunks wide");
static_assert(kRowStatBytes % 16 == 0, "1-D bulk copies move multiples of 16 bytes");

// Warp roles. One producer warpgroup (its warp 0 issues every copy; registers handed
// to the consumers through setmaxnreg) and two consumer warpgroups that take the
// even and odd entries of the work item's list, each with private accumulators that
// are combined in a fixed order at the end (bitwise reproducible).
//   threads   0..127 : producer warpgroup
//   threads 128..255 : consumer warpgroup 0 (entries 0, 2, 4, ...)
//   threads 256..383 : consumer warpgroup 1 (entries 1, 3, 5, ...)
inline constexpr int kWarpgroupThreads = 128;
inline constexpr int kConsumers = 2;
inline constexpr int kThreads = kWarpgroupThreads * (1 + kConsumers);
// 65536 registers / 384 threads = 168 at entry; the producer gives 144 per thread back.
inline constexpr int kProducerRegs = 24;
inline constexpr int kConsumerRegs = 240;
static_assert(kProducerRegs * kWarpgroupThreads + kConsumerRegs * kConsumers * kWarpgroupThreads <= 65536,
              "setmaxnreg budgets exceed the register file");
static_assert(kProducerRegs % 8 == 0 && kConsumerRegs % 8 == 0, "setmaxnreg takes multiples of 8");

// Streamed stages: each consumer holds one while it computes, the producer fills
// the others; 4 keeps a loaded stage waiting for either consumer.
inline constexpr int kStages = 4;

// Named barriers (0 is __syncthreads, unused after the role split).
enum NamedBarrier : int {
  kBarDsWritten0 = 1,  // consumer 0's warps -> its own dQ wgmma: dS^T tile complete in smem
  kBarDsWritten1 = 2,  // same for consumer 1
  kBarExchange = 3,    // both consumers: accumulator exchange buffer written / read
};

// ---- kv-stationary kernel: dK, dV (and dQ partials) --------------------------------
// One work item = (b, h, kv block j); streams (Q_i, dO_i, lse_i, Delta_i) for the q
// blocks i of k2q row j.
struct alignas(kSwizzleAtomBytes) KvStage {
  bf16_bits q[kTileElems];
  bf16_bits d_out[kTileElems];
};
struct alignas(kSwizzleAtomBytes) KvSmem {
  bf16_bits k[kTileElems];
  bf16_bits v[kTileElems];
  KvStage stage[kStages];
  // dS^T tiles live only inside the main loop, the exchange buffer only after it
  // (the epilogue's first barrier separates them).
  union Scratch {
    bf16_bits ds_t[kConsumers][2][kBlk * kBlk];  // dS^T (kv x q), per consumer, double-buffered: A of dQ = dS K
    float exchange[kWarpgroupThreads * 64];      // one 64x128 fp32 accumulator in fragment order
  } scratch;
  float lse[kStages][kBlk];
  float delta[kStages][kBlk];
  std::uint64_t full[kStages];   // producer -> consumer: stage loaded (TMA bytes)
  std::uint64_t empty[kStages];  // consumer -> producer: stage free (one arrival per consumer warp)
  std::uint64_t kv_full;         // producer -> consumers: K_j, V_j loaded
};

// ---- q-stationary kernel (deterministic dQ) -----------------------------------------
// One work item = (b, h, q block i); streams (K_j, V_j) for the kv blocks j of q2k row i.
struct alignas(kSwizzleAtomBytes) DqStage {
  bf16_bits k[kTileElems];
  bf16_bits v[kTileElems];
};
struct alignas(kSwizzleAtomBytes) DqSmem {
  bf16_bits q[kTileElems];
  bf16_bits d_out[kTileElems];
  DqStage stage[kStages];
  float exchange[kConsumers][kWarpgroupThreads * 32];  // per sender: the half of dQ the other consumer stores
  float lse[kBlk];
  float delta[kBlk];
  std::uint64_t full[kStages];
  std::uint64_t empty[kStages];
  std::uint64_t q_full;  // producer -> consumers: Q_i, dO_i, lse_i, Delta_i loaded
};

// Dynamic shared memory is only 16-byte aligned: ask for one swizzle atom more and
// round the base up (the descriptors assume atoms on 1024-byte boundaries).
inline constexpr int kSmemLimit = 227 * 1024;
inline constexpr int kKvSmemBytes = int(sizeof(KvSmem)) + kSwizzleAtomBytes;
inline constexpr int kDqSmemBytes = int(sizeof(DqSmem)) + kSwizzleAtomBytes;
static_assert(kKvSmemBytes <= kSmemLimit, "kv-stationary shared memory exceeds 227 KiB");
static_assert(kDqSmemBytes <= kSmemLimit, "q-stationary shared memory exceeds 227 KiB");
static_assert(sizeof(KvStage) % kSwizzleAtomBytes == 0 && sizeof(DqStage) % kSwizzleAtomBytes == 0,
              "every tile must start on a swizzle atom");
static_assert(offsetof(KvSmem, scratch) % kSwizzleAtomBytes == 0, "dS^T tiles must start on a swizzle atom");
static_assert(sizeof(KvSmem::Scratch) == sizeof(float) * kWarpgroupThreads * 64, "dS^T tiles and exchange alias exactly");
static_assert(offsetof(KvSmem, lse) % 16 == 0 && offsetof(DqSmem, lse) % 16 == 0 &&
                  offsetof(KvSmem, delta) % 16 == 0 && offsetof(DqSmem, delta) % 16 == 0,
              "1-D bulk copy destinations must be 16-byte aligned");

}  // namespace vsa::sm90a::bwd
