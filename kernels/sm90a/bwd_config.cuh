#pragma once
// Tile configuration of the Hopper backward: one constexpr block per choice, the
// reason beside it, the shared-memory layout of the kernel (both work-item kinds) and
// static_asserts that it fits. See NOTES.md ("Backward") for the measurements behind the numbers.
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

// Warp roles. One producer warpgroup (its thread 0 fetches work items and issues every
// copy; registers handed to the consumers through setmaxnreg) and two consumer
// warpgroups that take the even and odd entries of each item's list, each with
// private accumulators that are combined in a fixed order at the end (bitwise
// reproducible).
//   threads   0..127 : producer warpgroup
//   threads 128..255 : consumer warpgroup 0 (entries 0, 2, 4, ...)
//   threads 256..383 : consumer warpgroup 1 (entries 1, 3, 5, ...)
inline constexpr int kWarpgroupThreads = 128;
inline constexpr int kConsumers = 2;
inline constexpr int kConsumerThreads = kWarpgroupThreads * kConsumers;
inline constexpr int kThreads = kWarpgroupThreads * (1 + kConsumers);
// 65536 registers / 384 threads = 168 at entry; the producer gives 144 per thread back.
inline constexpr int kProducerRegs = 24;
inline constexpr int kConsumerRegs = 240;
static_assert(kProducerRegs * kWarpgroupThreads + kConsumerRegs * kConsumerThreads <= 65536,
              "setmaxnreg budgets exceed the register file");
static_assert(kProducerRegs % 8 == 0 && kConsumerRegs % 8 == 0, "setmaxnreg takes multiples of 8");

// Streamed stages: each consumer holds one while it computes, the producer fills the
// others (and, across items, the next item's first entries during this item's epilogue).
inline constexpr int kStages = 4;

// Named barriers (0 is __syncthreads, unused after the role split).
enum NamedBarrier : int {
  kBarDsWritten0 = 1,  // consumer 0's warps -> its dQ wgmma or dS^T store: dS^T tile complete in smem
  kBarDsWritten1 = 2,  // same for consumer 1
  kBarConsumers = 3,   // both consumers: item's GEMMs done / exchange written / exchange read
  kBarTurn0 = 4,       // ping-pong: consumer 0 may issue its S/dP GEMMs (consumer 1 arrives)
  kBarTurn1 = 5,       // same for consumer 1
};

// ---- work items ----------------------------------------------------------------------
// kv item (b, h, kv block j): resident K_j, V_j; streams Q_i, dO_i, lse_i, Delta_i for the
//   q blocks i of k2q row j; produces dK_j, dV_j, and dQ partials (atomic mode) or the dS^T
//   tiles of its pairs (deterministic mode, bwd_ds_handoff.cuh).
// q item (b, h, q block i), deterministic mode only: nothing resident; streams K_j and the
//   dS^T tile of pair (i, j) for the kv blocks j of q2k row i; produces dQ_i.
struct alignas(kSwizzleAtomBytes) TilePair {
  bf16_bits a[kTileElems];  // kv item: K (resident) / Q (stage); q item: K (stage)
  bf16_bits b[kTileElems];  // kv item: V (resident) / dO (stage); q item: dS^T in the first 8 KiB (stage)
};

struct alignas(kSwizzleAtomBytes) BwdSmem {
  TilePair resident;
  TilePair stage[kStages];
  // dS^T tiles live only inside an item's entries, the exchange buffer only in its epilogue
  // (barriers on both sides separate them).
  union Scratch {
    bf16_bits ds_t[kConsumers][2][kBlk * kBlk];  // dS^T (kv x q), per consumer, double-buffered: A of dQ = dS K
    float exchange[kWarpgroupThreads * 64];      // one 64x128 fp32 accumulator in fragment order
  } scratch;
  float stage_lse[kStages][kBlk];  // kv items: rows of the streamed q block
  float stage_delta[kStages][kBlk];
  std::uint64_t full[kStages];     // producer -> consumer: stage loaded (TMA bytes)
  std::uint64_t empty[kStages];    // consumer -> producer: stage free (one arrival per thread of the consumer)
  std::uint64_t resident_full;     // producer -> consumers: `item` published, its resident tiles loaded
  std::uint64_t resident_empty;    // consumers -> producer: item's GEMMs done, `item` and resident tiles free (every consumer thread)
  // Mailbox: the work item and its list length, which the consumers would otherwise load
  // from global memory at the item's start, before their loop can begin (the producer
  // loaded it when it took the item).
  int item;        // work item id (-1: no more work)
  int item_count;  // entries of its list
  // Producer only: the block ids of an item's first entries, loaded together (bwd_producer.cuh).
  int first_blocks[kStages];
};

// Dynamic shared memory is only 16-byte aligned: ask for one swizzle atom more and
// round the base up (the descriptors assume atoms on 1024-byte boundaries).
inline constexpr int kSmemLimit = 227 * 1024;
inline constexpr int kSmemBytes = int(sizeof(BwdSmem)) + kSwizzleAtomBytes;
static_assert(kSmemBytes <= kSmemLimit, "backward shared memory exceeds 227 KiB");
static_assert(sizeof(TilePair) % kSwizzleAtomBytes == 0, "every tile must start on a swizzle atom");
static_assert(offsetof(BwdSmem, scratch) % kSwizzleAtomBytes == 0, "dS^T tiles must start on a swizzle atom");
static_assert(sizeof(BwdSmem::Scratch) == sizeof(float) * kWarpgroupThreads * 64, "dS^T tiles and exchange alias exactly");
static_assert(offsetof(BwdSmem, stage_lse) % 16 == 0 && offsetof(BwdSmem, stage_delta) % 16 == 0,
              "1-D bulk copy destinations must be 16-byte aligned");

}  // namespace vsa::sm90a::bwd
