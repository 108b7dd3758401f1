#pragma once
// The protocol of the sm100a forward kernels (blk64 and blk128) as constexpr tables: warp
// roles, the TMEM column map, the barriers (each named after the edge it guards), and each
// role's script of synchronising and memory operations per kv step. Both block sizes share
// the roles, barriers, buffers and scripts, so the same synchronisation; only the TMEM
// column map differs (kBlock-key S rows), so the protocol is a template over the tile
// config: kProtocol<Blk64>, kProtocol<Blk128>.
//
// The kernel takes its barrier slots, init counts, phase parities and TMEM columns from
// these tables and walks its scripts op by op (protocol_cursor.cuh), so the host checker
// (protocol_check.hpp, tests/unit/kernels/sm100a/fwd_protocol_test.cpp and
// fwd128_protocol_test.cpp) checks what the kernel does. Plain C++17, no CUDA header.
//
// One work item (CTA) = kQBlocks q blocks of one head: blk64 q blocks A = 2p and B = 2p + 1,
// blk128 one q block. Step n processes kv entry n of each block's list (lockstep); a block
// whose list is shorter sits the step out (no MMA, no TMA for it) but the barrier protocol
// is the same for every step, so the phase counts never depend on the data. steps = the
// longest count; steps = 0 runs only the epilogue (O = 0, lse = -inf), with no barrier wait
// at all.
//
//   producer  Q ........ K_0 V_0 K_1 V_1 ...          (TMA; ring of kKvStages)
//   mma       S_0 | S_1 PV_0 | S_2 PV_1 | ... | PV_{N-1}   (S_{n+1} is issued before PV_n)
//   softmax        sm_0 | sm_1 | ... | sm_{N-1} | epilogue
//
// sm_n: read S_n (TMEM) -> row max/sum, P_n = exp2(...) -> wait PV_{n-1} -> P_n to smem
// (bf16) -> rescale O in TMEM when a row max moved -> p_full. The MMA warp then issues
// O += P_n V_n. P is stored before the O correction so the P registers are dead when
// the 128 O columns are loaded. S is double-buffered in TMEM so S_{n+1} overlaps sm_n.
#include <cstdint>

#include "fwd_config.hpp"
#include "protocol_model.hpp"

