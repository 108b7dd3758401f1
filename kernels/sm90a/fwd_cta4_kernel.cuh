#pragma once
// The forward with four CTAs per SM: TK's occupancy with this kernel's per-block work; the
// layout fwd_layout.hpp's rule picks for short items in a launch of one wave, where it gains up
// to 10% (VSA_SM90A_FWD_FOUR_CTAS forces it on or off; notes/runs.md run 62).
// Run 61 measured that TK's whole lead at S = 4096 is its occupancy (four one-warp-group CTAs
// per SM), and run 61b that the persistent kernel (fwd_kernel.cuh: a producer warp group
// beside consumers) cannot hold four items per SM in registers. This kernel drops the
// producer: one CTA is one warp group and one item (blockIdx.x), thread 0 issues the item's
// TMA loads itself, and Q stays in shared memory (SS products), so a thread needs only the
// S, P and O fragments and the softmax state (__launch_bounds__ caps it at 128 registers).
//
// One Q, one K and one V tile (48 KB: four CTAs fit an SM's 227 KB). Per selected block n:
//   wait K_n; S = Q K_n^T; K's tile goes back and thread 0 loads K_{n+1} into it
//   mask padding keys; online softmax (lazy O rescale, fwd_softmax.cuh); P = bf16(S)
//   wait V_n; O += P V_n;  V's tile goes back and thread 0 loads V_{n+1} into it
// Nothing overlaps inside a CTA: K_{n+1} arrives during the softmax and P.V, V_{n+1} during
// the next S and softmax, and the SM's other three CTAs use the tensor cores meanwhile.
// Then the epilogue of the persistent kernel (fwd_epilogue.cuh), staged in the last V tile.
// kProbe: the probe variant, as the persistent kernel's (fwd.release_kv before the release of a
// K or V tile by each warp but the one that refills it, fwd.epilogue before O leaves the staging
// tile, every wait bounded by the hang watch). No trace variant: fwd_launch.cuh runs a timeline
// on the persistent layout.
#include "fwd_mainloop.cuh"   // issue_pv, the epilogue and the softmax
#include "fwd_tile_load.cuh"  // load_tile

namespace vsa::sm90a::fwd {

template <class Cfg>
struct Cta4Storage {
  alignas(1024) bf16_bits q[Cfg::kTileElems];
  alignas(1024) bf16_bits k[Cfg::kTileElems];
  alignas(1024) bf16_bits v[Cfg::kTileElems];  // the last V tile is O's staging tile
  std::uint64_t q_full;                        // TMA -> warp group: Q (thread 0's arrival + tx)
  std::uint64_t k_full;                        // TMA -> warp group: K of the next block (thread 0's arrival + tx)
  std::uint64_t v_full;                        // TMA -> warp group: V of the next block (thread 0's arrival + tx)
  std::uint64_t k_empty;                       // warps -> thread 0: every warp's S product has read K (1 per warp)
  std::uint64_t v_empty;                       // warps -> thread 0: every warp's P.V product has read V (1 per warp)
};

template <class Cfg>
constexpr std::size_t kCta4SmemBytes = sizeof(Cta4Storage<Cfg>) + 1024;  // + hand alignment (fwd_storage.cuh)

// S = Q K^T with both operands in shared memory (K-major, [half][row][64], 128-byte swizzle):
// slice kk sits in half kk/4 at byte 32 * (kk % 4) of the swizzle atom, in Q as in K.
template <class Cfg>
__device__ __forceinline__ void issue_scores_ss(float (&s)[32], const bf16_bits* q_tile, const bf16_bits* k_tile) {
  const std::uint32_t q_base = smem_addr(q_tile), k_base = smem_addr(k_tile);
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) {
    const std::uint32_t at = (kk / 4) * Cfg::kHalfBytes + (kk % 4) * 32;
    wgmma_m64n64k16_ss<0, 0>(s, smem_desc_sw128(q_base + at, 16, 1024), smem_desc_sw128(k_base + at, 16, 1024), kk > 0);
  }
}

// Hang-watch sites of this kernel's waits (fwd_storage.cuh's hang_site; the role is the CTA's
// one warp group, which also issues the loads).
constexpr HangSite cta4_site(const char* barrier) { return hang_site("cta4", barrier); }

// A tile the warp group has finished reading goes back (one arrival per warp, after the probe's
// delay), and thread 0, once all four warps have arrived, loads the next block's tile into it.
// The probe holds warps 1-3 only: warp 0 arrives at once and its thread 0 waits for their late
// arrivals, so the delay still reaches the refill, and a delay past the hang watch shows as that
// wait (were warp 0 held too, its own sleep would cover the others' and no wait would outlast the
// watch: hang_watch_test's Sm90aFourCtaStallEndsFaultNamingKEmpty).
template <class Cfg, bool kProbe>
__device__ __forceinline__ void refill(std::uint64_t* empty, std::uint32_t parity, std::uint64_t* full, bf16_bits* tile,
                                       const CUtensorMap* map, int row, std::uint64_t policy, int tid, int step,
                                       int item, const HangSite& site, const Params& p) {
  release_stage<kProbe>(empty, tid % 32, tid < 32 ? 0u : p.probe_release_kv_ns);
  if (tid == 0) {
    mbar_wait<kProbe>(empty, parity, p.hang_watch, site, {0, step, item});  // step: n, not the block id
    mbar_arrive_expect_tx(full, Cfg::kTileBytes);
    load_tile<Cfg>(tile, map, row, full, policy);
  }
  __syncwarp();
}

