#pragma once
// The protocol of the sm100a-blk64 backward kernel as constexpr tables: warp roles, the
// TMEM column map, the barriers (each named after the edge it guards), and each role's
// script of synchronising and memory operations per step. Same vocabulary, cursor binding
// and host checker as the forward (protocol_model.hpp, protocol_cursor.cuh,
// protocol_check.hpp; tests/unit/sm100a_bwd_protocol_test.cpp). Plain C++17, no CUDA.
//
// One work item (CTA) = kv block j of one head. Step n processes entry n of the k2q row
// of j: q block i = k2q_idx[j][n]. steps = k2q_num[j]; steps = 0 runs only the epilogue
// (exact-zero dK_j, dV_j rows) with no barrier wait and no TMEM access.
//
//   producer   K V | Q_0 dO_0 st_0 | Q_1 dO_1 st_1 | ...           (TMA; ring of kStages)
//   mma        S_0 | S_1 G_0 | S_2 G_1 | ... | G_{N-1}              (S_{n+1} issued before G_n)
//   dsoftmax        ds_0 | ds_1 | ... | ds_{N-1} | dK dV epilogue
//   dq_reduce                dQ_0 | dQ_1 | ... | dQ_{N-1}
//
// S_n:  S^T = K Q_i^T and dP^T = V dO_i^T into TMEM (kv rows x 64 q columns).
// ds_n: P^T = exp2(scale_log2 S^T - lse_i), dS^T = P^T (dP^T - Delta_i) per kv row
//       (lse_i, Delta_i from the stat stage), both as bf16 into a smem tile pair.
// G_n:  dV += P^T dO_i, dK += dS^T Q_i, dQ_i = dS K (A = dS^T read MN-major).
// dQ_n: dQ_i out of TMEM -> fp32 smem staging rows -> cp.reduce.async.bulk .add.f32 into
//       the [B, H, S, D] fp32 accumulator (each thread its own row).
#include <cstdint>

#include "bwd_config.hpp"
#include "protocol_model.hpp"

