#pragma once
// Host side of the forward: workspace layout, tensor maps, and the two stream-ordered
// launches (order kernel, then the persistent kernel with programmatic dependent launch).
// Templated on the tile config so a tuning driver can instantiate variants; the backend
// uses fwd::TileConfig (fwd_launch.cu).
#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "fwd_cta4_kernel.cuh"
#include "fwd_kernel.cuh"
#include "fwd_layout.hpp"
#include "fwd_order_kernels.cuh"
#include "variant.hpp"
#include "fwd_work_order.hpp"
#include "vsa/backend.hpp"

namespace vsa::sm90a::fwd {

// fwd_layout.hpp counts waves in three-group slots without the CUDA-facing headers (its unit
// test is plain C++); this ties its count to the layout it describes.
static_assert(kThreeGroupSlotsPerSm == ThreeGroups<TileConfig>::kConsumers,
              "fwd_layout.hpp's slots per SM must be the three-group layout's consumer count");

// Workspace: [scheduler counter | pad to 256 B][order: one int32 per work item]
// [order_counts: the count of each ordered item].
inline constexpr std::size_t kCounterBytes = 256;

[[nodiscard]] inline std::size_t order_bytes(const Shape& s) {
  return (std::size_t(s.count_elems()) * sizeof(std::int32_t) + 255) / 256 * 256;
}

[[nodiscard]] inline std::size_t workspace_bytes(const Shape& s) { return kCounterBytes + 2 * order_bytes(s); }

[[nodiscard]] inline Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::success();
  return Status::failure(std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

[[nodiscard]] inline Status check_args(const ForwardArgs& a) {
  const Shape& s = a.shape;
  if (s.block != kBlock || s.head_dim != kHeadDim) return Status::failure("sm90a forward needs BLK = 64 and D = 128");
  if (s.batch < 0 || s.heads < 0 || s.num_blocks < 0 || s.max_kv < 0) return Status::failure("negative shape field");
  if (s.bh() * s.seq() >= (std::int64_t(1) << 31))
    return Status::failure("B * H * S must stay below 2^31 rows (32-bit TMA coordinates)");
  if (!a.q || !a.k || !a.v || !a.q2k_num || !a.vbs || !a.out || !a.lse || !a.workspace)
    return Status::failure("null tensor or workspace pointer");
  if (s.max_kv > 0 && !a.q2k_idx) return Status::failure("null q2k_idx");
  return Status::success();
}

// pdl: launched as the programmatic dependent of the kernel before it (the order or reset
// kernel, which the forward waits for with griddepcontrol.wait); pair tiles have no kernel
// before them and launch in plain stream order.
template <class Cfg, bool kProbe, bool kPair>
[[nodiscard]] Status launch_persistent(const CUtensorMap& tm_q, const CUtensorMap& tm_k, const CUtensorMap& tm_v,
                                       const Params& params, int grid, cudaStream_t stream, bool pdl = true) {
  auto* kernel = &forward_kernel<Cfg, kProbe, kPair>;
  constexpr std::size_t smem = kSmemBytes<Cfg>;
  if (Status st = cuda_status(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
                              "cudaFuncSetAttribute(forward smem)");
      !st.ok())
    return st;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(grid));
  config.blockDim = dim3(unsigned(Cfg::kThreads));
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = pdl ? &attr : nullptr;
  config.numAttrs = pdl ? 1 : 0;
  return cuda_status(cudaLaunchKernelEx(&config, kernel, tm_q, tm_k, tm_v, params), "launch forward_kernel");
}

// The four-CTA layout (fwd_cta4_kernel.cuh): one CTA per item, in natural order, in plain
// stream order (nothing is sorted, no counter). The shared-memory carveout is asked at its
// largest so that the driver configures an SM for four CTAs' 50 KB each.
template <class Cfg, bool kProbe>
[[nodiscard]] Status launch_four_ctas(const CUtensorMap& tm_q, const CUtensorMap& tm_k, const CUtensorMap& tm_v,
                                      const Params& params, int n_items, cudaStream_t stream) {
  auto* kernel = &forward_cta4_kernel<FourCtas<Cfg>, kProbe>;
  constexpr std::size_t smem = kCta4SmemBytes<FourCtas<Cfg>>;
  static_assert(FourCtas<Cfg>::kCtasPerSm * (smem + kSmemReservedPerCta) <= kSmemPerSm,
                "four CTAs of the four-CTA layout must fit one SM's shared memory");
  if (Status st = cuda_status(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
                              "cudaFuncSetAttribute(four-CTA forward smem)");
      !st.ok())
    return st;
  if (Status st = cuda_status(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                                   int(cudaSharedmemCarveoutMaxShared)),
                              "cudaFuncSetAttribute(four-CTA forward carveout)");
      !st.ok())
    return st;
  kernel<<<dim3(unsigned(n_items)), dim3(unsigned(FourCtas<Cfg>::kThreads)), smem, stream>>>(tm_q, tm_k, tm_v, params);
  return cuda_status(cudaGetLastError(), "launch forward_cta4_kernel");
}