namespace vsa::sm100a::fwd {

using protocol::WarpRole;

// ---- warp roles ---------------------------------------------------------------------------
//
// warps  role      does
// 0..3   softmax   warp w owns TMEM lanes 32w..32w+31: blk64 rows 16w..16w+15 of block A
//                  (lanes +0..15) and of block B (lanes +16..31), blk128 rows 32w..32w+31;
//                  online softmax, O correction, epilogue (O via smem + TMA store, lse)
// 4      producer  TMA loads of Q, K, V into the smem ring (one elected lane)
// 5      mma       tcgen05.mma issue and tcgen05.commit (one elected lane); allocates and
//                  frees TMEM
[[nodiscard]] constexpr WarpRole warp_role(int warp) {
  return warp < CommonConfig::kSoftmaxWarps    ? WarpRole::softmax
         : warp == CommonConfig::kSoftmaxWarps ? WarpRole::producer
                                               : WarpRole::mma;
}

inline constexpr protocol::RoleSpec kRoles[] = {
    {WarpRole::softmax, 0, CommonConfig::kSoftmaxWarps, true},
    {WarpRole::producer, CommonConfig::kSoftmaxWarps, 1, false},
    {WarpRole::mma, CommonConfig::kSoftmaxWarps + 1, 1, false},
};

// ---- buffers ------------------------------------------------------------------------------

struct Buf {
  enum : std::uint8_t {
    q,  // smem: Q of the CTA's q blocks (32 KB); after the last MMA, the O staging tiles
    k,  // smem ring: K of every block for one step (32 KB per stage)
    v,  // smem ring: V likewise
    p,  // smem: P of the current step, bf16 (blk64 2 x 8 KB, blk128 32 KB)
    s,  // TMEM ring: S = Q K^T of one step (blk64: A lanes +0..15, B lanes +16..31)
    o,  // TMEM: O accumulator
    count
  };
};

inline constexpr protocol::BufferSpec kBuffers[] = {
    {Buf::q, "Q tiles / O staging", protocol::Memory::smem, protocol::Ring::once, -1},
    {Buf::k, "K stage", protocol::Memory::smem, protocol::Ring::kv, -1},
    {Buf::v, "V stage", protocol::Memory::smem, protocol::Ring::kv, -1},
    {Buf::p, "P tiles", protocol::Memory::smem, protocol::Ring::per_step, -1},
    {Buf::s, "S accumulator", protocol::Memory::tmem, protocol::Ring::s, 0},
    {Buf::o, "O accumulator", protocol::Memory::tmem, protocol::Ring::once, 2},
};

// ---- TMEM column map (all 128 lanes of each range) -------------------------------------
//
// Allocated by the MMA warp (tcgen05.alloc: 256 columns for blk64, 512 for blk128, the
// power of two above 384) before the roles split, freed by the same warp after the final
// __syncthreads. Columns hold fp32; lane quarter w belongs to softmax warp w.
template <class T>
inline constexpr protocol::TmemRange kTmemMap[3] = {
    // one range per TMEM buffer instance
    {"S[0]", 0, T::kBlock, "S of even steps; nothing else"},
    {"S[1]", T::kBlock, T::kBlock, "S of odd steps; nothing else"},
    {"O", 2 * T::kBlock, T::kHeadDim, "O of the whole work item; nothing else"},
};

template <class T>
constexpr bool tmem_map_fits() {
  constexpr int alloc = T::kTmemColumns;
  return kTmemMap<T>[2].first_column + kTmemMap<T>[2].columns <= alloc && alloc <= 512 && alloc >= 32 &&
         (alloc & (alloc - 1)) == 0 && alloc / 2 < 2 * T::kBlock + T::kHeadDim;
}
static_assert(tmem_map_fits<Blk64>() && tmem_map_fits<Blk128>(),
              "the map fits the allocation, a power of two >= 32 and <= 512 "
              "(TMEM has 512 columns), the smallest that holds it");

// ---- barriers: each guards one edge -------------------------------------------------------

struct Bar {
  enum : std::uint8_t { q_full, k_full, k_empty, v_full, v_empty, s_full, s_empty, p_full, pv_done, count };
};

inline constexpr protocol::BarrierSpec kBarriers[] = {
    {Bar::q_full, "q_full", protocol::Ring::once, WarpRole::producer, WarpRole::mma, 1,
     "producer -> mma: the Q tiles landed in smem (1 arrival + TMA bytes)"},
    {Bar::k_full, "k_full", protocol::Ring::kv, WarpRole::producer, WarpRole::mma, 1,
     "producer -> mma: the stage's K tiles landed (1 arrival + TMA bytes)"},
    {Bar::k_empty, "k_empty", protocol::Ring::kv, WarpRole::mma, WarpRole::producer, 1,
     "mma -> producer: S MMAs that read the stage's K are done (tcgen05.commit)"},
    {Bar::v_full, "v_full", protocol::Ring::kv, WarpRole::producer, WarpRole::mma, 1,
     "producer -> mma: the stage's V tiles landed (1 arrival + TMA bytes)"},
    {Bar::v_empty, "v_empty", protocol::Ring::kv, WarpRole::mma, WarpRole::producer, 1,
     "mma -> producer: PV MMAs that read the stage's V are done (tcgen05.commit)"},
    {Bar::s_full, "s_full", protocol::Ring::s, WarpRole::mma, WarpRole::softmax, 1,
     "mma -> softmax: S_n complete in its TMEM buffer (tcgen05.commit)"},
    {Bar::s_empty, "s_empty", protocol::Ring::s, WarpRole::softmax, WarpRole::mma, CommonConfig::kSoftmaxWarps,
     "softmax -> mma: S buffer read out (tcgen05.ld waited), may be overwritten (1 per softmax warp)"},
    {Bar::p_full, "p_full", protocol::Ring::per_step, WarpRole::softmax, WarpRole::mma, CommonConfig::kSoftmaxWarps,
     "softmax -> mma: P_n in smem (proxy-fenced) and O rescaled in TMEM (tcgen05.st waited) (1 per warp)"},
    {Bar::pv_done, "pv_done", protocol::Ring::per_step, WarpRole::mma, WarpRole::softmax, 1,
     "mma -> softmax: O += P_n V_n done: P smem free, O stable for correction/epilogue (commit)"},
};

// ---- scripts ------------------------------------------------------------------------------

using protocol::OpKind;

inline constexpr protocol::Op kProducerPrologue[] = {
    protocol::arrive_tx_on(Bar::q_full, "expect the Q bytes of the blocks that have steps"),
    protocol::tma_load_into(Buf::q, Bar::q_full, "TMA Q of the q blocks that have steps"),
};
inline constexpr protocol::Op kProducerLoop[] = {
    protocol::wait_on(Bar::k_empty, "K stage free again").previous_use(),
    protocol::arrive_tx_on(Bar::k_full, "expect this step's K bytes (blocks still active)"),
    protocol::tma_load_into(Buf::k, Bar::k_full, "TMA K[n] of the blocks still active"),
    protocol::wait_on(Bar::v_empty, "V stage free again").previous_use(),
    protocol::arrive_tx_on(Bar::v_full, "expect this step's V bytes"),
    protocol::tma_load_into(Buf::v, Bar::v_full, "TMA V[n] of the blocks still active"),
};
// The tail: the last kKvStages commits on k_empty / v_empty (steps N-1, N-2) have no
// waiter in the loop. tcgen05.commit arrives asynchronously, so the producer waits for them
// before the teardown; otherwise a late arrival could land in shared memory that the next
// CTA on the SM already owns. Steps below 0 are inactive, so steps = 0 waits on nothing.
// Oldest step first, as the slots completed them.
static_assert(CommonConfig::kKvStages == 2, "one tail wait per K and V stage below");
inline constexpr protocol::Op kProducerEpilogue[] = {
    protocol::wait_on(Bar::k_empty, "tail: S MMAs of step N-2 done with its K stage").step(-2),
    protocol::wait_on(Bar::k_empty, "tail: S MMAs of step N-1 done with its K stage").step(-1),
    protocol::wait_on(Bar::v_empty, "tail: PV MMAs of step N-2 done with its V stage").step(-2),
    protocol::wait_on(Bar::v_empty, "tail: PV MMAs of step N-1 done with its V stage").step(-1),
    protocol::plain(OpKind::cta_sync, "teardown: everyone done before TMEM is freed").every_time(),
};

// The MMA loop starts at iteration -1: iteration n issues S_{n+1} (step_offset +1), then
// PV_n, so the tensor cores compute S_{n+1} while the softmax works on S_n.
inline constexpr protocol::Op kMmaPrologue[] = {
    protocol::wait_on(Bar::q_full, "Q landed"),
    protocol::plain(OpKind::fence_after, "order the MMAs after the wait"),
};
inline constexpr protocol::Op kMmaLoop[] = {
    protocol::wait_on(Bar::k_full, "K_{n+1} landed").step(1),
    protocol::wait_on(Bar::s_empty, "softmax read out S_{n-1} from this S buffer").step(1).previous_use(),
    protocol::plain(OpKind::fence_after, "order the S MMA after the softmax's tcgen05.ld").step(1),
    protocol::mma_into(Buf::s, Buf::q, Buf::k, protocol::kNone,
                       "S_{n+1} = Q K^T (blk64 M=64 x 2 blocks, N=64; blk128 M=N=128; K=128)")
        .step(1),
    protocol::commit_to(Bar::s_full, "S_{n+1} ready for the softmax").step(1),
    protocol::commit_to(Bar::k_empty, "K stage of step n+1 read").step(1),
    protocol::wait_on(Bar::p_full, "P_n in smem, O rescaled"),
    protocol::wait_on(Bar::v_full, "V_n landed"),
    protocol::plain(OpKind::fence_after, "order the PV MMA after the softmax's tcgen05.st"),
    protocol::mma_into(Buf::o, Buf::p, Buf::v, Buf::o,
                       "O (+)= P_n V_n (N=128; blk64 M=64 x 2 blocks, K=64; blk128 M=128, K=128)"),
    protocol::commit_to(Bar::pv_done, "PV_n done"),
    protocol::commit_to(Bar::v_empty, "V stage of step n read"),
};
inline constexpr protocol::Op kMmaEpilogue[] = {
    protocol::plain(OpKind::cta_sync, "teardown: every TMEM read done").every_time(),
    protocol::plain(OpKind::fence_after, "order the dealloc after the sync").every_time(),
    protocol::plain(OpKind::tmem_dealloc, "free the table's allocation").every_time(),
};

// Ops with step_offset -1 in the loop work on step n - 1: the correction of O after PV_{n-1}
// (skipped at n = 0, where PV_0 overwrites O).
inline constexpr protocol::Op kSoftmaxLoop[] = {
    protocol::wait_on(Bar::s_full, "S_n ready"),
    protocol::plain(OpKind::fence_after, "order the tcgen05.ld after the wait"),
    protocol::access(OpKind::tmem_load, protocol::kNone, Buf::s, "S_n row (64 fp32) -> registers"),
    protocol::plain(OpKind::wait_ld, "S_n in registers"),
    protocol::plain(OpKind::fence_before, "order the load before the release"),
    protocol::arrive_on(Bar::s_empty, "S buffer free for S_{n+2}"),
    protocol::wait_on(Bar::pv_done, "PV_{n-1} done: O stable, P smem free").step(-1),
    protocol::plain(OpKind::fence_after, "order the O access after the wait").step(-1),
    protocol::access(OpKind::smem_store, Buf::p, protocol::kNone, "P_n row (bf16) -> smem"),
    protocol::access(OpKind::tmem_load, protocol::kNone, Buf::o, "O row -> registers (correction)").step(-1).may_skip(),
    protocol::plain(OpKind::wait_ld, "O row in registers").step(-1),
    protocol::access(OpKind::tmem_store, Buf::o, protocol::kNone, "O row * alpha -> TMEM").step(-1).may_skip(),
    protocol::plain(OpKind::wait_st, "O row written").step(-1),
    protocol::plain(OpKind::fence_async, "P_n visible to the tensor cores (async proxy)"),
    protocol::plain(OpKind::fence_before, "order the tcgen05.st before the release"),
    protocol::arrive_on(Bar::p_full, "P_n and the corrected O handed to the MMA warp"),
};
inline constexpr protocol::Op kSoftmaxEpilogue[] = {
    protocol::wait_on(Bar::pv_done, "PV_{N-1} done: O final").step(-1),
    protocol::plain(OpKind::fence_after, "order the O load after the wait").step(-1),
    protocol::access(OpKind::tmem_load, protocol::kNone, Buf::o, "O row -> registers").step(-1),
    protocol::plain(OpKind::wait_ld, "O row in registers").step(-1),
    protocol::plain(OpKind::fence_before, "order the TMEM loads before the syncs that follow").step(-1),
    protocol::access(OpKind::smem_store, Buf::q, protocol::kNone, "O row (bf16, or 0) -> staging over Q").every_time(),
    protocol::plain(OpKind::fence_async, "staging visible to the TMA engine").every_time(),
    protocol::plain(OpKind::role_sync, "all four warps staged their rows").every_time(),
    protocol::access(OpKind::tma_store, protocol::kNone, Buf::q, "TMA store O of every q block").every_time().lead(),
    protocol::plain(OpKind::wait_store, "staging read by the TMA engine").every_time().lead(),
    protocol::plain(OpKind::cta_sync, "teardown").every_time(),
};

inline constexpr protocol::Script kScripts[] = {
    protocol::role_script(WarpRole::producer, kProducerPrologue, kProducerLoop, 0, kProducerEpilogue),
    protocol::role_script(WarpRole::mma, kMmaPrologue, kMmaLoop, -1, kMmaEpilogue),
    protocol::role_script(WarpRole::softmax, kSoftmaxLoop, 0, kSoftmaxEpilogue),
};

template <class T>
struct ProtocolOf {
  static constexpr protocol::Protocol value = protocol::make_protocol(
      T::kName, kRoles, kBarriers, kBuffers, kTmemMap<T>, T::kTmemColumns, kScripts, T::kKvStages, T::kSBuffers);
};
// The host's name for it (tests, the execution model). Device templates write
// ProtocolOf<T>::value: nvcc 13.0's cudafe++ crashes (segmentation fault) on a variable
// template as a dependent template argument (Begin<kProtocol<T>, ...>).
template <class T>
inline constexpr const protocol::Protocol& kProtocol = ProtocolOf<T>::value;
static_assert(protocol::ids_in_order(kBarriers, kBuffers, Bar::count, Buf::count),
              "barrier and buffer tables are indexed by id");
static_assert(kProtocol<Blk64>.barrier_slots() == 3 + 4 * CommonConfig::kKvStages + 2 * CommonConfig::kSBuffers,
              "mbarrier slots: q_full, p_full, pv_done + 4 kv rings + 2 S rings");

}  // namespace vsa::sm100a::fwd
