// fastvideo-tk: a vsa-bench plugin (docs/plugins.md) around FastVideo's ThunderKittens H100
// VSA kernels, forward and backward, so the harness checks and times them beside sm90a.
//
// The upstream file (hao-ai-lab/FastVideo fastvideo-kernel/csrc/attention/block_sparse_h100.cu,
// with HazyResearch/ThunderKittens include/) is fetched by scripts/peers/fetch_fastvideo_tk.sh
// into the ignored .peers/fastvideo_tk and #included below unchanged; only this adapter is ours.
// Its torch bindings are compiled against inert stand-ins and never called
// (torch_stub/fastvideo_tk_torch_stub.h says why); this file launches the kernel templates
// itself, as those bindings do, with vsa-bench's tensors and stream.
//
// The lse stays in TK's own form: the backend declares it (lse_factor, plugin ABI 2, the
// relation below), and vsa-bench converts outside the timed calls, after the forward and
// before the backward. What a call does beyond upstream's kernels (all on the device, on the
// given stream, so the harness times it, like torch's zeroing and casts around the upstream op):
//  - forward: nothing; fwd_attend_ker<D> writes its lse into our lse buffer;
//  - backward: one memset zeroes the fp32 dQ/dK/dV accumulators (the kernels add into them
//    with TMA reduce-adds), then bwd_attend_prep_ker<D> (D_i = rowsum(dO * O)) and
//    bwd_attend_ker<D> run on our lse buffer, and grads_to_bf16 rounds the three fp32
//    gradients into our bf16 outputs.
// TK_PLUGIN_KERNELS_ONLY=1 in the environment (read once, at load) skips the zeroing and the
// casts: the upstream kernels alone are timed and the backward's outputs are NOT valid
// (suites/tk-perf-kernels-only.json has no reference for that reason).
// TK_PLUGIN_FWD_CTAS_PER_SM=N (1-4; read at load) launches the forward with as much dynamic
// shared memory as leaves room for exactly N of its CTAs per SM (upstream's 54000 bytes allow
// 4), checked with the occupancy API. An experiment, not a way to run TK (issue 22, run 61):
// it asks how much of TK's forward speed at small S comes from four resident CTAs per SM.
//
// The lse relation. docs/spec.md: x = q.k / sqrt(D), m = max x, l = sum exp(x - m), and
//   lse_ours = log2(e) * (m + ln l)                                  (base 2, "M format").
// fwd_attend_ker keeps the running max of the raw dot q.k, exponentiates in base 2 with the
// factor log2(e)/sqrt(D), turns the max back into natural units with ln 2 at the end, and
// stores (m + ln l) multiplied by -8 (D = 64) or -11.313708499 (D = 128), i.e. by -sqrt(D):
//   lse_tk = -sqrt(D) * (m + ln l) = -sqrt(D) * ln2 * lse_ours.
// bwd_attend_ker loads lse_tk as the initial accumulator of S^T = K Q^T, so it holds
// q.k - sqrt(D) * (m + ln l) = sqrt(D) * (x - m - ln l), and exp2 of that times log2(e)/sqrt(D)
// is P = exp(x - m - ln l): the same relation, which is how the backward needs lse_tk.
// So lse_tk = lse_ours * (-c * ln 2), with c = 8 or 11.313708499f, upstream's own literals for
// sqrt(D): that is the factor lse_factor() declares.
//
// Limits (supports_shape / supports): blk 64 (BLOCK_M = BLOCK_N = 64 upstream), D 64 or 128
// (the only instantiations), B = 1 (the upstream forward binding rejects any other batch),
// compute capability 9.0 (sm_90a image: wgmma, TMA), 227000 bytes of opt-in shared memory per
// block (the backward's prep kernel is launched with ThunderKittens' MAX_SHARED_MEMORY). Not
// refusable by shape: a q2k row with no key block makes fwd_attend_ker wait forever on a TMA
// barrier (its last-block step runs with index -1), so the backend HANGs on such a case
// (patterns ragged and zero_rows make them; topk, dense and video never do). FastVideo's own
// top-k always selects at least one block, so this is outside what upstream promises.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "vsa/plugin.h"

