/* vsa-bench plugin ABI: one shared library, one entry point, a table of backends.
 *
 * Plain C (C99) so any compiler and language can implement it; no C++ types cross
 * the boundary. Everything the in-tree C++ interface (vsa/backend.hpp) expresses has a
 * field here; app/plugins/plugin_backend.cpp adapts one to the other. The rules on
 * ownership, lifetimes, threading and versioning are in docs/plugins.md; the short form:
 *
 *  - The table and everything it points to belong to the plugin and stay valid and
 *    unchanged until the process exits (vsa-bench never unloads a plugin).
 *  - Buffers passed in (tensors, workspace, reason/error text) belong to vsa-bench and
 *    are valid for the duration of the call only (device work queued on the stream may
 *    use the tensors until vsa-bench synchronises that stream).
 *  - vsa-bench calls one plugin function at a time per process, not always from the
 *    same thread.
 *  - VSA_PLUGIN_ABI_VERSION changes whenever any struct or signature below changes;
 *    the loader accepts exactly its own version.
 */
#ifndef VSA_PLUGIN_H
#define VSA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#define VSA_PLUGIN_ABI_VERSION 2u
/* The one symbol vsa-bench looks up (dlsym) in a plugin. */
#define VSA_PLUGIN_ENTRY_SYMBOL "vsa_plugin_entry"
/* Probe slots per backend (vsa::kMaxProbePoints). */
#define VSA_PLUGIN_MAX_PROBES 16
/* Characters of a hang-watch label, terminator included (vsa::kHangLabelWords * 4). */
#define VSA_PLUGIN_HANG_LABEL_BYTES 24

#if defined(_WIN32)
#define VSA_PLUGIN_EXPORT __declspec(dllexport)
#else
#define VSA_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Ops: a bit set in vsa_plugin_backend.ops; one value in calls that take an op. */
enum { VSA_PLUGIN_OP_FORWARD = 1u, VSA_PLUGIN_OP_BACKWARD = 2u };

/* Where the tensors of a call live: device memory (a GPU backend) or host memory (a
 * CPU backend; the stream is then NULL and no device is needed). */
enum { VSA_PLUGIN_MEMORY_DEVICE = 0u, VSA_PLUGIN_MEMORY_HOST = 1u };

/* The problem shape (docs/spec.md). S = num_blocks * block. */
typedef struct vsa_plugin_shape {
  int32_t batch;      /* B */
  int32_t heads;      /* H */
  int32_t num_blocks; /* nb */
  int32_t head_dim;   /* D */
  int32_t block;      /* BLK: tokens per block (64 or 128) */
  int32_t max_kv;     /* row length of q2k_idx (>= every q2k_num) */
  int32_t max_q;      /* row length of k2q_idx (>= every k2q_num) */
} vsa_plugin_shape;

/* What a backend may look at to decide whether it runs on a device: never tensor
 * contents. ordinal -1: no GPU (name is then "" and the numbers 0). */
typedef struct vsa_plugin_device {
  int32_t ordinal;
  const char* name;
  int32_t cc_major;
  int32_t cc_minor;
  int32_t sm_count;
  uint64_t smem_per_block_optin;
  uint64_t global_mem;
} vsa_plugin_device;

/* Delay probes (docs/design.md, "Finding races and faults"): sleep nanoseconds[i] at the
 * hand-off named probe_points[i]. warps[i]: bit w set = only warp w of the CTA sleeps;
 * 0 = every warp. All zero: the normal run. vsa/probe.cuh reads this for a kernel. */
typedef struct vsa_plugin_probes {
  uint32_t nanoseconds[VSA_PLUGIN_MAX_PROBES];
  uint32_t warps[VSA_PLUGIN_MAX_PROBES];
} vsa_plugin_probes;

/* Located hangs: the layout of vsa::HangRecord (vsa/hang_watch.hpp), in host-mapped
 * memory. A kernel whose bounded wait expires claims it (atomicCAS claimed 0 -> 1),
 * fills the fields, sets complete = 1 last, and traps. */
