#pragma once
// The vocabulary of the sm100a protocol tables: warp roles, rings, barriers, buffers,
// TMEM column ranges and the per-role scripts of synchronising and memory operations.
//
// One table describes one kernel (fwd_protocol.hpp, bwd_protocol.hpp). The kernel walks its role's script
// op by op (protocol_cursor.cuh static_asserts that every step it takes is the op the
// table lists, and takes barrier slots, parities and TMEM columns from the table), and
// the host checker (protocol_check.hpp) proves properties of the same table. Plain
// C++17 with no CUDA header, usable in constant expressions on host and device.
#include <cstdint>

namespace vsa::sm100a::protocol {

// Every role any sm100a kernel gives a warp.
//   softmax    forward: online softmax, O correction, epilogue
//   producer   TMA loads
//   mma        tcgen05.mma issue, commits, TMEM allocation
//   dsoftmax   backward: P = exp2(S - lse), dS = P (dP - Delta) per kv row, dK/dV epilogue
//   dq_reduce  backward: dQ partials out of TMEM, reduce-added into the fp32 accumulator
enum class WarpRole : std::uint8_t { softmax, producer, mma, dsoftmax, dq_reduce };

[[nodiscard]] constexpr const char* role_name(WarpRole r) {
  switch (r) {
    case WarpRole::softmax:
      return "softmax";
    case WarpRole::producer:
      return "producer";
    case WarpRole::mma:
      return "mma";
    case WarpRole::dsoftmax:
      return "dsoftmax";
    case WarpRole::dq_reduce:
      return "dq_reduce";
  }
  return "?";
}

// How a kv step picks the instance (barrier slot or buffer copy) and the use count of it.
enum class Ring : std::uint8_t {
  once,      // one instance, one use per work item (Q)
  per_step,  // one instance, used once per kv step: use = step
  kv,        // kv_stages instances: step n uses instance n % kv_stages, use n / kv_stages
  s,         // s_buffers instances, likewise (forward: the S accumulators in TMEM; backward:
             // the P^T / dS^T smem tiles)
};

enum class Memory : std::uint8_t { smem, tmem };

// Slot and use count of step `step` in a ring of `size` instances. Scalar arguments only,
// so device code can call them at run time with constants taken from the tables.
[[nodiscard]] constexpr int ring_instance(Ring r, int size, int step) {
  return r == Ring::kv || r == Ring::s ? step % size : 0;
}
[[nodiscard]] constexpr int ring_use(Ring r, int size, int step) {
  return r == Ring::once ? 0 : r == Ring::per_step ? step : step / size;
}

inline constexpr std::uint8_t kNone = 0xff;

enum class OpKind : std::uint8_t {
  wait,          // mbarrier.try_wait.parity until the op's phase of `barrier` completes (acquire)
  arrive,        // mbarrier.arrive: one arrival per warp (lane 0, after __syncwarp) (release)
  arrive_tx,     // mbarrier.arrive.expect_tx: one arrival plus the bytes the next tma_load brings
  tma_load,      // cp.async.bulk.tensor global -> smem: async write of `write`, lands on `barrier`
  mma,           // tcgen05.mma: async reads of `read`, write of `write`; complete at the next commit
  commit,        // tcgen05.commit: one arrival on `barrier` once every earlier MMA of the thread is done
  tmem_load,     // tcgen05.ld: async read of read[0], complete at the next wait_ld
  wait_ld,       // tcgen05.wait::ld
  tmem_store,    // tcgen05.st: async write of `write`, complete at the next wait_st
  wait_st,       // tcgen05.wait::st
  smem_store,    // st.shared (generic proxy) of `write`
  smem_load,     // ld.shared (generic proxy) of read[0]: complete when the registers are used
  fence_async,   // fence.proxy.async.shared::cta: earlier generic-proxy smem writes -> async proxy
  fence_before,  // tcgen05.fence::before_thread_sync: orders earlier tcgen05 ops before a sync
  fence_after,   // tcgen05.fence::after_thread_sync: orders later tcgen05 ops after a sync
  role_sync,     // bar.sync over every warp of the role (a named barrier)
  cta_sync,      // __syncthreads over every warp of the CTA
  tma_store,     // cp.async.bulk.tensor smem -> global: async read of read[0] until wait_store
  wait_store,    // cp.async.bulk.wait_group.read 0
  tmem_dealloc,  // tcgen05.dealloc: the end of every TMEM region (a write of all columns)
};

[[nodiscard]] constexpr const char* kind_name(OpKind k) {
  switch (k) {
    case OpKind::wait:
      return "wait";
    case OpKind::arrive:
      return "arrive";
    case OpKind::arrive_tx:
      return "arrive.expect_tx";
    case OpKind::tma_load:
      return "tma load";
    case OpKind::mma:
      return "tcgen05.mma";
    case OpKind::commit:
      return "tcgen05.commit";
    case OpKind::tmem_load:
      return "tcgen05.ld";
    case OpKind::wait_ld:
      return "tcgen05.wait::ld";
    case OpKind::tmem_store:
      return "tcgen05.st";
    case OpKind::wait_st:
      return "tcgen05.wait::st";
    case OpKind::smem_store:
      return "st.shared";
    case OpKind::smem_load:
      return "ld.shared";
    case OpKind::fence_async:
      return "fence.proxy.async";
    case OpKind::fence_before:
      return "tcgen05.fence::before_thread_sync";
    case OpKind::fence_after:
      return "tcgen05.fence::after_thread_sync";
    case OpKind::role_sync:
      return "bar.sync (role)";
    case OpKind::cta_sync:
      return "__syncthreads";
    case OpKind::tma_store:
      return "tma store";
    case OpKind::wait_store:
      return "cp.async.bulk.wait_group.read";
    case OpKind::tmem_dealloc:
      return "tcgen05.dealloc";
  }
  return "?";
}

// One entry of a role's script. A script section runs for a range of iterations n; the
// op works on kv step n + step_offset and is skipped when that step is outside
// [0, steps) unless `always`. A wait with use_delta -1 waits for the previous use of its
// slot (a free slot's previous use counts as done: the "empty" barriers).
struct Op {
  OpKind kind = OpKind::wait;
  std::uint8_t barrier = kNone;
  std::uint8_t write = kNone;
  std::uint8_t read[3] = {kNone, kNone, kNone};
  int step_offset = 0;
  int use_delta = 0;
  bool always = false;     // done whatever the number of steps (the epilogue's O store)
  bool optional = false;   // the kernel may leave it out at run time (memory accesses only)
  bool lead_only = false;  // only the first warp of the role
  // An asynchronous copy (tma_store) that touches only the issuing warp's rows of its buffer
  // (each thread copies its own row), not the whole tile.
  bool own_rows = false;
  const char* what = "";