namespace vsa::sm100a::bwd {

using protocol::WarpRole;

// ---- warp roles ---------------------------------------------------------------------------
//
// warps  role       does
// 0..3   dsoftmax   warp w: TMEM lane quarter w = kv rows 16w..16w+15 (lanes 32w..32w+15);
//                   P^T, dS^T rows; at the end dK_j, dV_j rows (or exact zeros)
// 4..7   dq_reduce  warp w: lane quarter w % 4 = q rows 16(w-4)..+15 of dQ_i; reduce-add
// 8      producer   TMA loads of K, V once, then Q, dO, lse, Delta per step (one lane)
// 9      mma        tcgen05.mma issue and commits (one lane); allocates and frees TMEM
[[nodiscard]] constexpr WarpRole warp_role(int warp) {
  return warp < Config::kFirstDqReduceWarp ? WarpRole::dsoftmax
         : warp < Config::kProducerWarp    ? WarpRole::dq_reduce
         : warp == Config::kProducerWarp   ? WarpRole::producer
                                           : WarpRole::mma;
}

inline constexpr protocol::RoleSpec kRoles[] = {
    {WarpRole::dsoftmax, 0, Config::kDsoftmaxWarps, true},
    {WarpRole::dq_reduce, Config::kFirstDqReduceWarp, Config::kDqReduceWarps, true},
    {WarpRole::producer, Config::kProducerWarp, 1, false},
    {WarpRole::mma, Config::kMmaWarp, 1, false},
};

// ---- buffers ------------------------------------------------------------------------------

struct Buf {
  enum : std::uint8_t {
    kv,       // smem: K_j, V_j (2 x 16 KB), resident for the work item
    qdo,      // smem ring: Q_i, dO_i of one step (2 x 16 KB per stage)
    stat,     // smem ring: lse_i, Delta_i of one step (2 x 256 B per stage)
    pds,      // smem ring: P^T and dS^T tiles of one step (bf16, 2 x 8 KB per buffer)
    staging,  // smem: dQ_i rows in fp32 for the bulk reduce (64 x 528 B)
    s,        // TMEM: S^T of one step
    dp,       // TMEM: dP^T of one step
    dq,       // TMEM: dQ_i partial of one step
    dv,       // TMEM: dV accumulator of the work item
    dk,       // TMEM: dK accumulator (unscaled) of the work item
    count
  };
};

inline constexpr protocol::BufferSpec kBuffers[] = {
    {Buf::kv, "K/V tiles", protocol::Memory::smem, protocol::Ring::once, -1},
    {Buf::qdo, "Q/dO stage", protocol::Memory::smem, protocol::Ring::kv, -1},
    {Buf::stat, "lse/Delta stage", protocol::Memory::smem, protocol::Ring::kv, -1},
    {Buf::pds, "P^T/dS^T tiles", protocol::Memory::smem, protocol::Ring::s, -1},
    {Buf::staging, "dQ staging", protocol::Memory::smem, protocol::Ring::once, -1},
    {Buf::s, "S^T accumulator", protocol::Memory::tmem, protocol::Ring::once, 0},
    {Buf::dp, "dP^T accumulator", protocol::Memory::tmem, protocol::Ring::once, 1},
    {Buf::dq, "dQ accumulator", protocol::Memory::tmem, protocol::Ring::once, 2},
    {Buf::dv, "dV accumulator", protocol::Memory::tmem, protocol::Ring::once, 3},
    {Buf::dk, "dK accumulator", protocol::Memory::tmem, protocol::Ring::once, 4},
};

// ---- TMEM column map (all 128 lanes of each range; M = 64 results use lanes 32w..32w+15) -
//
// Allocated by the MMA warp (tcgen05.alloc, 512 columns: the whole TMEM, so one CTA per
// SM) before the roles split, freed by the same warp after the final __syncthreads.
inline constexpr protocol::TmemRange kTmemMap[] = {
    {"S^T", 0, Config::kBlock, "S^T of the current step (kv rows x q columns); nothing else"},
    {"dP^T", Config::kBlock, Config::kBlock, "dP^T of the current step; nothing else"},
    {"dQ", 2 * Config::kBlock, Config::kHeadDim, "dQ_i partial of the current step (q rows); nothing else"},
    {"dV", 2 * Config::kBlock + Config::kHeadDim, Config::kHeadDim, "dV of the work item; nothing else"},
    {"dK", 2 * Config::kBlock + 2 * Config::kHeadDim, Config::kHeadDim, "dK of the work item; nothing else"},
};
inline constexpr int kTmemAllocColumns = Config::kTmemColumns;

static_assert(sizeof(kTmemMap) / sizeof(kTmemMap[0]) == 5, "one range per TMEM buffer instance");
static_assert(kTmemMap[4].first_column + kTmemMap[4].columns == kTmemAllocColumns, "the map fills the allocation");
static_assert(kTmemAllocColumns <= 512, "TMEM has 512 columns");

// ---- barriers: each guards one edge -------------------------------------------------------

struct Bar {
  enum : std::uint8_t {
    kv_full,
    qdo_full,
    qdo_empty,
    stat_full,
    stat_empty,
    s_full,
    s_empty,
    ds_full,
    ds_empty,
    dq_full,
    dq_empty,
    dkdv_done,
    count
  };
};

inline constexpr protocol::BarrierSpec kBarriers[] = {
    {Bar::kv_full, "kv_full", protocol::Ring::once, WarpRole::producer, WarpRole::mma, 1,
     "producer -> mma: K_j, V_j landed in smem (1 arrival + TMA bytes)"},
    {Bar::qdo_full, "qdo_full", protocol::Ring::kv, WarpRole::producer, WarpRole::mma, 1,
     "producer -> mma: the stage's Q_i, dO_i landed (1 arrival + TMA bytes)"},
    {Bar::qdo_empty, "qdo_empty", protocol::Ring::kv, WarpRole::mma, WarpRole::producer, 1,
     "mma -> producer: every MMA that reads the stage's Q_i, dO_i is done (tcgen05.commit)"},
    {Bar::stat_full, "stat_full", protocol::Ring::kv, WarpRole::producer, WarpRole::dsoftmax, 1,
     "producer -> dsoftmax: the stage's lse_i, Delta_i landed (1 arrival + bulk-copy bytes)"},
    {Bar::stat_empty, "stat_empty", protocol::Ring::kv, WarpRole::dsoftmax, WarpRole::producer, Config::kDsoftmaxWarps,
     "dsoftmax -> producer: lse_i, Delta_i read (1 per dsoftmax warp)"},
    {Bar::s_full, "s_full", protocol::Ring::per_step, WarpRole::mma, WarpRole::dsoftmax, 1,
     "mma -> dsoftmax: S^T_n and dP^T_n complete in TMEM (tcgen05.commit)"},
    {Bar::s_empty, "s_empty", protocol::Ring::per_step, WarpRole::dsoftmax, WarpRole::mma, Config::kDsoftmaxWarps,
     "dsoftmax -> mma: S^T, dP^T columns read out (tcgen05.wait::ld done), may be overwritten"},
    {Bar::ds_full, "ds_full", protocol::Ring::s, WarpRole::dsoftmax, WarpRole::mma, Config::kDsoftmaxWarps,
     "dsoftmax -> mma: P^T_n, dS^T_n rows in their smem tiles (proxy-fenced), 1 per warp"},
    {Bar::ds_empty, "ds_empty", protocol::Ring::s, WarpRole::mma, WarpRole::dsoftmax, 1,
     "mma -> dsoftmax: the dV, dK, dQ MMAs that read a P^T/dS^T buffer are done (commit)"},
    {Bar::dq_full, "dq_full", protocol::Ring::per_step, WarpRole::mma, WarpRole::dq_reduce, 1,
     "mma -> dq_reduce: dQ_i = dS K complete in TMEM (tcgen05.commit)"},
    {Bar::dq_empty, "dq_empty", protocol::Ring::per_step, WarpRole::dq_reduce, WarpRole::mma, Config::kDqReduceWarps,
     "dq_reduce -> mma: dQ columns read out (tcgen05.wait::ld done), 1 per warp"},
    {Bar::dkdv_done, "dkdv_done", protocol::Ring::once, WarpRole::mma, WarpRole::dsoftmax, 1,
     "mma -> dsoftmax: the last dV, dK MMAs are done, the accumulators are final (commit)"},
};

// ---- scripts ------------------------------------------------------------------------------

using protocol::OpKind;

inline constexpr protocol::Op kProducerPrologue[] = {
    protocol::arrive_tx_on(Bar::kv_full, "expect the K_j, V_j bytes (only when the item has steps)"),
    protocol::tma_load_into(Buf::kv, Bar::kv_full, "TMA K_j, V_j"),
};
inline constexpr protocol::Op kProducerLoop[] = {
    protocol::wait_on(Bar::qdo_empty, "Q/dO stage free again").previous_use(),
    protocol::arrive_tx_on(Bar::qdo_full, "expect this step's Q_i, dO_i bytes"),
    protocol::tma_load_into(Buf::qdo, Bar::qdo_full, "TMA Q_i, dO_i"),
    protocol::wait_on(Bar::stat_empty, "lse/Delta stage free again").previous_use(),
    protocol::arrive_tx_on(Bar::stat_full, "expect this step's lse_i, Delta_i bytes"),
    protocol::tma_load_into(Buf::stat, Bar::stat_full, "bulk copy lse_i, Delta_i"),
};
// The tail: the last kStages commits on qdo_empty have no waiter in the loop. The MMA warp
// commits dkdv_done after them (and the dsoftmax warps wait for it), but commits are not
// ordered among themselves, so the producer waits for them before the teardown (a late
// tcgen05.commit arrival must not land in the next CTA's shared memory).
static_assert(Config::kStages == 3, "one tail wait per Q/dO stage below");
inline constexpr protocol::Op kProducerEpilogue[] = {
    protocol::wait_on(Bar::qdo_empty, "tail: MMAs of step N-3 done with its Q/dO stage").step(-3),
    protocol::wait_on(Bar::qdo_empty, "tail: MMAs of step N-2 done with its Q/dO stage").step(-2),
    protocol::wait_on(Bar::qdo_empty, "tail: MMAs of step N-1 done with its Q/dO stage").step(-1),
    protocol::plain(OpKind::cta_sync, "teardown: everyone done before TMEM is freed").every_time(),
};

// The MMA loop starts at iteration -1: iteration n issues S_{n+1} (step_offset +1), then
// the gradient MMAs of step n, so S_{n+1} runs on the tensor cores while the dsoftmax
// warps work on step n.
inline constexpr protocol::Op kMmaPrologue[] = {
    protocol::wait_on(Bar::kv_full, "K_j, V_j landed"),
    protocol::plain(OpKind::fence_after, "order the MMAs after the wait"),
};
inline constexpr protocol::Op kMmaLoop[] = {
    protocol::wait_on(Bar::qdo_full, "Q_{n+1}, dO_{n+1} landed").step(1),
    protocol::wait_on(Bar::s_empty, "dsoftmax read out S^T_n, dP^T_n").step(1).previous_use(),
    protocol::plain(OpKind::fence_after, "order the S MMAs after the dsoftmax's tcgen05.ld").step(1),
    protocol::mma_into(Buf::s, Buf::kv, Buf::qdo, protocol::kNone, "S^T_{n+1} = K Q^T (M=64, N=64, K=128)").step(1),
    protocol::mma_into(Buf::dp, Buf::kv, Buf::qdo, protocol::kNone, "dP^T_{n+1} = V dO^T (M=64, N=64, K=128)").step(1),
    protocol::commit_to(Bar::s_full, "S^T_{n+1}, dP^T_{n+1} ready").step(1),
    protocol::wait_on(Bar::ds_full, "P^T_n, dS^T_n in smem"),
    protocol::plain(OpKind::fence_after, "order the gradient MMAs after the wait"),
    protocol::mma_into(Buf::dv, Buf::pds, Buf::qdo, Buf::dv, "dV (+)= P^T_n dO (M=64, N=128, K=64)"),
    protocol::mma_into(Buf::dk, Buf::pds, Buf::qdo, Buf::dk, "dK (+)= dS^T_n Q (M=64, N=128, K=64)"),
    protocol::wait_on(Bar::dq_empty, "dq_reduce read out dQ_{n-1}").previous_use(),
    protocol::plain(OpKind::fence_after, "order the dQ MMA after the dq_reduce's tcgen05.ld"),
    protocol::mma_into(Buf::dq, Buf::pds, Buf::kv, protocol::kNone, "dQ_i = dS_n K (M=64, N=128, K=64)"),
    protocol::commit_to(Bar::dq_full, "dQ_i ready for the reduce"),
    protocol::commit_to(Bar::ds_empty, "P^T/dS^T buffer of step n read"),
    protocol::commit_to(Bar::qdo_empty, "Q/dO stage of step n read"),
};
inline constexpr protocol::Op kMmaEpilogue[] = {
    protocol::commit_to(Bar::dkdv_done, "dV, dK final").step(-1),
    protocol::plain(OpKind::cta_sync, "teardown: every TMEM read done").every_time(),
    protocol::plain(OpKind::fence_after, "order the dealloc after the sync").every_time(),
    protocol::plain(OpKind::tmem_dealloc, "free the 512 columns").every_time(),
};

inline constexpr protocol::Op kDsoftmaxLoop[] = {
    protocol::wait_on(Bar::s_full, "S^T_n, dP^T_n ready"),
    protocol::plain(OpKind::fence_after, "order the tcgen05.ld after the wait"),
    protocol::access(OpKind::tmem_load, protocol::kNone, Buf::s, "S^T row (64 fp32) -> registers"),
    protocol::access(OpKind::tmem_load, protocol::kNone, Buf::dp, "dP^T row (64 fp32) -> registers"),
    protocol::plain(OpKind::wait_ld, "S^T, dP^T rows in registers"),
    protocol::plain(OpKind::fence_before, "order the loads before the release"),
    protocol::arrive_on(Bar::s_empty, "S^T, dP^T columns free for step n+1"),
    protocol::wait_on(Bar::stat_full, "lse_i, Delta_i landed"),
    protocol::access(OpKind::smem_load, protocol::kNone, Buf::stat, "lse_i, Delta_i (broadcast reads)"),
    protocol::wait_on(Bar::ds_empty, "gradient MMAs of step n-2 done with this buffer").previous_use(),
    protocol::access(OpKind::smem_store, Buf::pds, protocol::kNone, "P^T, dS^T rows (bf16) -> smem"),
    protocol::plain(OpKind::fence_async, "P^T, dS^T visible to the tensor cores (async proxy)"),
    protocol::arrive_on(Bar::stat_empty, "lse/Delta stage free (late: few registers live here)"),
    protocol::arrive_on(Bar::ds_full, "P^T_n, dS^T_n handed to the MMA warp"),
};
static_assert(Config::kDsBuffers == 2, "one tail wait per P^T/dS^T buffer in the epilogue below");
inline constexpr protocol::Op kDsoftmaxEpilogue[] = {
    protocol::wait_on(Bar::dkdv_done, "dV, dK final").step(-1),
    protocol::plain(OpKind::fence_after, "order the TMEM loads after the wait").step(-1),
    protocol::access(OpKind::tmem_load, protocol::kNone, Buf::dv, "dV row -> registers").step(-1),
    protocol::plain(OpKind::wait_ld, "dV row in registers").step(-1),
    protocol::access(OpKind::tmem_load, protocol::kNone, Buf::dk, "dK row -> registers").step(-1),
    protocol::plain(OpKind::wait_ld, "dK row in registers").step(-1),
    protocol::plain(OpKind::fence_before, "order the TMEM loads before the teardown sync").step(-1),
    // The tail: the last kDsBuffers ds_empty commits have no waiter in the loop (see the
    // producer's tail).
    protocol::wait_on(Bar::ds_empty, "tail: gradient MMAs of step N-2 done with its buffer").step(-2),
    protocol::wait_on(Bar::ds_empty, "tail: gradient MMAs of step N-1 done with its buffer").step(-1),
    protocol::plain(OpKind::cta_sync, "teardown").every_time(),
};

inline constexpr protocol::Op kDqReduceLoop[] = {
    protocol::wait_on(Bar::dq_full, "dQ_i ready"),
    protocol::plain(OpKind::fence_after, "order the tcgen05.ld after the wait"),
    protocol::access(OpKind::tmem_load, protocol::kNone, Buf::dq, "dQ_i row (128 fp32) -> registers"),
    protocol::plain(OpKind::wait_ld, "dQ_i row in registers"),
    protocol::plain(OpKind::fence_before, "order the load before the release"),
    protocol::arrive_on(Bar::dq_empty, "dQ columns free for step n+1"),
    protocol::plain(OpKind::wait_store, "this thread's previous bulk reduce has read its staging row"),
    protocol::access(OpKind::smem_store, Buf::staging, protocol::kNone, "dQ_i row (fp32) -> staging row"),
    protocol::plain(OpKind::fence_async, "staging row visible to the bulk-copy engine"),
    protocol::access(OpKind::tma_store, protocol::kNone, Buf::staging, "cp.reduce.async.bulk .add.f32 of the row")
        .rows_of_warp(),
};
inline constexpr protocol::Op kDqReduceEpilogue[] = {
    protocol::plain(OpKind::wait_store, "every bulk reduce done (reads and writes)").every_time(),
    protocol::plain(OpKind::cta_sync, "teardown").every_time(),
};

inline constexpr protocol::Script kScripts[] = {
    protocol::role_script(WarpRole::producer, kProducerPrologue, kProducerLoop, 0, kProducerEpilogue),
    protocol::role_script(WarpRole::mma, kMmaPrologue, kMmaLoop, -1, kMmaEpilogue),
    protocol::role_script(WarpRole::dsoftmax, kDsoftmaxLoop, 0, kDsoftmaxEpilogue),
    protocol::role_script(WarpRole::dq_reduce, kDqReduceLoop, 0, kDqReduceEpilogue),
};

inline constexpr protocol::Protocol kProtocol =
    protocol::make_protocol("sm100a-blk64 backward", kRoles, kBarriers, kBuffers, kTmemMap, kTmemAllocColumns, kScripts,
                            Config::kStages, Config::kDsBuffers);
static_assert(protocol::ids_in_order(kBarriers, kBuffers, Bar::count, Buf::count),
              "barrier and buffer tables are indexed by id");
static_assert(kProtocol.barrier_slots() == 6 + 4 * Config::kStages + 2 * Config::kDsBuffers,
              "mbarrier slots: kv_full, s_full, s_empty, dq_full, dq_empty, dkdv_done + 4 stage rings + 2 ds rings");

}  // namespace vsa::sm100a::bwd