// Upstream, unchanged. nvcc 13.0 warns about three things in it, all harmless and upstream's:
// 2361 (narrowing of blockIdx's unsigned into ThunderKittens' int coords, in the kernels), 177
// (variables the backward kernel declares and never uses) and 191 (static_cast<const uint> in
// the torch bindings). They are silenced for this include only, so the build output shows
// warnings of this adapter alone (plus ptxas' spill report for upstream's bwd_attend_ker<64>,
// which --warn-on-spills asks for on purpose: README.md).
#pragma nv_diag_suppress 2361
#pragma nv_diag_suppress 191
#pragma nv_diag_suppress 177
#include "attention/block_sparse_h100.cu"
#pragma nv_diag_default 177
#pragma nv_diag_default 191
#pragma nv_diag_default 2361

namespace tk_adapter {

// A CUresult from the last failed tensor-map encode (ThunderKittens only prints it).
CUresult g_encode_error = CUDA_SUCCESS;

template <typename Fn>
Fn driver_entry(const char* name) {
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &entry, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Fn>(entry);
}

}  // namespace tk_adapter

// The two driver functions ThunderKittens' gl constructors call (tma::detail::create_tensor_map).
// Linking libcuda would make the library fail dlopen where there is no driver (docs/plugins.md,
// "Keep the library loadable without a driver"), so they are defined here and resolved through
// the static runtime at first use. Hidden, and local by the SDK's version script: they never
// interpose on the process's libcuda.
extern "C" CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                                                   void* address, const cuuint64_t* dims, const cuuint64_t* strides,
                                                   const cuuint32_t* box, const cuuint32_t* element_strides,
                                                   CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                                   CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  static const auto encode = tk_adapter::driver_entry<PFN_cuTensorMapEncodeTiled_v12000>("cuTensorMapEncodeTiled");
  const CUresult r =
      encode ? encode(map, type, rank, address, dims, strides, box, element_strides, interleave, swizzle, l2, oob)
             : CUDA_ERROR_NOT_FOUND;
  if (r != CUDA_SUCCESS && tk_adapter::g_encode_error == CUDA_SUCCESS) tk_adapter::g_encode_error = r;
  return r;
}

extern "C" CUresult CUDAAPI cuGetErrorString(CUresult error, const char** text) {
  static const auto get = tk_adapter::driver_entry<PFN_cuGetErrorString_v6000>("cuGetErrorString");
  if (get) return get(error, text);
  *text = "cuGetErrorString is not available from the driver";
  return CUDA_ERROR_NOT_FOUND;
}

namespace tk_adapter {

constexpr double kLn2 = 0.6931471805599453;
constexpr int kBlock = 64;       // BLOCK_M = BLOCK_N upstream
constexpr int kFwdSmem = 54000;  // dynamic shared memory of upstream's launches
constexpr int kBwdSmem64 = 72000;
constexpr int kBwdSmem128 = 113000;
constexpr int kPrepSmem = kittens::MAX_SHARED_MEMORY;
constexpr int kThreads = 256;

// Upstream's literal for sqrt(D) in the lse (see the relation at the top).
constexpr float tk_sqrt_d(int d) { return d == 64 ? 8.0f : 11.313708499f; }

// TK's lse form as vsa-bench's lse_factor: lse_tk = lse_ours * (-sqrt(D) * ln 2), with
// upstream's sqrt(D) literal (the relation at the top).
double lse_factor(void*, const vsa_plugin_shape* s) { return -double(tk_sqrt_d(s->head_dim)) * kLn2; }

// dq, dk, dv (bf16, round to nearest even) from the fp32 qg, kg, vg that lie back to back in
// the workspace, quads elements of 4 floats each.
__global__ void grads_to_bf16(const float4* __restrict__ grads, uint2* __restrict__ dq, uint2* __restrict__ dk,
                              uint2* __restrict__ dv, std::int64_t quads) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < 3 * quads;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const float4 f = grads[i];
    const std::int64_t which = i / quads, j = i - which * quads;
    uint2* dst = which == 0 ? dq : (which == 1 ? dk : dv);
    const unsigned a = __bfloat16_as_ushort(__float2bfloat16_rn(f.x));
    const unsigned b = __bfloat16_as_ushort(__float2bfloat16_rn(f.y));
    const unsigned c = __bfloat16_as_ushort(__float2bfloat16_rn(f.z));
    const unsigned d = __bfloat16_as_ushort(__float2bfloat16_rn(f.w));
    dst[j] = make_uint2(a | (b << 16), c | (d << 16));
  }
}

