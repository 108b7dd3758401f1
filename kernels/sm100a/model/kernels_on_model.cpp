// The real kernels/sm100a role files compiled for the host (this file is built with
// -include model/prelude.hpp, which defines VSA_SM100A_MODEL: sm100a_ptx.cuh then takes its
// PTX wrappers from model/ptx_model.hpp) and launched on the model, one CTA at a time.
#include "kernels_on_model.hpp"

#include <cstring>
#include <mutex>
#include <sstream>
#include <vector>

#include "bwd_host_params.hpp"
#include "bwd_kernel.cuh"
#include "fwd_host_params.hpp"
#include "fwd_kernel.cuh"
#include "launch.hpp"
#include "model/cta.hpp"

// `extern __shared__ unsigned char smem_raw[]` in each kernel names these (one per kernel
// namespace). Sized for the kernel's request; one CTA at a time uses them (g_model_lock).
namespace vsa::sm100a::fwd {
alignas(1024) unsigned char smem_raw[kSmemBytes<Blk64>];
}
namespace vsa::sm100a::fwd128 {
alignas(1024) unsigned char smem_raw[fwd::kSmemBytes<fwd::Blk128>];
}
namespace vsa::sm100a::bwd {
alignas(1024) unsigned char smem_raw[kSmemBytes];
}

#ifdef VSA_MODEL_PLANTED
// The planted build's vsa::sm100a is renamed (prelude.hpp); its host helpers reach the
// hardware backends' shape rules through these.
namespace vsa::sm100a {
Support blk64_shape_support(const Shape& s) { return ::vsa::model::shape_support_blk64(s); }
Support blk128_shape_support(const Shape& s) { return ::vsa::model::shape_support_blk128(s); }
Support blk64_backward_shape_support(const Shape& s) { return ::vsa::model::shape_support_blk64_backward(s); }
}  // namespace vsa::sm100a
#define VSA_MODEL_API_BEGIN namespace planted {
#define VSA_MODEL_API_END }
#else
#define VSA_MODEL_API_BEGIN
#define VSA_MODEL_API_END
#endif

