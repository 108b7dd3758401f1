#pragma once
// Happens-before race detection for the model CTA (vector clocks, FastTrack-style epochs).
//
// Agents (vector-clock components), per thread t of the CTA: the thread itself; the copy
// engine working for t (its bulk copies: one component per issuing thread, so two copies of
// one thread count as ordered); t's tensor pipe (tcgen05.mma / commit, executed in issue
// order); t's pending tcgen05.ld and tcgen05.st (their accesses become the thread's only at
// wait::ld / wait::st). Edges: mbarrier phase completion (arrivals and complete-tx release,
// the waiter acquires), bar.sync and warp rendezvous (all members release, all acquire),
// tcgen05.commit (the pipe's clock released into the barrier), bulk wait_group (the waited
// copies' clocks), wait::ld / wait::st.
//
// Every 16-byte shared-memory granule and every TMEM (lane, column) cell keeps its last write
// and the reads since; a write not ordered after them, or a read not ordered after the last
// write, is a race: ModelError naming both accesses (instruction, thread and role, the
// protocol-script op the thread was at, the smem offset or TMEM cell, the scheduler step)
// and the schedule seed.
//
// Proxies: an async-proxy read of a generic-proxy st.shared needs the writer's fence.proxy.async
// ordered before it.
//
// tcgen05 fences (PTX ISA 9.7.16.6.3, "Specialized inter-thread synchronization for tcgen05
// instructions"): the asynchronous tcgen05 ops (mma, ld, st) are not ordered by a thread
// synchronisation on their own. Each thread has a second view, the one its tcgen05 ops are
// issued under: it takes what the thread acquired only at tcgen05.fence::after_thread_sync.
// A release (mbarrier arrive, bar.sync, warp rendezvous) carries the thread's own tcgen05.ld /
// tcgen05.st only as far as its last tcgen05.fence::before_thread_sync, and of those only the
// ones its wait::ld / wait::st had completed by then. tcgen05.commit carries
// the tensor pipe's clock (its implicit before-fence). As we read the ISA, the fences order
// tcgen05 ops against Tensor Memory hazards; the shared-memory operands an mma reads are
// ordered by the waited mbarrier like every async-proxy consumer (the generic view), which is
// what CUTLASS's sm100 TMA -> UMMA pipeline relies on (model/README.md). tcgen05.dealloc, a synchronous op, writes
// every cell it frees under the generic view: a reader whose loads were not fenced before the
// teardown sync races with it.
//
// Plain C++ loads of shared memory go through ld_shared (sm100a_ptx.cuh) and are tracked like
// the PTX surface; the role files have no plain C++ stores to shared memory. Not modelled:
// global memory.
#include <cstdint>
#include <string>
#include <vector>

namespace vsa::model {

class Scheduler;

enum class Access : std::uint8_t {
  st_shared,
  tma_load,
  tma_store,
  bulk_load,
  bulk_reduce,
  mma_read_a,
  mma_read_b,
  mma_write_d,
  tmem_ld,
  tmem_st,
  tmem_dealloc,
  ld_shared,
  tmem_alloc,
};
[[nodiscard]] const char* access_name(Access a);

using VectorClock = std::vector<std::uint32_t>;
void join(VectorClock& into, const VectorClock& from);

struct Epoch {
  std::uint32_t agent = 0;
  std::uint32_t clock = 0;  // 0: no access
  std::uint32_t step = 0;
  std::uint16_t tid = 0;
  Access what = Access::st_shared;
  bool write = false;
  const char* op = nullptr;  // the issuing thread's protocol-script op (FiberThread::op)
};

struct Shadow {
  Epoch last_write;
  std::vector<Epoch> reads;  // since the last write, one per agent
  // A generic-proxy write (st.shared) becomes visible to the async proxy only through a
  // fence.proxy.async of its writer: the writer's clock at that fence (0: none yet).
  std::uint32_t fence_clock = 0;
};

enum class Space : std::uint8_t { smem, tmem };

class RaceDetector {
 public:
  RaceDetector(int threads, std::size_t smem_bytes, Scheduler& sched);