template <class Cfg, bool kProbe>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kCtasPerSm)
    forward_cta4_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                        const __grid_constant__ CUtensorMap tm_v, const Params p) {
  extern __shared__ unsigned char smem_raw[];
  const std::uint32_t raw = smem_addr(smem_raw);
  auto& st = *reinterpret_cast<Cta4Storage<Cfg>*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));
  const int tid = int(threadIdx.x);
  const int warp = __shfl_sync(0xffffffffu, tid / 32, 0), lane = tid % 32;
  const int item = int(blockIdx.x);
  const int count = min(max(p.q2k_num[item], 0), p.max_kv);
  if (count == 0) {  // the whole CTA leaves together: no barrier is in use yet
    store_empty_item<Cfg>(item, p, warp, lane);
    return;
  }

  // Row of this head's first key in the [B*H*S, D] view: (b*H + h) * S.
  const int head_row = (item / p.num_blocks) * p.num_blocks * Cfg::kBlockKv;
  const std::int32_t* ids = p.q2k_idx + std::int64_t(item) * p.max_kv;
  int block = ids[0];
  // Q is read once; K and V are read again by the other query blocks of the head.
  const std::uint64_t kv_policy = Cfg::kL2Hints ? l2_policy_evict_last() : 0;
  if (tid == 0) {
    mbar_init(&st.q_full, 1);
    mbar_init(&st.k_full, 1);
    mbar_init(&st.v_full, 1);
    mbar_init(&st.k_empty, Cfg::kThreads / 32);
    mbar_init(&st.v_empty, Cfg::kThreads / 32);
    mbar_init_fence();
    const std::uint64_t q_policy = Cfg::kL2Hints ? l2_policy_evict_first() : 0;
    mbar_arrive_expect_tx(&st.q_full, Cfg::kTileBytes);
    load_tile<Cfg>(st.q, &tm_q, item * Cfg::kBlockQ, &st.q_full, q_policy);
    mbar_arrive_expect_tx(&st.k_full, Cfg::kTileBytes);
    load_tile<Cfg>(st.k, &tm_k, head_row + block * Cfg::kBlockKv, &st.k_full, kv_policy);
    mbar_arrive_expect_tx(&st.v_full, Cfg::kTileBytes);
    load_tile<Cfg>(st.v, &tm_v, head_row + block * Cfg::kBlockKv, &st.v_full, kv_policy);
  }
  __syncthreads();  // the barriers are initialised before any thread waits on them

  OnlineSoftmax softmax;
  softmax.reset();
  float s[32];
  float o[64];
  std::uint32_t pfrag[4][4];
#pragma unroll
  for (int i = 0; i < 64; ++i) o[i] = 0.0f;
  int valid = p.vbs[block];
  constexpr HangSite kQFull = cta4_site("q_full"), kKFull = cta4_site("k_full"), kVFull = cta4_site("v_full");
  constexpr HangSite kKEmpty = cta4_site("k_empty"), kVEmpty = cta4_site("v_empty");
  mbar_wait<kProbe>(&st.q_full, 0, p.hang_watch, kQFull, {0, -1, item});

  for (int n = 0; n < count; ++n) {
    const std::uint32_t parity = std::uint32_t(n) & 1u;
    const bool more = n + 1 < count;
    const int next = more ? ids[n + 1] : 0;  // in flight during S_n
    const int next_row = head_row + next * Cfg::kBlockKv;

    mbar_wait<kProbe>(&st.k_full, parity, p.hang_watch, kKFull, {0, n, item});
    keep_live(s);
    wgmma_fence();
    issue_scores_ss<Cfg>(s, st.q, st.k);
    wgmma_commit();
    wgmma_wait<0>();
    keep_live(s);
    if (more)
      refill<Cfg, kProbe>(&st.k_empty, parity, &st.k_full, st.k, &tm_k, next_row, kv_policy, tid, n, item, kKEmpty, p);
    const int next_valid = more ? p.vbs[next] : Cfg::kBlockKv;  // in flight during the softmax

    if (valid < Cfg::kBlockKv) OnlineSoftmax::mask_padding(s, valid, lane);
    float alpha[2];
    if (softmax.update<Cfg::kLazyRescale>(s, p.scale_log2, alpha)) rescale_rows(o, alpha);  // no P.V in flight
    pack_probabilities(s, pfrag);

    mbar_wait<kProbe>(&st.v_full, parity, p.hang_watch, kVFull, {0, n, item});
    keep_live(o);
    keep_live(pfrag);
    wgmma_fence();
    issue_pv<Cfg>(o, pfrag, st.v);
    wgmma_commit();
    wgmma_wait<0>();
    keep_live(o);
    if (more)
      refill<Cfg, kProbe>(&st.v_empty, parity, &st.v_full, st.v, &tm_v, next_row, kv_policy, tid, n, item, kVEmpty, p);
    valid = next_valid;
  }
  // The last V tile stages O; store_output's warp-group barrier orders every warp's P.V
  // before the overwrite. Its arrival on v_empty completes a phase nobody waits for.
  store_output<Cfg, kProbe>(o, softmax, st.v, &st.v_empty, 0, item, p, warp, lane);
}

}  // namespace vsa::sm90a::fwd
