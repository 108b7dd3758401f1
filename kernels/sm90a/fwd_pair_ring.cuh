#pragma once
// The K/V ring of pair tiles (fwd_pair_order.hpp): both slots' stages as one ring of
// 2 x kStages, stage i living in slot i / kStages's tiles, barriers and mailbox. Position u of
// the union stream (counted per CTA from the kernel's start) is stage u % depth in phase
// (u / depth) & 1, so producer and consumers agree on a stage by arithmetic alone.
#include "fwd_storage.cuh"

namespace vsa::sm90a::fwd {

template <class Cfg>
struct PairRing {
  static constexpr int kDepth = Cfg::kConsumers * Cfg::kStages;
  // Both consumer warp groups arrive on a stage's empty barriers; the producer arrives for
  // a consumer that does not own the position, so every phase still counts both.
  static constexpr int kEmptyArrivals = Cfg::kConsumers * kConsumerWarps;

  SharedStorage<Cfg>& smem;

  struct Stage {
    int index;
    std::uint32_t phase;
    [[nodiscard]] __device__ __forceinline__ std::uint32_t full_parity() const { return phase; }
    [[nodiscard]] __device__ __forceinline__ std::uint32_t empty_parity() const { return phase ^ 1u; }
  };
  [[nodiscard]] __device__ __forceinline__ static Stage at(int position) {
    return {position % kDepth, std::uint32_t((position / kDepth) & 1)};
  }
  __device__ __forceinline__ SlotBarriers<Cfg>& bars(int index) const { return smem.bars[index / Cfg::kStages]; }
  __device__ __forceinline__ std::uint64_t* k_full(int i) const { return &bars(i).k_full[i % Cfg::kStages]; }
  __device__ __forceinline__ std::uint64_t* v_full(int i) const { return &bars(i).v_full[i % Cfg::kStages]; }
  __device__ __forceinline__ std::uint64_t* k_empty(int i) const { return &bars(i).k_empty[i % Cfg::kStages]; }
  __device__ __forceinline__ std::uint64_t* v_empty(int i) const { return &bars(i).v_empty[i % Cfg::kStages]; }
  __device__ __forceinline__ bf16_bits* k_tile(int i) const { return smem.tiles[i / Cfg::kStages].k[i % Cfg::kStages]; }
  __device__ __forceinline__ bf16_bits* v_tile(int i) const { return smem.tiles[i / Cfg::kStages].v[i % Cfg::kStages]; }
  __device__ __forceinline__ int& kv_valid(int i) const {
    return smem.mail[i / Cfg::kStages].kv_valid[i % Cfg::kStages];
  }
};

}  // namespace vsa::sm90a::fwd
