#pragma once
// The protocol of the sm100a-blk128 forward kernel. It is the blk64 forward's protocol
// (fwd_protocol.hpp): the same roles, barriers, buffers and per-step scripts, so the same
// synchronisation. Only the TMEM column map differs (128-key S rows). One work item (CTA) =
// one q block of 128 rows; step n processes kv entry n of its list; steps = 0 runs only
// the epilogue (O = 0, lse = -inf) with no barrier wait. Plain C++17, no CUDA header;
// checked by tests/unit/sm100a_fwd128_protocol_test.cpp.
#include "fwd128_config.hpp"
#include "fwd_protocol.hpp"

namespace vsa::sm100a::fwd128 {

using fwd::Bar;
using fwd::Buf;
using fwd::warp_role;
using protocol::WarpRole;

static_assert(fwd::Config::kSoftmaxWarps == Config::kSoftmaxWarps && fwd::Config::kWarps == Config::kWarps,
              "the blk64 roles (warp ranges, arrival counts) are reused as they are");
static_assert(fwd::Config::kKvStages == Config::kKvStages && fwd::Config::kSBuffers == Config::kSBuffers,
              "the blk64 rings are reused as they are");

// ---- TMEM column map (all 128 lanes; row i of the q block in lane i) --------------------
//
// Allocated by the MMA warp (tcgen05.alloc, 512 columns: the power of two above 384) before
// the roles split, freed by the same warp after the final __syncthreads.
inline constexpr protocol::TmemRange kTmemMap[] = {
    {"S[0]", 0, Config::kBlock, "S of even steps (128 keys); nothing else"},
    {"S[1]", Config::kBlock, Config::kBlock, "S of odd steps; nothing else"},
    {"O", 2 * Config::kBlock, Config::kHeadDim, "O of the whole work item; nothing else"},
};
inline constexpr int kTmemAllocColumns = Config::kTmemColumns;
static_assert(kTmemMap[2].first_column + kTmemMap[2].columns <= kTmemAllocColumns, "the map fits the allocation");

inline constexpr protocol::Protocol kProtocol =
    protocol::make_protocol("sm100a-blk128 forward", fwd::kRoles, fwd::kBarriers, fwd::kBuffers, kTmemMap,
                            kTmemAllocColumns, fwd::kScripts, Config::kKvStages, Config::kSBuffers);

}  // namespace vsa::sm100a::fwd128