unsigned grid_for(std::int64_t n) {
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  return unsigned(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096);
}

const bool g_kernels_only = [] {
  const char* v = std::getenv("TK_PLUGIN_KERNELS_ONLY");
  return v != nullptr && std::strcmp(v, "1") == 0;
}();

// TK_PLUGIN_FWD_CTAS_PER_SM: 0 when unset (upstream's launch), 1-4, or -1 for any other value
// (every forward then fails with the variable's name, rather than time upstream's launch
// under a label that says otherwise).
const int g_fwd_ctas_per_sm = [] {
  const char* v = std::getenv("TK_PLUGIN_FWD_CTAS_PER_SM");
  if (v == nullptr) return 0;
  return std::strlen(v) == 1 && v[0] >= '1' && v[0] <= '4' ? v[0] - '0' : -1;
}();

// ---- shapes ----

std::int64_t rows_of(const vsa_plugin_shape& s) { return std::int64_t(s.batch) * s.heads * s.num_blocks * s.block; }

std::size_t align256(std::size_t n) { return (n + 255) & ~std::size_t(255); }

// Backward workspace: D_i [rows], then qg, kg, vg [rows * D] fp32, back to back.
struct BwdLayout {
  std::size_t dvec, grads, total;
};
BwdLayout bwd_layout(const vsa_plugin_shape& s) {
  const std::size_t rows = std::size_t(rows_of(s)), vec = align256(rows * sizeof(float));
  const std::size_t grad = rows * std::size_t(s.head_dim) * sizeof(float);  // a multiple of 256 (rows % 64 == 0)
  return {0, vec, vec + 3 * grad};
}

int refuse(char* reason, std::size_t n, const char* fmt, int value) {
  std::snprintf(reason, n, fmt, value);
  return 0;
}

int supports_shape(void*, const vsa_plugin_shape* s, uint32_t, char* reason, std::size_t n) {
  if (s->block != kBlock)
    return refuse(reason, n,
                  "blk %d: the TK kernels take 64-token blocks only (BLOCK_M = BLOCK_N = 64 in block_sparse_h100.cu)",
                  s->block);
  if (s->head_dim != 64 && s->head_dim != 128)
    return refuse(reason, n, "D %d: the TK kernels are instantiated for head_dim 64 and 128 only", s->head_dim);
  if (s->batch != 1)
    return refuse(reason, n, "B %d: FastVideo's TK binding takes batch 1 only (its forward checks batch == 1)",
                  s->batch);
  if (s->heads > 65535) return refuse(reason, n, "H %d: the TK kernels put heads on grid.y (at most 65535)", s->heads);
  if (s->max_kv < 1)
    return refuse(reason, n,
                  "max_kv %d: every q2k row would be empty, and the TK forward hangs on a row with no key block",
                  s->max_kv);
  return 1;
}