typedef struct vsa_plugin_hang_record {
  uint32_t claimed;
  uint32_t complete;
  int32_t block;
  int32_t warp;
  int32_t slot;
  uint32_t parity;
  int32_t step;
  int32_t item;
  uint32_t waited_ms;
  uint32_t pad;
  char kernel[VSA_PLUGIN_HANG_LABEL_BYTES];
  char role[VSA_PLUGIN_HANG_LABEL_BYTES];
  char barrier[VSA_PLUGIN_HANG_LABEL_BYTES];
} vsa_plugin_hang_record;

typedef struct vsa_plugin_hang_watch {
  vsa_plugin_hang_record* record; /* NULL: no watch */
  uint32_t timeout_ms;
} vsa_plugin_hang_watch;

/* Tensors are bf16 bit patterns (uint16_t), row-major [B, H, S, D]; lse is base-2
 * ("M format", docs/spec.md) [B, H, S]; index lists [B, H, nb, max_kv] etc. */
typedef struct vsa_plugin_forward_args {
  vsa_plugin_shape shape;
  const uint16_t* q;
  const uint16_t* k;
  const uint16_t* v;
  const int32_t* q2k_idx; /* [B, H, nb, max_kv] */
  const int32_t* q2k_num; /* [B, H, nb] */
  const int32_t* vbs;     /* [nb]: valid tokens of each kv block */
  uint16_t* out;          /* [B, H, S, D] */
  float* lse;             /* [B, H, S], M format (or the backend's lse_factor form) */
  void* workspace;        /* workspace_bytes(shape, FORWARD) bytes, NULL when 0 */
  void* stream;           /* cudaStream_t (device backends); NULL for host backends */
  vsa_plugin_probes probes;
  uint64_t* trace; /* developer timeline buffer; NULL almost always, may be ignored */
  vsa_plugin_hang_watch hang_watch;
} vsa_plugin_forward_args;

typedef struct vsa_plugin_backward_args {
  vsa_plugin_shape shape;
  const uint16_t* q;
  const uint16_t* k;
  const uint16_t* v;
  const uint16_t* out;   /* forward O */
  const uint16_t* d_out; /* dO */
  const float* lse;      /* forward lse, M format (or the backend's lse_factor form) */
  const int32_t* q2k_idx;
  const int32_t* q2k_num;
  const int32_t* k2q_idx; /* [B, H, nb, max_q], the deterministic inversion */
  const int32_t* k2q_num; /* [B, H, nb] */
  const int32_t* vbs;
  uint16_t* dq;
  uint16_t* dk;
  uint16_t* dv;
  void* workspace;
  void* stream;
  vsa_plugin_probes probes;
  uint64_t* trace;
  vsa_plugin_hang_watch hang_watch;
} vsa_plugin_backward_args;

/* One kernel as the loaded module reports it (cudaFuncGetAttributes). */
typedef struct vsa_plugin_kernel_info {
  char name[256];
  int32_t registers;
  uint64_t shared_static_bytes;
  uint64_t local_bytes; /* > 0: spills / stack frame */
  int32_t max_threads_per_block;
  int32_t binary_version; /* SM of the image the driver picked, e.g. 90 */
  int32_t hot;            /* in the timed path: lint forbids spills there */
} vsa_plugin_kernel_info;

/* What `vsa-bench lint --plugin` checks the library's kernels against (the rule table of
 * app/lint/rule_table.hpp): kernels whose mangled name starts with mangled_prefix must
 * have an image for arch, contain an instruction matching mma_pattern (ECMAScript regex
 * on the SASS opcode; NULL or "" = none required) unless a mma_exempt substring is in
 * their name, and, when hot, touch no local memory. Empty-body and arrive-before-wait
 * apply to every kernel of the library regardless. */
typedef struct vsa_plugin_lint_family {
  const char* label;             /* for messages, e.g. "mykernels::fwd" */
  const char* mangled_prefix;    /* e.g. "_ZN9mykernels" */
  const char* arch;              /* e.g. "sm_90a" */
  const char* mma_pattern;       /* e.g. "HGMMA" */
  const char* mma_description;   /* e.g. "HGMMA (wgmma.mma_async)" */
  int32_t hot;                   /* nonzero: local memory is a finding */
  const char* const* mma_exempt; /* NULL-terminated list, or NULL */
} vsa_plugin_lint_family;

