#pragma once
// Tile configuration of the Hopper backward: one constexpr block per choice, the
// reason beside it, the shared-memory layout of the kernel (both work-item kinds) and
// static_asserts that it fits. See README.md ("Backward") for the measurements behind the numbers.
#include <cstddef>
#include <cstdint>

#include "launch.hpp"
#include "vsa/bf16.hpp"

namespace vsa::sm90a::bwd {

inline constexpr int kBlk = kBlock;  // 64 tokens: one wgmma M (kv or q rows of a block)
inline constexpr int kD = kHeadDim;  // 128: the contraction of S and dP, the N of dK/dV/dQ

// Every 64 x 128 bf16 tile lives in shared memory as two 64-column chunks of
// 64 rows x 128 bytes, 128-byte swizzled (TMA SWIZZLE_128B, box 64 x 64). One layout
// serves as a K-major operand (K = d: S = A B^T) and as an MN-major operand
// (K = rows: dV += P^T dO, dQ = dS K), so no tile is ever transposed in memory.
inline constexpr int kChunkCols = 64;                      // 128 bytes of bf16
inline constexpr int kChunkBytes = kBlk * kChunkCols * 2;  // 8 KiB
inline constexpr int kTileBytes = kBlk * kD * 2;           // 16 KiB
inline constexpr int kTileElems = kBlk * kD;
inline constexpr int kSwizzleAtomBytes = 1024;  // 8 rows x 128 B
inline constexpr int kRowStatBytes = kBlk * 4;  // 64 fp32 lse or Delta values
static_assert(kD == 2 * kChunkCols, "the tile is exactly two 128-byte swizzle chunks wide");
static_assert(kRowStatBytes % 16 == 0, "1-D bulk copies move multiples of 16 bytes");

// Warp roles. One producer warpgroup (lane 0 of its warp c fetches work items for consumer
// c and issues its copies; registers handed to the consumers through setmaxnreg) and two
// consumer warpgroups, each with its own work item, ring and barriers: a consumer runs every
// entry of its item and owns its outputs (no exchange, bitwise reproducible), and the two
// consumers of an SM never wait for each other, so one's epilogue or q item overlaps the
// other's GEMMs.
//   threads   0..127 : producer warpgroup (warp c feeds consumer c)
//   threads 128..255 : consumer warpgroup 0
//   threads 256..383 : consumer warpgroup 1
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

// Streamed stages per consumer: it holds one while it computes, its producer fills the
// other (and, across items, the next item's first entries during this item's epilogue).
inline constexpr int kStages = 2;

// Named barriers (0 is __syncthreads, unused after the role split), one set per consumer.
enum NamedBarrier : int {
  kBarDsWritten0 = 1,  // consumer 0's warps -> its dQ wgmma or dS^T store: dS^T tile complete in smem
  kBarDsWritten1 = 2,  // same for consumer 1
  kBarDsFree0 = 3,     // consumer 0's warps -> its next dS^T writes: the tile's readers are done
  kBarDsFree1 = 4,     // same for consumer 1
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

// One consumer's part of shared memory, with its producer's barriers and mailbox.
struct alignas(kSwizzleAtomBytes) SlotSmem {
  TilePair resident;
  TilePair stage[kStages];
  // dS^T (kv x q) of the current entry, single-buffered (kBarDsFree orders its reuse): the
  // A of dQ = dS K (atomic) or the source of its bulk store (deterministic).
  bf16_bits ds_t[kBlk * kBlk];
  float stage_lse[kStages][kBlk];  // kv items: rows of the streamed q block
  float stage_delta[kStages][kBlk];
  std::uint64_t full[kStages];   // producer -> consumer: stage loaded (TMA bytes)
  std::uint64_t empty[kStages];  // consumer -> producer: stage free (one arrival per consumer thread)
  std::uint64_t resident_full;   // producer -> consumer: `item` published, its resident tiles loaded
  std::uint64_t resident_empty;  // consumer -> producer: item's GEMMs done, `item` and resident tiles free
  // Mailbox: the work item and its list length, which the consumer would otherwise load
  // from global memory at the item's start, before its loop can begin (the producer
  // loaded it when it took the item).
  int item;        // work item id (-1: no more work)
  int item_count;  // entries of its list
  // Producer only: the block ids of an item's first entries, loaded together (bwd_producer.cuh).
  int first_blocks[kStages];
};

struct BwdSmem {
  SlotSmem slot[kConsumers];
};

// Dynamic shared memory is only 16-byte aligned: ask for one swizzle atom more and
// round the base up (the descriptors assume atoms on 1024-byte boundaries).
inline constexpr int kSmemLimit = 227 * 1024;
inline constexpr int kSmemBytes = int(sizeof(BwdSmem)) + kSwizzleAtomBytes;
static_assert(kSmemBytes <= kSmemLimit, "backward shared memory exceeds 227 KiB");
static_assert(sizeof(TilePair) % kSwizzleAtomBytes == 0, "every tile must start on a swizzle atom");
static_assert(sizeof(SlotSmem) % kSwizzleAtomBytes == 0, "every slot must start on a swizzle atom");
static_assert(offsetof(SlotSmem, ds_t) % kSwizzleAtomBytes == 0, "the dS^T tile must start on a swizzle atom");
static_assert(offsetof(SlotSmem, stage_lse) % 16 == 0 && offsetof(SlotSmem, stage_delta) % 16 == 0,
              "1-D bulk copy destinations must be 16-byte aligned");

}  // namespace vsa::sm90a::bwd