int supports(void* ctx, const vsa_plugin_device* dev, const vsa_plugin_shape* s, uint32_t op, char* reason,
             std::size_t n) {
  if (dev->ordinal < 0) return std::snprintf(reason, n, "no CUDA device"), 0;
  if (dev->cc_major != 9 || dev->cc_minor != 0)
    return std::snprintf(reason, n,
                         "needs compute capability 9.0 (sm_90a image: ThunderKittens wgmma/TMA); device is %d.%d",
                         dev->cc_major, dev->cc_minor),
           0;
  if (dev->smem_per_block_optin < std::uint64_t(kPrepSmem))
    return std::snprintf(reason, n,
                         "needs %d bytes of opt-in shared memory per block (the backward prep kernel's launch), "
                         "device has %llu",
                         kPrepSmem, static_cast<unsigned long long>(dev->smem_per_block_optin)),
           0;
  return supports_shape(ctx, s, op, reason, n);
}

uint64_t workspace_bytes(void*, const vsa_plugin_shape* s, uint32_t op) {
  return op == VSA_PLUGIN_OP_BACKWARD ? bwd_layout(*s).total : 0;
}

// ---- launches (as upstream's bindings launch the kernels: same grids, threads, shared memory) ----

int fail(char* error, std::size_t n, const char* what, cudaError_t e) {
  std::snprintf(error, n, "%s: %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
  return 1;
}

int encode_failed(char* error, std::size_t n) {
  if (g_encode_error == CUDA_SUCCESS) return 0;
  const char* text = nullptr;
  cuGetErrorString(g_encode_error, &text);
  std::snprintf(error, n, "cuTensorMapEncodeTiled failed (CUresult %d: %s)", int(g_encode_error), text ? text : "?");
  g_encode_error = CUDA_SUCCESS;
  return 1;
}

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

template <typename T>
bf16* as_bf16(const T* p) {
  return reinterpret_cast<bf16*>(const_cast<T*>(p));
}

// The forward's dynamic shared memory for exactly `ctas` resident CTAs per SM: the SM's
// shared memory split `ctas` ways, less each CTA's reserved and static part, so a further CTA
// does not fit. nullptr when the occupancy API confirms it; else why not.
template <int D>
const char* fwd_occupancy_smem(int ctas, int& smem) {
  if (ctas < 1) return "must be 1, 2, 3 or 4";
  int device = 0, per_sm = 0, reserved = 0;
  cudaFuncAttributes attr{};
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device) != cudaSuccess ||
      cudaFuncGetAttributes(&attr, fwd_attend_ker<D>) != cudaSuccess) {
    (void)cudaGetLastError();
    return "the device's shared-memory limits could not be read";
  }
  smem = per_sm / ctas - reserved - int(attr.sharedSizeBytes);
  if (smem < kFwdSmem) return "fewer bytes than upstream's 54000 would be left per CTA";
  int fits = 0;
  if (cudaFuncSetAttribute(fwd_attend_ker<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fits, fwd_attend_ker<D>, 128, std::size_t(smem)) != cudaSuccess) {
    (void)cudaGetLastError();
    return "the occupancy API refused the launch";
  }
  return fits == ctas ? nullptr : "the occupancy API gives another count of CTAs per SM";
}