  [[nodiscard]] constexpr Op step(int offset) const {
    Op o = *this;
    o.step_offset = offset;
    return o;
  }
  [[nodiscard]] constexpr Op previous_use() const {
    Op o = *this;
    o.use_delta = -1;
    return o;
  }
  [[nodiscard]] constexpr Op every_time() const {
    Op o = *this;
    o.always = true;
    return o;
  }
  [[nodiscard]] constexpr Op may_skip() const {
    Op o = *this;
    o.optional = true;
    return o;
  }
  [[nodiscard]] constexpr Op lead() const {
    Op o = *this;
    o.lead_only = true;
    return o;
  }
  [[nodiscard]] constexpr Op rows_of_warp() const {
    Op o = *this;
    o.own_rows = true;
    return o;
  }
  // Whether the op happens at iteration n of a work item with `steps` kv steps.
  [[nodiscard]] constexpr bool active(int n, int steps) const {
    const int s = n + step_offset;
    return always || (s >= 0 && s < steps);
  }
};

// Op builders: one line of a script each.
[[nodiscard]] constexpr Op wait_on(std::uint8_t barrier, const char* what) {
  Op o;
  o.kind = OpKind::wait;
  o.barrier = barrier;
  o.what = what;
  return o;
}
[[nodiscard]] constexpr Op arrive_on(std::uint8_t barrier, const char* what) {
  Op o = wait_on(barrier, what);
  o.kind = OpKind::arrive;
  return o;
}
[[nodiscard]] constexpr Op arrive_tx_on(std::uint8_t barrier, const char* what) {
  Op o = wait_on(barrier, what);
  o.kind = OpKind::arrive_tx;
  return o;
}
[[nodiscard]] constexpr Op commit_to(std::uint8_t barrier, const char* what) {
  Op o = wait_on(barrier, what);
  o.kind = OpKind::commit;
  return o;
}
[[nodiscard]] constexpr Op tma_load_into(std::uint8_t buffer, std::uint8_t lands_on, const char* what) {
  Op o = wait_on(lands_on, what);
  o.kind = OpKind::tma_load;
  o.write = buffer;
  return o;
}
[[nodiscard]] constexpr Op mma_into(std::uint8_t d, std::uint8_t a, std::uint8_t b, std::uint8_t c, const char* what) {
  Op o;
  o.kind = OpKind::mma;
  o.write = d;
  o.read[0] = a;
  o.read[1] = b;
  o.read[2] = c;
  o.what = what;
  return o;
}
[[nodiscard]] constexpr Op access(OpKind kind, std::uint8_t write, std::uint8_t read, const char* what) {
  Op o;
  o.kind = kind;
  o.write = write;
  o.read[0] = read;
  o.what = what;
  return o;
}
[[nodiscard]] constexpr Op plain(OpKind kind, const char* what) {
  Op o;
  o.kind = kind;
  o.what = what;
  return o;
}

enum class Section : std::uint8_t { prologue, loop, epilogue };

// What one role does for one work item: a prologue at step 0, a loop over iterations
// first_iteration .. steps - 1, an epilogue at step `steps` (ops there usually look back
// with step_offset -1).
struct Script {
  WarpRole role = WarpRole::softmax;
  const Op* prologue = nullptr;
  int prologue_size = 0;
  const Op* loop = nullptr;
  int loop_size = 0;
  int first_iteration = 0;
  const Op* epilogue = nullptr;
  int epilogue_size = 0;

