#pragma once
// Planted faults of the real kernels for `vsa-bench selftest` (model only). The role files
// mark each point with VSA_PLANT(name, good, bad) (sm100a_ptx.cuh); the model's planted build
// (kernels_on_model.cpp compiled with VSA_MODEL_PLANTED) evaluates `bad` while that fault is
// selected. The hardware image and the normal model build never see `bad`.
#include <cstdint>

namespace vsa::model {

enum class Plant {
  none,
  wrong_sbo,           // fwd_mma.cuh: the S MMA's K descriptor with SBO 512 instead of 1024
  expect_tx_short,     // fwd_producer.cuh: k_full expects 16 bytes fewer than the TMA delivers
  skip_wait_ld,        // bwd_dq_reduce.cuh: dq_empty released with the dQ tcgen05.ld unwaited
  tmem_overalloc,      // kernel_prologue.cuh: tcgen05.alloc of 1024 columns
  dealloc_other_warp,  // kernel_prologue.cuh: the producer warp allocates, the MMA warp frees
  tmem_overlap,        // bwd_mma.cuh: the dQ MMA's accumulator at dP^T's columns (64..191, not 128..255)
  skip_fence_after,    // protocol_cursor.cuh: the forward's softmax warps issue no tcgen05.fence::after_thread_sync
  skip_fence_before,   // protocol_cursor.cuh: the backward's dsoftmax warps issue no tcgen05.fence::before_thread_sync
  stat_next_stage,     // bwd_dsoftmax.cuh: lse / Delta read (plain C++ loads) from the next step's stat stage
  store_wait_other_lane,  // fwd_epilogue.cuh: the O/lse TMA stores' wait_group.read issued by lane 1, not the issuer
  step_past_count,        // fwd_storage.cuh: a q block of the pair takes part in step == its count (one entry too many)
};

// A shared-memory descriptor with its stride byte offset (bits 32-45, in 16-byte units,
// PTX ISA "Shared Memory Descriptor") replaced: the wrong_sbo plant.
constexpr std::uint64_t with_sbo(std::uint64_t desc, std::uint32_t sbo_bytes) {
  return (desc & ~(std::uint64_t(0x3FFF) << 32)) | (std::uint64_t((sbo_bytes >> 4) & 0x3FFF) << 32);
}

// The fault the planted build applies now (one model run at a time).
[[nodiscard]] Plant active_plant();
void set_active_plant(Plant p);

}  // namespace vsa::model

#ifdef VSA_MODEL_PLANTED
#undef VSA_PLANT
#define VSA_PLANT(name, good, bad) (::vsa::model::active_plant() == ::vsa::model::Plant::name ? (bad) : (good))
#endif