template <int D>
int forward_d(const vsa_plugin_forward_args& a, char* error, std::size_t n) {
  const vsa_plugin_shape& s = a.shape;
  const unsigned B = unsigned(s.batch), H = unsigned(s.heads), S = unsigned(s.num_blocks) * kBlock;
  const cudaStream_t stream = static_cast<cudaStream_t>(a.stream);
  using G = fwd_globals<D>;
  typename G::q_gl q{as_bf16(a.q), B, H, S, unsigned(D)};
  typename G::k_gl k{as_bf16(a.k), B, H, S, unsigned(D)};
  typename G::v_gl v{as_bf16(a.v), B, H, S, unsigned(D)};
  typename G::l_gl l{a.lse, B, H, 1u, S};
  typename G::o_gl o{as_bf16(a.out), B, H, S, unsigned(D)};
  if (encode_failed(error, n)) return 1;
  const G g{q,
            k,
            v,
            l,
            o,
            int(S),
            1,
            s.max_kv,
            const_cast<int32_t*>(a.q2k_idx),
            const_cast<int32_t*>(a.q2k_num),
            const_cast<int32_t*>(a.vbs)};
  int smem = kFwdSmem;
  if (g_fwd_ctas_per_sm != 0) {
    // Worked out once per D and process (the plugin is loaded per worker, on one device), so
    // the timed calls make upstream's runtime calls and no more.
    static int occupancy_smem = 0;
    static const char* const why = fwd_occupancy_smem<D>(g_fwd_ctas_per_sm, occupancy_smem);
    smem = occupancy_smem;
    if (why != nullptr) {
      std::snprintf(error, n, "TK_PLUGIN_FWD_CTAS_PER_SM: %s", why);
      return 1;
    }
  }
  cudaError_t e = cudaFuncSetAttribute(fwd_attend_ker<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (e != cudaSuccess) return fail(error, n, "cudaFuncSetAttribute(fwd_attend_ker)", e);
  fwd_attend_ker<D><<<dim3(unsigned(s.num_blocks), H, B), 128, smem, stream>>>(g);
  if ((e = cudaGetLastError()) != cudaSuccess) return fail(error, n, "fwd_attend_ker", e);
  return 0;
}

template <int D>
int backward_d(const vsa_plugin_backward_args& a, char* error, std::size_t n) {
  const vsa_plugin_shape& s = a.shape;
  const unsigned B = unsigned(s.batch), H = unsigned(s.heads), S = unsigned(s.num_blocks) * kBlock;
  const cudaStream_t stream = static_cast<cudaStream_t>(a.stream);
  const std::int64_t rows = rows_of(s), elements = rows * D;
  const BwdLayout layout = bwd_layout(s);
  char* ws = static_cast<char*>(a.workspace);
  float* dvec = reinterpret_cast<float*>(ws + layout.dvec);
  float* qg = reinterpret_cast<float*>(ws + layout.grads);
  float* kg = qg + elements;
  float* vg = kg + elements;
  // Already in TK's form (lse_factor): vsa-bench converted it before the call.
  float* lse_tk = const_cast<float*>(a.lse);
  cudaError_t e = cudaSuccess;
  if (!g_kernels_only) {
    e = cudaMemsetAsync(qg, 0, 3 * std::size_t(elements) * sizeof(float), stream);
    if (e != cudaSuccess) return fail(error, n, "cudaMemsetAsync(dQ, dK, dV fp32)", e);
  }

  using P = bwd_prep_globals<D>;
  typename P::og_gl prep_og{as_bf16(a.d_out), B, H, S, unsigned(D)};
  typename P::o_gl prep_o{as_bf16(a.out), B, H, S, unsigned(D)};
  typename P::d_gl prep_d{dvec, B, H, 1u, S};
  if (encode_failed(error, n)) return 1;
  const P prep{prep_og, prep_o, prep_d};
  e = cudaFuncSetAttribute(bwd_attend_prep_ker<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, kPrepSmem);
  if (e != cudaSuccess) return fail(error, n, "cudaFuncSetAttribute(bwd_attend_prep_ker)", e);
  const unsigned prep_blocks = S / unsigned(PREP_NUM_WARPS * kittens::TILE_ROW_DIM<bf16> * 4);
  bwd_attend_prep_ker<D><<<dim3(prep_blocks, H, B), PREP_NUM_WARPS * kittens::WARP_THREADS, kPrepSmem, stream>>>(prep);
  if ((e = cudaGetLastError()) != cudaSuccess) return fail(error, n, "bwd_attend_prep_ker", e);

  using G = bwd_globals<D>;
  typename G::q_gl q{as_bf16(a.q), B, H, S, unsigned(D)};
  typename G::k_gl k{as_bf16(a.k), B, H, S, unsigned(D)};
  typename G::v_gl v{as_bf16(a.v), B, H, S, unsigned(D)};
  typename G::og_gl og{as_bf16(a.d_out), B, H, S, unsigned(D)};
  typename G::qg_gl qg_arg{qg, B, H, S, unsigned(D)};
  typename G::kg_gl kg_arg{kg, B, H, S, unsigned(D)};
  typename G::vg_gl vg_arg{vg, B, H, S, unsigned(D)};
  typename G::l_gl l{lse_tk, B, H, 1u, S};
  typename G::d_gl d{dvec, B, H, 1u, S};
  if (encode_failed(error, n)) return 1;
  const G g{q,
            k,
            v,
            og,
            qg_arg,
            kg_arg,
            vg_arg,
            l,
            d,
            int(S),
            1,
            s.max_q,
            const_cast<int32_t*>(a.k2q_idx),
            const_cast<int32_t*>(a.k2q_num),
            const_cast<int32_t*>(a.vbs)};
  constexpr int smem = D == 64 ? kBwdSmem64 : kBwdSmem128;
  e = cudaFuncSetAttribute(bwd_attend_ker<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (e != cudaSuccess) return fail(error, n, "cudaFuncSetAttribute(bwd_attend_ker)", e);
  bwd_attend_ker<D><<<dim3(unsigned(s.num_blocks), H, B), 128, smem, stream>>>(g);
  if ((e = cudaGetLastError()) != cudaSuccess) return fail(error, n, "bwd_attend_ker", e);

  if (!g_kernels_only) {
    const std::int64_t quads = elements / 4;
    grads_to_bf16<<<grid_for(3 * quads), kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(qg), reinterpret_cast<uint2*>(a.dq), reinterpret_cast<uint2*>(a.dk),
        reinterpret_cast<uint2*>(a.dv), quads);
    if ((e = cudaGetLastError()) != cudaSuccess) return fail(error, n, "grads_to_bf16", e);
  }
  return 0;
}

int forward(void*, const vsa_plugin_forward_args* a, char* error, std::size_t n) {
  if (!aligned16(a->q) || !aligned16(a->k) || !aligned16(a->v) || !aligned16(a->out) || !aligned16(a->lse))
    return std::snprintf(error, n, "TMA needs 16-byte aligned tensors"), 1;
  return a->shape.head_dim == 64 ? forward_d<64>(*a, error, n) : forward_d<128>(*a, error, n);
}

int backward(void*, const vsa_plugin_backward_args* a, char* error, std::size_t n) {
  if (!aligned16(a->q) || !aligned16(a->k) || !aligned16(a->v) || !aligned16(a->out) || !aligned16(a->d_out) ||
      !aligned16(a->lse) || !aligned16(a->dq) || !aligned16(a->dk) || !aligned16(a->dv) || !aligned16(a->workspace))
    return std::snprintf(error, n, "TMA needs 16-byte aligned tensors and workspace"), 1;
  return a->shape.head_dim == 64 ? backward_d<64>(*a, error, n) : backward_d<128>(*a, error, n);
}

// ---- the table ----

#ifndef FVTK_FASTVIDEO_COMMIT
#error "build with peers/fastvideo_tk/build.sh (it defines the FVTK_* build information)"
#endif

const char* const kNondeterministic[] = {"dq", nullptr};  // dQ: fp32 reduce-adds from every kv block
const char* const kImages[] = {"sm_90a", nullptr};
const vsa_plugin_lint_family kFamilies[] = {
    {"fastvideo-tk::fwd", "_Z14fwd_attend_ker", "sm_90a", "HGMMA", "HGMMA (wgmma.mma_async)", 1, nullptr},
    {"fastvideo-tk::bwd", "_Z14bwd_attend_ker", "sm_90a", "HGMMA", "HGMMA (wgmma.mma_async)", 1, nullptr},
    {"fastvideo-tk::bwd-prep", "_Z19bwd_attend_prep_ker", "sm_90a", "", "", 1, nullptr},
    {"tk-adapter", "_ZN10tk_adapter", "sm_90a", "", "", 1, nullptr},
};

const char* const kDescription =
    "FastVideo's ThunderKittens H100 block-sparse attention (block_sparse_h100.cu), forward and backward; "
    "B=1, blk 64, D 64/128, every q2k row at least 1 block (FastVideo's top-k; a row with none hangs the "
    "forward)";
const char* const kDescriptionKernelsOnly =
    "FastVideo's ThunderKittens H100 block-sparse attention (block_sparse_h100.cu), KERNELS ONLY "
    "(TK_PLUGIN_KERNELS_ONLY=1: no zeroing or bf16 casts; backward outputs not valid); "
    "B=1, blk 64, D 64/128, every q2k row at least 1 block";

vsa_plugin_backend make_backend() {
  vsa_plugin_backend b{};
  b.name = "fastvideo-tk-h100";
  b.description = g_kernels_only ? kDescriptionKernelsOnly : kDescription;
  b.memory = VSA_PLUGIN_MEMORY_DEVICE;
  b.ops = VSA_PLUGIN_OP_FORWARD | VSA_PLUGIN_OP_BACKWARD;
  b.nondeterministic_outputs = kNondeterministic;
  b.compiled_images = kImages;
  b.lint_families = kFamilies;
  b.lint_family_count = sizeof(kFamilies) / sizeof(kFamilies[0]);
  b.supports = supports;
  b.supports_shape = supports_shape;
  b.workspace_bytes = workspace_bytes;
  b.forward = forward;
  b.backward = backward;
  b.lse_factor = lse_factor;  // TK's own lse form, converted by vsa-bench outside the timed calls
  return b;
}

const vsa_plugin_backend kBackends[] = {make_backend()};
const vsa_plugin_build_item kBuild[] = {
    {"adapter", g_kernels_only
                    ? "KERNELS ONLY (TK_PLUGIN_KERNELS_ONLY=1): TK kernels alone, no zeroing or casts, backward "
                      "outputs not valid"
                    : "lse in TK's form (base e, times -sqrt(D)), declared as lse_factor and converted by vsa-bench "
                      "untimed; fp32 grads zeroed and cast to bf16 on the device, timed"},
    {"fwd_ctas_per_sm", g_fwd_ctas_per_sm == 0   ? "upstream's launch (54000 bytes of shared memory: 4 per SM)"
                        : g_fwd_ctas_per_sm < 0  ? "TK_PLUGIN_FWD_CTAS_PER_SM invalid: every forward fails"
                        : g_fwd_ctas_per_sm == 1 ? "1 (TK_PLUGIN_FWD_CTAS_PER_SM, an experiment)"
                        : g_fwd_ctas_per_sm == 2 ? "2 (TK_PLUGIN_FWD_CTAS_PER_SM, an experiment)"
                        : g_fwd_ctas_per_sm == 3 ? "3 (TK_PLUGIN_FWD_CTAS_PER_SM, an experiment)"
                                                 : "4 (TK_PLUGIN_FWD_CTAS_PER_SM, an experiment)"},
    {"fastvideo_commit", FVTK_FASTVIDEO_COMMIT},
    {"thunderkittens_commit", FVTK_TK_COMMIT},
    {"flags", FVTK_FLAGS},
    {"nvcc", FVTK_NVCC},
    {"upstream", "hao-ai-lab/FastVideo fastvideo-kernel/csrc/attention/block_sparse_h100.cu (kernels only)"},
};
const vsa_plugin_table kTable = {
    VSA_PLUGIN_ABI_VERSION, "fastvideo-tk", kBuild, sizeof(kBuild) / sizeof(kBuild[0]), kBackends, 1};

}  // namespace tk_adapter

extern "C" VSA_PLUGIN_EXPORT const vsa_plugin_table* vsa_plugin_entry(uint32_t) { return &tk_adapter::kTable; }