/* Every function gets the backend's context back. Text out-parameters (reason, error) are
 * buffers of `capacity` bytes owned by vsa-bench: write a NUL-terminated message (cut to
 * fit). Return values: supports* return 1 (yes) or 0 (no, reason written); forward,
 * backward and kernels return 0 on success, nonzero with error written on failure. A
 * CUDA error keeps its text, e.g. "cudaErrorIllegalAddress: an illegal memory access". */
typedef struct vsa_plugin_backend {
  const char* name;                            /* unique among all backends, built-in and plugin; [A-Za-z0-9._@+-] */
  const char* description;                     /* one line */
  uint32_t memory;                             /* VSA_PLUGIN_MEMORY_* */
  uint32_t ops;                                /* VSA_PLUGIN_OP_* bits */
  const char* const* probe_points;             /* NULL-terminated, at most 16; index = probe slot */
  int32_t probe_warp_masks;                    /* nonzero: probes honour vsa_plugin_probes.warps */
  const char* const* nondeterministic_outputs; /* NULL-terminated: "out", "lse", "dq", "dk", "dv" */
  const char* const* compiled_images;          /* NULL-terminated: "sm_90a", ... (none for host) */
  const vsa_plugin_lint_family* lint_families;
  size_t lint_family_count;
  void* context; /* passed back to every function below */

  /* Required. Decided from device properties and shape alone. */
  int (*supports)(void* context, const vsa_plugin_device* device, const vsa_plugin_shape* shape, uint32_t op,
                  char* reason, size_t capacity);
  /* Optional (NULL: every shape). The shape-only part of supports: lets a suite be refused
   * before anything runs, on any machine. Must not touch a GPU. */
  int (*supports_shape)(void* context, const vsa_plugin_shape* shape, uint32_t op, char* reason, size_t capacity);
  /* Optional (NULL: no workspace). Bytes of the workspace vsa-bench allocates for op. */
  uint64_t (*workspace_bytes)(void* context, const vsa_plugin_shape* shape, uint32_t op);
  /* Required when the op is in ops (otherwise may be NULL). */
  int (*forward)(void* context, const vsa_plugin_forward_args* args, char* error, size_t capacity);
  int (*backward)(void* context, const vsa_plugin_backward_args* args, char* error, size_t capacity);
  /* Optional: up to `capacity` kernel descriptions into `kernels`, their number into
   * *count. Called only with a device present. */
  int (*kernels)(void* context, vsa_plugin_kernel_info* kernels, size_t capacity, size_t* count, char* error,
                 size_t error_capacity);
  /* Optional (NULL: the lse is in M format). Since ABI version 2. The backend's own lse form
   * as a factor, lse_own = lse_factor(shape) x lse (M format): forward writes lse_own and
   * backward reads it. vsa-bench converts outside the timed calls: the forward's lse after
   * it, before any comparison (runs are compared with each other as written), and the
   * backward's input once, before its first call. Finite and
   * nonzero; a natural-log lse is 1 / log2(e), i.e. ln 2. */
  double (*lse_factor)(void* context, const vsa_plugin_shape* shape);
} vsa_plugin_backend;

/* Build information the plugin declares (version, git sha, compiler, flags, the
 * upstream source it wraps): key/value text, recorded in every report. */
typedef struct vsa_plugin_build_item {
  const char* key;
  const char* value;
} vsa_plugin_build_item;

typedef struct vsa_plugin_table {
  uint32_t abi_version; /* VSA_PLUGIN_ABI_VERSION the plugin was compiled with */
  const char* plugin_name;
  const vsa_plugin_build_item* build_info;
  size_t build_info_count;
  const vsa_plugin_backend* backends;
  size_t backend_count;
} vsa_plugin_table;

/* The entry point: host_abi_version is the loader's VSA_PLUGIN_ABI_VERSION. Returns the
 * table (never freed), or NULL when the plugin cannot serve (the load then fails with
 * "vsa_plugin_entry returned no table"). Called once per process. */
typedef const vsa_plugin_table* (*vsa_plugin_entry_fn)(uint32_t host_abi_version);

VSA_PLUGIN_EXPORT const vsa_plugin_table* vsa_plugin_entry(uint32_t host_abi_version);

#ifdef __cplusplus
}
#endif

#endif /* VSA_PLUGIN_H */
