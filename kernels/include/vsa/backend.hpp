#pragma once
// The interface every kernel family implements (docs/design.md, "Backends").
// Plain C++: pointers are raw (host or device memory as the backend declares),
// the stream is an opaque cudaStream_t, errors come back as text. Nothing here
// needs a CUDA header, so the harness and tests compile with g++ alone.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vsa/bf16.hpp"
#include "vsa/hang_watch.hpp"
#include "vsa/shape.hpp"

namespace vsa {

enum class Op : unsigned { forward = 1u, backward = 2u };
enum class Memory { host, device };

// What a backend may look at when deciding whether it can run: never tensor contents.
struct DeviceInfo {
  int ordinal = -1;  // -1: no GPU
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::size_t smem_per_block_optin = 0;
  std::size_t global_mem = 0;
  [[nodiscard]] bool present() const { return ordinal >= 0; }
  [[nodiscard]] int cc() const { return cc_major * 10 + cc_minor; }
};

struct Support {
  bool ok = false;
  std::string reason;  // why not, when !ok
  static Support yes() { return {true, {}}; }
  static Support no(std::string why) { return {false, std::move(why)}; }
};

// Result of a launch: empty message means success. A CUDA error keeps its text,
// e.g. "cudaErrorIllegalAddress: an illegal memory access was encountered".
struct [[nodiscard]] Status {
  std::string error;
  [[nodiscard]] bool ok() const { return error.empty(); }
  static Status success() { return {}; }
  static Status failure(std::string what) { return {std::move(what)}; }
};

// Delay probes (docs/design.md, "Finding races and faults"): a probe-enabled kernel variant sleeps
// `nanoseconds[i]` at the named hand-off point i. All zero means the normal variant.
// `warps[i]`: bit w set = warp w of the CTA sleeps at point i; 0 = every warp. A backend
// that cannot restrict a probe to some warps says so (probe_warp_masks()).
inline constexpr int kMaxProbePoints = 16;
struct ProbeDelays {
  std::uint32_t nanoseconds[kMaxProbePoints] = {};
  std::uint32_t warps[kMaxProbePoints] = {};
  [[nodiscard]] bool any() const {
    for (auto ns : nanoseconds)
      if (ns != 0) return true;
    return false;
  }
};

struct ForwardArgs {
  Shape shape;
  const bf16_bits* q = nullptr;  // [B, H, S, D]
  const bf16_bits* k = nullptr;
  const bf16_bits* v = nullptr;
  const std::int32_t* q2k_idx = nullptr;  // [B, H, nb, max_kv]
  const std::int32_t* q2k_num = nullptr;  // [B, H, nb]
  const std::int32_t* vbs = nullptr;      // [nb]
  bf16_bits* out = nullptr;               // [B, H, S, D]
  float* lse = nullptr;                   // [B, H, S], base-2 ("M format")
  void* workspace = nullptr;              // workspace_bytes(shape, forward) bytes
  void* stream = nullptr;                 // cudaStream_t; ignored by host backends
  ProbeDelays probes;
  // Developer tool: a zeroed device buffer for the kernel's timeline (sm90a: one record of
  // kTraceWords words per consumer slot; kernels/sm90a/trace.hpp's trace_buffer_words sizes it).
  // Non-null runs a recording variant (the trace-only one, or the probe variant where probes or
  // the hang watch are on); other backends ignore it.
  std::uint64_t* trace = nullptr;
  // Located hangs (vsa/hang_watch.hpp): when on, kernels with mbarrier waits run their
  // watched (probe) variant; backends without such waits ignore it.
  HangWatch hang_watch;
};

struct BackwardArgs {
  Shape shape;
  const bf16_bits* q = nullptr;
  const bf16_bits* k = nullptr;
  const bf16_bits* v = nullptr;
  const bf16_bits* out = nullptr;    // forward O
  const bf16_bits* d_out = nullptr;  // dO
  const float* lse = nullptr;        // forward lse, M format
  const std::int32_t* q2k_idx = nullptr;
  const std::int32_t* q2k_num = nullptr;
  const std::int32_t* k2q_idx = nullptr;  // [B, H, nb, max_q], deterministic inversion
  const std::int32_t* k2q_num = nullptr;  // [B, H, nb]
  const std::int32_t* vbs = nullptr;
  bf16_bits* dq = nullptr;
  bf16_bits* dk = nullptr;
  bf16_bits* dv = nullptr;
  void* workspace = nullptr;
  void* stream = nullptr;
  ProbeDelays probes;
  // Developer tool, as in ForwardArgs (sm90a: one record per consumer slot of the first launch).
  std::uint64_t* trace = nullptr;
  HangWatch hang_watch;  // as in ForwardArgs
};

// One kernel of a backend as the loaded module reports it (cudaFuncGetAttributes).
struct KernelInfo {
  std::string name;
  int registers = 0;
  std::size_t shared_static_bytes = 0;
  std::size_t local_bytes = 0;  // > 0 means spills / stack frame
  int max_threads_per_block = 0;
  int binary_version = 0;  // SM of the image the driver picked, e.g. 90
  bool hot = false;        // in the timed path: lint forbids spills here
};

class Backend {
 public:
  virtual ~Backend() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual std::string description() const = 0;
  [[nodiscard]] virtual Memory memory() const = 0;
  [[nodiscard]] virtual bool has_op(Op op) const = 0;
  // Decided from device properties and shape alone; says why when it says no.
  [[nodiscard]] virtual Support supports(const DeviceInfo& device, const Shape& shape, Op op) const = 0;
  // The shape-only part of supports(): lets a suite be refused (exit 2) before
  // anything runs, on any machine, e.g. "needs D = 128, got 96".
  [[nodiscard]] virtual Support supports_shape(const Shape&, Op) const { return Support::yes(); }
  [[nodiscard]] virtual std::size_t workspace_bytes(const Shape&, Op) const { return 0; }
  // Outputs that may legitimately differ run to run (e.g. "dq" with atomics).
  [[nodiscard]] virtual std::vector<std::string> nondeterministic_outputs() const { return {}; }
  virtual Status forward(const ForwardArgs& args) = 0;
  virtual Status backward(const BackwardArgs& args) = 0;
  // The backend's own lse form, as lse_own = lse_factor(shape) x lse (M format, docs/spec.md):
  // its forward writes that form and its backward reads it. The engine converts outside every
  // timed call (engine/case_data.cpp), so a kernel whose convention differs from ours by a
  // scale is timed without a conversion. 1 (the default): M format.
  [[nodiscard]] virtual double lse_factor(const Shape&) const { return 1.0; }
  // SM targets whose machine code is really in this binary, e.g. {"sm_90a"}; empty for host.
  [[nodiscard]] virtual std::vector<std::string> compiled_images() const { return {}; }
  // Per-kernel resources from the loaded module; needs a device.
  [[nodiscard]] virtual std::vector<KernelInfo> kernels() const { return {}; }
  // Delay probe names, index = slot in ProbeDelays.
  [[nodiscard]] virtual std::vector<std::string> probe_points() const { return {}; }
  // Whether its probes honour ProbeDelays::warps (a warp mask, `NAME=NS@warps:4-7`).
  [[nodiscard]] virtual bool probe_warp_masks() const { return false; }
};

}  // namespace vsa
