#pragma once
// Consumer turns (run 37, an A/B variant: VSA_SM90A_FWD_TURN_SPINS=N): the two consumer
// groups of a CTA take turns issuing their products, so one group's softmax runs while the
// other's products keep the tensor pipe busy (FlashAttention-3's ping-pong schedule).
//
// FA3 hands the turn over with named barriers, which needs both groups to issue the same
// number of times. Ours run independent items of any length, so the turn here is a soft
// gate: a warp waits for its turn at most `spins` polls, and not at all while its partner
// is outside an item's main loop. No wait is unbounded, so the gate can slow a warp but
// never hang it, and correctness never depends on it. Warp w of each group runs on SM
// sub-partition w (and its tensor core), so each warp pair keeps its own turn.
#include <cuda/atomic>

#include "fwd_storage.cuh"

namespace vsa::sm90a::fwd {

struct TurnGate {
  ConsumerTurns* turns;  // null: the gate is off
  int slot;
  int warp;   // 0..3 inside the group
  int spins;  // most polls per wait

  using Word = cuda::atomic_ref<int, cuda::thread_scope_block>;

  // Lane 0 of each warp keeps the words; the other lanes wait at the __syncwarp.
  __device__ __forceinline__ void set_active(int on, int lane) const {
    if (turns != nullptr && lane == 0) Word(turns->active[slot][warp]).store(on, cuda::memory_order_relaxed);
  }
  __device__ __forceinline__ void wait(int lane) const {
    if (turns == nullptr) return;
    if (lane == 0) {
      for (int i = 0; i < spins; ++i) {
        if (Word(turns->next[warp]).load(cuda::memory_order_relaxed) == slot) break;
        if (Word(turns->active[slot ^ 1][warp]).load(cuda::memory_order_relaxed) == 0) break;
      }
    }
    __syncwarp();
  }
  __device__ __forceinline__ void pass(int lane) const {
    if (turns != nullptr && lane == 0) Word(turns->next[warp]).store(slot ^ 1, cuda::memory_order_relaxed);
  }
};

}  // namespace vsa::sm90a::fwd
