#pragma once
// The PTX wrappers of kernels/sm100a/sm100a_ptx.cuh, as the execution model implements them.
// sm100a_ptx.cuh includes this header instead of its inline PTX when VSA_SM100A_MODEL is
// defined (host builds of the role files, model/kernels_on_model.cpp); the descriptor
// encoders, tmem_at and sleep_ns stay the kernels' own. Same names, namespaces (public and
// detail) and signatures.
// Each wrapper forwards to the calling CTA (cta.hpp), where the ISA sections are cited.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "model/cta.hpp"
#include "model/tensor_map_model.hpp"
#include "vsa/bf16.hpp"

namespace vsa::sm100a {

namespace model_detail {
inline ::vsa::model::Cta& cta() { return ::vsa::model::current_cta(); }
inline std::uint32_t addr_of(const void* p) { return cta().smem_address(p); }
// The protocol cursor (protocol_cursor.cuh) tells the model which op of its role's script the
// calling thread is at, so race and deadlock reports name operations as the table does.
inline void at_protocol_op(const char* what) { cta().me().op = what; }
}  // namespace model_detail

// The public part of sm100a_ptx.cuh (no synchronisation, no asynchronous operation).
inline std::uint32_t smem_addr(const void* p) { return model_detail::addr_of(p); }
inline void st_shared_v4(std::uint32_t addr, std::uint32_t x, std::uint32_t y, std::uint32_t z, std::uint32_t w) {
  if (addr % 16 != 0) throw ::vsa::model::ModelError("st.shared.v4.b32: address not 16-byte aligned");
  const std::uint32_t v[4] = {x, y, z, w};
  model_detail::cta().st_shared(addr, v, 16);
}
template <int N>
inline void keep_after_wait(std::uint32_t (&)[N]) {}
template <class V>
inline V ld_shared(const V* p) {
  model_detail::cta().ld_shared(smem_addr(p), sizeof(V));
  return *p;
}

// The detail part: what role code reaches only through the protocol cursor.
namespace detail {

inline void mbar_init(std::uint64_t* bar, std::uint32_t arrivals) {
  model_detail::cta().mbar_init(smem_addr(bar), arrivals);
}
// fence.mbarrier_init: orders the inits before the async proxy sees them (an edge only).
inline void mbar_init_fence() { model_detail::cta().scheduler().yield(); }
inline void mbar_arrive(std::uint64_t* bar) {
  model_detail::cta().mbar_arrive(smem_addr(bar));
  model_detail::cta().scheduler().yield();
}
// mbarrier.arrive.expect_tx: expect-tx, then arrive-on (9.7.13.15.13).
inline void mbar_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  auto& c = model_detail::cta();
  c.mbar_expect_tx(smem_addr(bar), bytes);
  c.mbar_arrive(smem_addr(bar));
  c.scheduler().yield();
}
inline void mbar_wait(std::uint64_t* bar, std::uint32_t parity) {
  model_detail::cta().mbar_wait_parity(smem_addr(bar), parity);
}

inline void tma_load_2d(void* dst, const CUtensorMap* map, int x, int y, std::uint64_t* bar) {
  model_detail::cta().tma_load_2d(smem_addr(dst), map, x, y, smem_addr(bar));
}
inline void tma_store_2d(const CUtensorMap* map, int x, int y, const void* src) {
  model_detail::cta().tma_store_2d(map, x, y, smem_addr(src));
}
inline void tma_store_commit() { model_detail::cta().bulk_commit(); }
inline void tma_store_wait_read() { model_detail::cta().bulk_wait(true); }
inline void bulk_load_1d(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar) {
  model_detail::cta().bulk_load(smem_addr(dst), src, bytes, smem_addr(bar));
}
inline void bulk_reduce_add_f32(float* dst, const float* src, std::uint32_t bytes) {
  model_detail::cta().bulk_reduce_add_f32(dst, smem_addr(src), bytes);
}
inline void bulk_wait_all() { model_detail::cta().bulk_wait(false); }

inline void prefetch_tensor_map(const CUtensorMap* map) { (void)::vsa::model::tensor_map_record(map); }
inline void fence_proxy_async_smem() {
  auto& c = model_detail::cta();
  c.races().fence_proxy_async(c.me().tid);
  c.scheduler().yield();
}

inline void tmem_alloc(std::uint32_t* base_out, std::uint32_t columns) {
  model_detail::cta().tmem_alloc(smem_addr(base_out), columns);
}
inline void tmem_relinquish_alloc_permit() { model_detail::cta().tmem_relinquish(); }
inline void tmem_dealloc(std::uint32_t base, std::uint32_t columns) { model_detail::cta().tmem_dealloc(base, columns); }

inline void umma_bf16_ss(std::uint32_t d_tmem, std::uint64_t a_desc, std::uint64_t b_desc, std::uint32_t idesc,
                         bool accumulate) {
  model_detail::cta().mma_f16_ss(d_tmem, a_desc, b_desc, idesc, accumulate);
}
inline void umma_commit(std::uint64_t* bar) { model_detail::cta().mma_commit(smem_addr(bar)); }

inline void tmem_load_32cols(std::uint32_t (&r)[32], std::uint32_t taddr) {
  model_detail::cta().tmem_ld_32x32b(r, 32, taddr);
}
inline void tmem_load_64cols(std::uint32_t (&r)[64], std::uint32_t taddr) {
  model_detail::cta().tmem_ld_32x32b(r, 64, taddr);
}
inline void tmem_store_32cols(std::uint32_t taddr, const std::uint32_t (&r)[32]) {
  model_detail::cta().tmem_st_32x32b(r, 32, taddr);
}
inline void tmem_wait_ld() { model_detail::cta().tmem_wait_ld(); }
inline void tmem_wait_st() { model_detail::cta().tmem_wait_st(); }
// tcgen05.fence::before_thread_sync / ::after_thread_sync (9.7.16.6.3): edges in the race
// detector (race_detector.hpp).
inline void tc_fence_before_sync() {
  auto& c = model_detail::cta();
  c.races().fence_before_thread_sync(c.me().tid);
  c.scheduler().yield();
}
inline void tc_fence_after_sync() {
  auto& c = model_detail::cta();
  c.races().fence_after_thread_sync(c.me().tid);
  c.scheduler().yield();
}

inline void named_barrier_sync(int id, int threads) { model_detail::cta().bar_sync(id, threads); }

}  // namespace detail

// ex2.approx.ftz.f32 (9.7.4.x): 2^x with subnormal inputs and results flushed to zero. The
// hardware's approximation is not bit-exact; outputs are compared with tolerances.
inline float fast_exp2(float x) {
  if (std::fpclassify(x) == FP_SUBNORMAL) x = 0.0f;
  const float y = std::exp2(x);
  return std::fpclassify(y) == FP_SUBNORMAL ? 0.0f : y;
}
// cvt.rn.bf16x2.f32 d, a, b: a (here hi) to the upper half, b (lo) to the lower, each
// rounded to nearest even.
inline std::uint32_t pack_bf16x2(float lo, float hi) {
  return (std::uint32_t(::vsa::float_to_bf16(hi)) << 16) | ::vsa::float_to_bf16(lo);
}

}  // namespace vsa::sm100a