  [[nodiscard]] int threads() const { return m_threads; }
  [[nodiscard]] std::uint32_t thread_agent(int t) const { return std::uint32_t(t); }
  [[nodiscard]] std::uint32_t copy_agent(int t) const { return std::uint32_t(m_threads + t); }
  [[nodiscard]] std::uint32_t tensor_agent(int t) const { return std::uint32_t(2 * m_threads + t); }
  [[nodiscard]] std::uint32_t ld_agent(int t) const { return std::uint32_t(3 * m_threads + t); }
  [[nodiscard]] std::uint32_t st_agent(int t) const { return std::uint32_t(4 * m_threads + t); }

  [[nodiscard]] VectorClock& thread_clock(int t) { return m_thread_vc[std::size_t(t)]; }
  // A thread's release (arrive, barrier): later accesses get a new epoch.
  void tick(int t) { ++m_thread_vc[std::size_t(t)][thread_agent(t)]; }
  // A fresh clock for an async operation of `agent` issued by thread t: the thread's clock
  // (everything it has seen), the agent's component advanced.
  [[nodiscard]] VectorClock issue(int t, std::uint32_t agent);
  // The tensor pipe of t: ordered after its previous op and after t's tcgen05 view.
  [[nodiscard]] VectorClock issue_tensor(int t);
  // A fresh clock for t's tcgen05.ld (ld_agent) or tcgen05.st (st_agent): t's tcgen05 view.
  [[nodiscard]] VectorClock issue_tcgen05(int t, std::uint32_t agent);
  // What t's asynchronous tcgen05 ops are ordered after: everything t had acquired at its last
  // tcgen05.fence::after_thread_sync, plus t's own program order (its own accesses, its
  // completed tcgen05.ld / st).
  [[nodiscard]] VectorClock tcgen05_view(int t) const;
  // tcgen05.fence::after_thread_sync by t: its later tcgen05 ops see what it acquired so far.
  void fence_after_thread_sync(int t) { join(m_tc_view[std::size_t(t)], m_thread_vc[std::size_t(t)]); }
  // tcgen05.fence::before_thread_sync by t: its tcgen05.ld / st completed so far (waited)
  // travel with its next releases.
  void fence_before_thread_sync(int t);
  // What t publishes when it releases (arrive, bar.sync, warp rendezvous): its clock, with its
  // own tcgen05.ld / st components only as far as its last before-fence.
  [[nodiscard]] VectorClock released(int t) const;
  // Thread t's pending ops of `agent` (its tcgen05.ld or .st) have completed: t has seen them.
  void complete(int t, std::uint32_t agent) { m_thread_vc[std::size_t(t)][agent] = m_agent_clock[agent]; }
  [[nodiscard]] VectorClock empty() const { return VectorClock(std::size_t(5 * m_threads), 0); }

  // smem: byte range [offset, offset + bytes) of the window; tmem: `cells` cells from lane,
  // column (one lane). `op`: the protocol-script op of the issuing thread when it issued the
  // access (for reports).
  void access(Space space, std::uint32_t first, std::uint32_t count, bool write, Access what, int tid,
              std::uint32_t agent, const VectorClock& vc, const char* op);

  void set_label(std::string label) { m_label = std::move(label); }

  // fence.proxy.async.shared::cta by thread t (PTX ISA "membar / fence", proxy
  // fences): its earlier shared-memory writes become visible to the async proxy (tcgen05.mma
  // operands, TMA stores, bulk reductions) for whoever is ordered after this point.
  void fence_proxy_async(int t);

 private:
  [[noreturn]] void report(Space space, std::uint32_t index, const Epoch& earlier, const Epoch& now,
                           const char* why = "with no happens-before order between them");
  [[nodiscard]] std::string describe(const Epoch& e) const;

  int m_threads;
  Scheduler& m_sched;
  std::vector<VectorClock> m_thread_vc;
  std::vector<VectorClock> m_pipe_vc;
  std::vector<VectorClock> m_tc_view;                   // per thread: acquired as of its last after-fence
  std::vector<std::uint32_t> m_fenced_ld, m_fenced_st;  // per thread: its ld / st agent clock at its last before-fence
  std::vector<std::uint32_t> m_agent_clock;
  std::vector<Shadow> m_smem, m_tmem;
  std::vector<std::vector<std::uint32_t>> m_unfenced;  // per thread: granules it wrote since its last proxy fence
  std::string m_label;
};

}  // namespace vsa::model