  [[nodiscard]] constexpr const Op* ops(Section s) const {
    return s == Section::prologue ? prologue : s == Section::loop ? loop : epilogue;
  }
  [[nodiscard]] constexpr int size(Section s) const {
    return s == Section::prologue ? prologue_size : s == Section::loop ? loop_size : epilogue_size;
  }
  // Iteration at which a section's ops are evaluated: the prologue sits at step 0 and the
  // epilogue at step `steps`, so step_offset -1 there means "the last kv step".
  [[nodiscard]] static constexpr int section_iteration(Section s, int loop_iteration, int steps) {
    return s == Section::prologue ? 0 : s == Section::loop ? loop_iteration : steps;
  }
};

// A barrier is named after the edge it guards: who arrives (from), who waits (to), what it
// protects, and how many arrivals complete one phase.
struct BarrierSpec {
  std::uint8_t id = kNone;
  const char* name = "";
  Ring ring = Ring::once;
  WarpRole from = WarpRole::producer;
  WarpRole to = WarpRole::mma;
  int arrivals = 1;
  const char* protects = "";
};

struct BufferSpec {
  std::uint8_t id = kNone;
  const char* name = "";
  Memory memory = Memory::smem;
  Ring ring = Ring::once;
  int tmem_region = -1;  // TMEM buffers: index of instance 0's column range; instance i uses region + i
};

// A range of TMEM columns (all 128 lanes) that one buffer instance owns.
struct TmemRange {
  const char* name = "";
  int first_column = 0;
  int columns = 0;
  const char* aliasing = "";  // what else may live there, and when
};

struct RoleSpec {
  WarpRole role = WarpRole::softmax;
  int first_warp = 0;
  int warps = 1;
  // tcgen05.ld/st of warp w reach only TMEM lanes 32 (w % 4) .. +31, and this role's
  // warps touch only the rows of those lanes (in TMEM and in the smem tiles they write).
  bool lane_quarter = false;
};

struct Protocol {
  const char* name = "";
  const RoleSpec* roles = nullptr;
  int role_count = 0;
  const BarrierSpec* barriers = nullptr;
  int barrier_count = 0;
  const BufferSpec* buffers = nullptr;
  int buffer_count = 0;
  const TmemRange* tmem = nullptr;
  int tmem_count = 0;
  int tmem_alloc_columns = 0;  // what tcgen05.alloc asks for: a power of two in [32, 512]
  const Script* scripts = nullptr;
  int script_count = 0;
  int kv_stages = 1;
  int s_buffers = 1;