template <class Cfg>
[[nodiscard]] Status launch(const ForwardArgs& a) {
  if (Status st = check_args(a); !st.ok()) return st;
  const OrderChoice& order_choice = order_choice_from_env();
  if (!order_choice.error.empty()) return Status::failure(order_choice.error);
  const Shape& s = a.shape;
  const int n_items = int(s.count_elems());
  if (n_items == 0) return Status::success();
  const auto stream = static_cast<cudaStream_t>(a.stream);

  int device = 0, sm_count = 0;
  if (Status st = cuda_status(cudaGetDevice(&device), "cudaGetDevice"); !st.ok()) return st;
  if (Status st = cuda_status(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device),
                              "cudaDeviceGetAttribute(SM count)");
      !st.ok())
    return st;

  const std::uint64_t rows = std::uint64_t(s.bh() * s.seq());
  CUtensorMap tm_q, tm_k, tm_v;
  for (auto [map, base] :
       {std::pair{&tm_q, static_cast<const void*>(a.q)}, std::pair{&tm_k, static_cast<const void*>(a.k)},
        std::pair{&tm_v, static_cast<const void*>(a.v)}})
    if (Status st = make_tensor_map_bf16_sw128(map, base, rows, Cfg::kHeadDim, Cfg::kBlockQ, Cfg::kHalfCols); !st.ok())
      return st;

  auto* ws = static_cast<unsigned char*>(a.workspace);
  Params params{};
  params.q2k_idx = a.q2k_idx;
  params.q2k_num = a.q2k_num;
  params.vbs = a.vbs;
  params.out = a.out;
  params.lse = a.lse;
  params.next_work = reinterpret_cast<std::int32_t*>(ws);
  auto* order = reinterpret_cast<std::int32_t*>(ws + kCounterBytes);
  auto* order_counts = reinterpret_cast<std::int32_t*>(ws + kCounterBytes + order_bytes(s));
  params.order = order;
  params.order_counts = order_counts;
  params.n_items = n_items;
  params.num_blocks = s.num_blocks;
  params.max_kv = s.max_kv;
  params.scale_log2 = float(1.4426950408889634 / std::sqrt(double(s.head_dim)));
  params.probe_release_kv_ns = a.probes.nanoseconds[kProbeFwdReleaseKv];
  params.probe_epilogue_ns = a.probes.nanoseconds[kProbeFwdEpilogue];
  params.trace = a.trace;
  params.hang_watch = a.hang_watch;

  // The four-CTA layout (fwd_layout.hpp): by its rule, unless a variable forces a layout or an
  // order, or the call records a timeline. Read at every call (getenv, next to a launch).
  const LayoutOverride layout_env = parse_layout_env(std::getenv("VSA_SM90A_FWD_THREE_GROUPS"));
  if (!layout_env.error.empty()) return Status::failure(layout_env.error);
  FourCtasAsk four_ask;
  four_ask.env = parse_four_ctas_env(std::getenv("VSA_SM90A_FWD_FOUR_CTAS"));
  four_ask.other_layout_forced = layout_env.forced;
  four_ask.trace = a.trace != nullptr;
  four_ask.order_forced = order_choice.kind != OrderKind::kRule;
  four_ask.max_kv = s.max_kv;
  four_ask.n_items = n_items;
  four_ask.sm_count = sm_count;
  const FourCtasDecision four = decide_four_ctas(four_ask);
  if (!four.error.empty()) return Status::failure(four.error);
  // Pair tiles (an A/B variant, fwd_pair_producer.cuh): a ticket is two items in a static
  // order, nothing is sorted and no counter is used, so the forward is the call's only launch.
  // Heads longer than the producers' block maps (kPairMaxBlocks) run the default order.
  const bool pair = order_choice.kind == OrderKind::kPairTiles && s.num_blocks <= kPairMaxBlocks;
  VariantAsk ask{a.trace != nullptr, a.probes.any(), a.hang_watch.on(), false, pair};
  if (four.four)  // never with a timeline (decide_four_ctas): the probe or the normal variant
    return variant_for(ask) == Variant::kProbe
               ? launch_four_ctas<Cfg, true>(tm_q, tm_k, tm_v, params, n_items, stream)
               : launch_four_ctas<Cfg, false>(tm_q, tm_k, tm_v, params, n_items, stream);
  if (pair) {
    const Variant pair_variant = variant_for(ask);
    if (pair_variant == Variant::kTraceOnly) return Status::failure("sm90a forward: no trace-only pair-tile kernel");
    const bool probe = pair_variant == Variant::kProbe;
    const int grid = forward_grid(sm_count, (n_items + 1) / 2, 1);
    params.natural_first = n_items;
    // Diagnostic (run 35): the pair kernel with no block shared, to tell the ring's coupling
    // from the shared blocks' own cost.
    params.pair_share = env_on(std::getenv("VSA_SM90A_FWD_PAIR_NO_SHARE")) ? 0 : 1;
    params.order = params.order_counts = nullptr;
    return probe ? launch_persistent<Cfg, true, true>(tm_q, tm_k, tm_v, params, grid, stream, false)
                 : launch_persistent<Cfg, false, true>(tm_q, tm_k, tm_v, params, grid, stream, false);
  }

  // The CTA layout (fwd_layout.hpp): three consumer groups for long items in long launches.
  const Layout layout = layout_env.forced ? layout_env.layout : layout_by_rule(s.max_kv, n_items, sm_count);
  const bool three = layout == Layout::kThreeGroups;
  const int consumers = three ? ThreeGroups<Cfg>::kConsumers : Cfg::kConsumers;
  const int grid = forward_grid(sm_count, n_items, consumers);
  // Which items skip the sort and how the rest is sorted (fwd_work_order.hpp).
  const WorkOrder work = work_order_for(
      order_choice.kind == OrderKind::kPairTiles ? OrderKind::kRule : order_choice.kind, n_items, grid, consumers);
  params.natural_first = work.natural_first;
  const int n_sorted = n_items - params.natural_first;
  if (n_sorted == 0) {
    params.order = params.order_counts = nullptr;
    reset_ticket_counter<<<1, 32, 0, stream>>>(params.next_work);
    if (Status st = cuda_status(cudaGetLastError(), "launch reset_ticket_counter"); !st.ok()) return st;
  } else {
    ItemCounts counts{a.q2k_num + params.natural_first, n_sorted, nullptr};
    int max_count = s.max_kv;
    if (work.head_segments) {
      // Heads in natural order, longest first inside each (the det backward's key, run 23);
      // the sort then has keys, not counts, so it writes no counts and the producer reads q2k_num.
      counts.per_segment = s.num_blocks;
      counts.segments = (n_sorted + s.num_blocks - 1) / s.num_blocks;
      counts.key_stride = s.max_kv + 1;
      max_count = counts.segments * (s.max_kv + 1) - 1;
      params.order_counts = nullptr;
    }
    order_longest_first<kOrderThreads><<<1, kOrderThreads, 0, stream>>>(
        counts, n_sorted, max_count, order, work.head_segments ? nullptr : order_counts, params.next_work);
    if (Status st = cuda_status(cudaGetLastError(), "launch order_longest_first"); !st.ok()) return st;
  }

  // Which code runs (variant.hpp): waits bounded by a hang watch, and probe delays, in the
  // probe variant only; a timeline alone on the trace-only variant where there is one.
  ask.three_groups = three;
  const Variant variant = variant_for(ask);
  if (three && variant == Variant::kTraceOnly)
    return Status::failure("sm90a forward: no trace-only three-group kernel");
  if (three)
    return variant == Variant::kProbe
               ? launch_persistent<ThreeGroups<Cfg>, true, false>(tm_q, tm_k, tm_v, params, grid, stream)
               : launch_persistent<ThreeGroups<Cfg>, false, false>(tm_q, tm_k, tm_v, params, grid, stream);
  switch (variant) {
    case Variant::kProbe:
      return launch_persistent<Cfg, true, false>(tm_q, tm_k, tm_v, params, grid, stream);
    case Variant::kTraceOnly:
      return launch_persistent<TraceOnly<Cfg>, false, false>(tm_q, tm_k, tm_v, params, grid, stream);
    case Variant::kNormal:
      break;
  }
  return launch_persistent<Cfg, false, false>(tm_q, tm_k, tm_v, params, grid, stream);
}

}  // namespace vsa::sm90a::fwd