namespace vsa::model {

namespace {

std::mutex g_model_lock;

// The mbarrier names of a protocol table ("s_full[1]"), at the addresses the kernel's
// storage_at_1024 places them.
template <const sm100a::protocol::Protocol& kP, class Storage>
void name_barriers(Cta& cta, unsigned char* smem_raw) {
  const std::uint32_t raw = cta.smem_address(smem_raw);
  const std::uint32_t storage = (raw + 1023u) & ~1023u;
  const std::uint32_t bars = storage + std::uint32_t(offsetof(Storage, bars));
  for (int b = 0; b < kP.barrier_count; ++b) {
    const int slots = kP.ring_size(kP.barriers[b].ring);
    for (int i = 0; i < slots; ++i) {
      std::string name = kP.barriers[b].name;
      if (slots > 1) name += "[" + std::to_string(i) + "]";
      cta.name_barrier(bars + 8u * std::uint32_t(kP.barrier_slot(std::uint8_t(b), i)), name);
    }
  }
}

// Every CTA of the grid in turn; the kernel body runs on every fiber of the CTA.
template <class RoleOf, class Setup, class Body>
Status run_grid(const char* kernel, unsigned grid, unsigned threads, unsigned char* smem, std::size_t smem_bytes,
                const RunOptions& options, RoleOf role_of, Setup setup, Body body) {
  const std::lock_guard<std::mutex> lock(g_model_lock);
  for (unsigned block = 0; block < grid; ++block) {
    Scheduler sched(int(threads), ScheduleOptions{options.seed == 0 ? 0 : options.seed * 1000003u + block});
    sched.set_role_of([role_of](int warp) { return std::string(role_of(warp)); });
    // Uninitialised shared memory: a recognisable pattern, never zeros that could pass.
    std::memset(smem, 0xA5, smem_bytes);
    Cta cta(sched, smem, smem_bytes, CtaPlace{block, grid, threads});
    cta.races().set_label(std::string(kernel) + " CTA " + std::to_string(block));
    set_current_cta(&cta);
    try {
      setup(cta);
      sched.run([&](FiberThread&) { body(); });
      cta.check_exit();
    } catch (const ModelError& e) {
      set_current_cta(nullptr);
      std::ostringstream os;
      os << "model: " << kernel << " CTA " << block << " (schedule seed " << options.seed << "): " << e.what();
      return Status::failure(os.str());
    }
    set_current_cta(nullptr);
  }
  return Status::success();
}

const char* fwd_role(int warp) { return sm100a::protocol::role_name(sm100a::fwd::warp_role(warp)); }
const char* bwd_role(int warp) { return sm100a::protocol::role_name(sm100a::bwd::warp_role(warp)); }

}  // namespace

VSA_MODEL_API_BEGIN

Status run_forward_blk64(const ForwardArgs& a, const RunOptions& options) {
  using namespace sm100a;
  if (Status st = fwd_host::check_forward_args(a, blk64_shape_support(a.shape), "sm100a-blk64@model"); !st.ok())
    return st;
  if (a.shape.count_elems() == 0) return Status::success();
  CUtensorMap maps[4];
  if (Status st = fwd_host::encode_qkvo_maps(maps, a, fwd::Blk64::kHeadDim, fwd::Blk64::kBlock, fwd::Blk64::kHalfCols);
      !st.ok())
    return st;
  const fwd::Params params = fwd_host::forward_params(a);
  const unsigned grid = unsigned(a.shape.count_elems() / fwd::Blk64::kQBlocks);
  const bool probe = a.probes.any();
  return run_grid(
      "sm100a.fwd_blk64", grid, fwd::Blk64::kThreads, fwd::smem_raw, fwd::kSmemBytes<fwd::Blk64>, options, fwd_role,
      [](Cta& cta) {
        name_barriers<fwd::ProtocolOf<fwd::Blk64>::value, fwd::SharedStorage<fwd::Blk64>>(cta, fwd::smem_raw);
      },
      [&] {
        if (probe)
          fwd::forward_kernel<true>(maps[0], maps[1], maps[2], maps[3], params);
        else
          fwd::forward_kernel<false>(maps[0], maps[1], maps[2], maps[3], params);
      });
}

Status run_forward_blk128(const ForwardArgs& a, const RunOptions& options) {
  using namespace sm100a;
  if (Status st = fwd_host::check_forward_args(a, blk128_shape_support(a.shape), "sm100a-blk128@model"); !st.ok())
    return st;
  if (a.shape.count_elems() == 0) return Status::success();
  CUtensorMap maps[4];
  if (Status st =
          fwd_host::encode_qkvo_maps(maps, a, fwd::Blk128::kHeadDim, fwd::Blk128::kBlock, fwd::Blk128::kHalfCols);
      !st.ok())
    return st;
  const fwd::Params params = fwd_host::forward_params(a);
  const unsigned grid = unsigned(a.shape.count_elems());
  const bool probe = a.probes.any();
  return run_grid(
      "sm100a.fwd_blk128", grid, fwd::Blk128::kThreads, fwd128::smem_raw, fwd::kSmemBytes<fwd::Blk128>, options,
      fwd_role,
      [](Cta& cta) {
        name_barriers<fwd::ProtocolOf<fwd::Blk128>::value, fwd::SharedStorage<fwd::Blk128>>(cta, fwd128::smem_raw);
      },
      [&] {
        if (probe)
          fwd128::forward_kernel<true>(maps[0], maps[1], maps[2], maps[3], params);
        else
          fwd128::forward_kernel<false>(maps[0], maps[1], maps[2], maps[3], params);
      });
}

namespace {
struct BwdWorkspace {
  std::size_t delta = 0, dq_accum = 0, total = 0;
  explicit BwdWorkspace(const Shape& s) {
    dq_accum = (std::size_t(s.row_elems()) * sizeof(float) + 255) / 256 * 256;
    total = dq_accum + std::size_t(s.tensor_elems()) * sizeof(float);
  }
};
}  // namespace

VSA_MODEL_API_END
#ifndef VSA_MODEL_PLANTED
std::size_t workspace_bytes_backward(const Shape& shape) { return BwdWorkspace(shape).total; }
#endif
VSA_MODEL_API_BEGIN

Status run_backward_blk64(const BackwardArgs& a, const RunOptions& options) {
  using namespace sm100a;
  if (Status st = bwd_host::check_args(a); !st.ok()) return st;
  const Shape& s = a.shape;
  if (s.count_elems() == 0) return Status::success();
  const BwdWorkspace layout(s);
  auto* ws = static_cast<unsigned char*>(a.workspace);
  auto* delta = reinterpret_cast<float*>(ws + layout.delta);
  auto* dq_accum = reinterpret_cast<float*>(ws + layout.dq_accum);
  // Delta = rowsum(O * dO) in fp32, as kernels/common/delta_preprocess.cu (its lane-strided
  // partial sums, then the shuffle tree).
  for (std::int64_t r = 0; r < s.row_elems(); ++r) {
    float part[32] = {};
    for (int d = 0; d < s.head_dim; ++d)
      part[d % 32] =
          std::fma(bf16_to_float(a.out[r * s.head_dim + d]), bf16_to_float(a.d_out[r * s.head_dim + d]), part[d % 32]);
    for (int m = 16; m > 0; m /= 2)
      for (int l = 0; l < m; ++l) part[l] += part[l + m];
    delta[r] = part[0];
  }
  std::memset(dq_accum, 0, std::size_t(s.tensor_elems()) * sizeof(float));
  CUtensorMap maps[4];
  if (Status st = bwd_host::encode_maps(maps, a); !st.ok()) return st;
  const bwd::Params params = bwd_host::backward_params(a, delta, dq_accum, nullptr);
  bool probe = false;
  for (std::uint32_t ns : params.probe_ns) probe = probe || ns != 0;
  if (Status st = run_grid(
          "sm100a.bwd_blk64", unsigned(s.count_elems()), bwd::Config::kThreads, bwd::smem_raw, bwd::kSmemBytes, options,
          bwd_role, [](Cta& cta) { name_barriers<bwd::kProtocol, bwd::SharedStorage>(cta, bwd::smem_raw); },
          [&] {
            if (probe)
              bwd::backward_kernel<true>(maps[0], maps[1], maps[2], maps[3], params);
            else
              bwd::backward_kernel<false>(maps[0], maps[1], maps[2], maps[3], params);
          });
      !st.ok())
    return st;
  // dQ = bf16(scale * accumulator), as kernels/common/dq_postprocess.cu.
  for (std::int64_t i = 0; i < s.tensor_elems(); ++i) a.dq[i] = float_to_bf16(dq_accum[i] * params.scale);
  return Status::success();
}

VSA_MODEL_API_END

}  // namespace vsa::model