  [[nodiscard]] constexpr int ring_size(Ring r) const {
    return r == Ring::kv ? kv_stages : r == Ring::s ? s_buffers : 1;
  }
  [[nodiscard]] constexpr int instance(Ring r, int step) const { return ring_instance(r, ring_size(r), step); }
  [[nodiscard]] constexpr int use(Ring r, int step) const { return ring_use(r, ring_size(r), step); }
  [[nodiscard]] constexpr const BarrierSpec& barrier(std::uint8_t id) const { return barriers[id]; }
  [[nodiscard]] constexpr const BufferSpec& buffer(std::uint8_t id) const { return buffers[id]; }
  // mbarrier array index of (barrier, instance): barriers laid out in table order.
  [[nodiscard]] constexpr int barrier_slot(std::uint8_t id, int inst) const {
    int slot = 0;
    for (int b = 0; b < id; ++b) slot += ring_size(barriers[b].ring);
    return slot + inst;
  }
  [[nodiscard]] constexpr int barrier_slots() const { return barrier_slot(std::uint8_t(barrier_count), 0); }
  // First TMEM column of a TMEM buffer's instance.
  [[nodiscard]] constexpr int tmem_column(std::uint8_t buffer_id, int inst) const {
    return tmem[buffers[buffer_id].tmem_region + inst].first_column;
  }
  [[nodiscard]] constexpr const Script& script(WarpRole r) const {
    for (int i = 0; i < script_count; ++i)
      if (scripts[i].role == r) return scripts[i];
    return scripts[0];
  }
  [[nodiscard]] constexpr const RoleSpec& role(WarpRole r) const {
    for (int i = 0; i < role_count; ++i)
      if (roles[i].role == r) return roles[i];
    return roles[0];
  }
};

// ---- building a protocol from its tables (the kernels' *_protocol.hpp) ----------------

template <class T, int N>
constexpr int count_of(const T (&)[N]) {
  return N;
}

// A role's script: its loop ops (issued at loop iterations first_iteration, ...) and its
// epilogue ops, with or without prologue ops.
template <int L, int E>
constexpr Script role_script(WarpRole role, const Op (&loop)[L], int first_iteration, const Op (&epilogue)[E]) {
  return {role, nullptr, 0, loop, L, first_iteration, epilogue, E};
}
template <int P, int L, int E>
constexpr Script role_script(WarpRole role, const Op (&prologue)[P], const Op (&loop)[L], int first_iteration,
                             const Op (&epilogue)[E]) {
  return {role, prologue, P, loop, L, first_iteration, epilogue, E};
}

template <int R, int B, int F, int T, int S>
constexpr Protocol make_protocol(const char* name, const RoleSpec (&roles)[R], const BarrierSpec (&barriers)[B],
                                 const BufferSpec (&buffers)[F], const TmemRange (&tmem)[T], int tmem_alloc_columns,
                                 const Script (&scripts)[S], int kv_stages, int s_buffers) {
  return {name, roles, R, barriers, B, buffers, F, tmem, T, tmem_alloc_columns, scripts, S, kv_stages, s_buffers};
}

// Tables indexed by id must list ids 0, 1, ... in order, one per id (the kernel indexes
// them directly): `barrier_ids` and `buffer_ids` are the enums' counts.
template <int B, int F>
constexpr bool ids_in_order(const BarrierSpec (&barriers)[B], const BufferSpec (&buffers)[F], int barrier_ids,
                            int buffer_ids) {
  for (int i = 0; i < B; ++i)
    if (barriers[i].id != i) return false;
  for (int i = 0; i < F; ++i)
    if (buffers[i].id != i) return false;
  return B == barrier_ids && F == buffer_ids;
}

// Phase parity the kernel waits for on use `u` of a barrier slot.
[[nodiscard]] constexpr std::uint32_t parity_of_use(int u) { return std::uint32_t(u) & 1u; }

}  // namespace vsa::sm100a::protocol
