#pragma once
// One CTA of the execution model: its threads (fibers under a Scheduler), its shared
// memory window, mbarriers, CTA and named barriers, warp collectives, Tensor Memory, and
// the asynchronous agents (copy engine, tensor core) whose operations complete at points
// the scheduler picks. The PTX surface (ptx_model.hpp) forwards every instruction here.
//
// Section numbers are those of the PTX ISA 9.x (tcgen05: 9.7.16, mbarrier: 9.7.13.15,
// cp.async.bulk: 9.7.9.25, bar: 9.7.13.1, shfl/vote: 9.7.9.6 / 9.7.13.9).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "race_detector.hpp"
#include "scheduler.hpp"

namespace vsa::model {

// Shared memory addresses the model hands out (smem_addr) are offsets into the CTA's window;
// the window starts at this address so that 0 never names shared memory.
// 0x410 is 16-byte aligned but not 1024-byte aligned, so the kernels' own rounding of the
// dynamic shared memory to a swizzle-atom boundary (storage_at_1024) is exercised.
inline constexpr std::uint32_t kSmemWindowBase = 0x410;

// 9.7.13.15.1: an mbarrier is a 64-bit object in shared memory with an expected arrival
// count, a pending count, a transaction count and a phase. The model keeps that state beside
// the 8 bytes (the kernel only passes their address).
struct MBarrier {
  std::uint32_t expected = 0;  // init count
  std::uint32_t pending = 0;   // arrivals still missing in the current phase
  std::int64_t tx = 0;         // tx-count of the current phase (may dip below zero, 9.7.13.15.2)
  std::uint64_t phase = 0;     // completed phases; the current phase has parity phase & 1
  VectorClock acc;             // releases into the current phase
  VectorClock done[2];         // the last completed phase of each parity, for its waiters
};

// A CTA-wide or named barrier (bar.sync id, count; 9.7.13.1).
struct NamedBarrier {
  std::uint64_t generation = 0;
  int arrived = 0;
  int count = 0;
  VectorClock acc, released;
};

// A warp's rendezvous for one .sync/.sync.aligned instruction.
struct WarpCollective {
  std::uint64_t generation = 0;
  int arrived = 0;
  std::uint32_t mask = 0;
  std::string kind;       // the instruction, e.g. "__shfl_sync"
  std::uint64_t key = 0;  // an operand that must agree across lanes (tcgen05 address)
  std::uint32_t value[32] = {};
  std::uint32_t result[32] = {};
  VectorClock acc, released;
};

// 9.7.16.1: 128 lanes x 512 columns of 32-bit cells per CTA.
inline constexpr int kTmemLanes = 128;
inline constexpr int kTmemColumns = 512;
inline constexpr std::uint32_t kPoison = 0x7FBADBADu;  // a NaN: registers of an unfinished tcgen05.ld

struct TmemAllocation {
  std::uint32_t column = 0;
  std::uint32_t columns = 0;
  int warp = -1;  // the allocating warp, the only one allowed to free it
};

// A tcgen05.ld whose registers fill at tcgen05.wait::ld.
struct PendingLoad {
  std::uint32_t* dst = nullptr;
  int count = 0;
  int lane = 0;
  int column = 0;
};

// Bulk async-group bookkeeping of one thread (9.7.9.25.4.x commit_group / wait_group).
struct BulkGroups {
  std::vector<std::uint64_t> uncommitted_ids;  // ops issued since the last commit
  std::vector<std::uint64_t> committed_ids;    // ops of committed groups not yet waited for
};

struct CtaPlace {
  unsigned block_x = 0;
  unsigned grid_x = 1;
  unsigned threads = 0;
};

class Cta {
 public:
  Cta(Scheduler& scheduler, unsigned char* smem, std::size_t smem_bytes, CtaPlace place);

  [[nodiscard]] Scheduler& scheduler() { return m_sched; }
  [[nodiscard]] const CtaPlace& place() const { return m_place; }
  [[nodiscard]] FiberThread& me() { return m_sched.current(); }
  [[nodiscard]] std::string who() { return m_sched.describe(me()); }
  // Names a barrier in reports ("s_full[1]"), keyed by its shared-memory address.
  void name_barrier(std::uint32_t addr, std::string name) { m_barrier_names[addr] = std::move(name); }
  [[nodiscard]] std::string barrier_name(std::uint32_t addr) const;

  // ---- shared memory -----------------------------------------------------------------
  [[nodiscard]] std::uint32_t smem_address(const void* p) const;
  [[nodiscard]] unsigned char* smem_at(std::uint32_t addr, std::size_t bytes, const char* what) const;
  [[nodiscard]] bool in_smem(const void* p) const;

  // ---- mbarrier (9.7.13.15) ----------------------------------------------------------
  void mbar_init(std::uint32_t addr, std::uint32_t count);
  // `release`: the clock the arrival releases (an async agent's); null: the calling thread's.
  void mbar_arrive(std::uint32_t addr, std::uint32_t count = 1, const VectorClock* release = nullptr);
  void mbar_expect_tx(std::uint32_t addr, std::uint32_t bytes);
  void mbar_complete_tx(std::uint32_t addr, std::uint32_t bytes, const VectorClock& release);  // async agents
  void mbar_wait_parity(std::uint32_t addr, std::uint32_t parity);
  [[nodiscard]] const MBarrier& mbarrier(std::uint32_t addr) const;

  // ---- CTA barriers and warp collectives -----------------------------------------------
  void bar_sync(int id, int count);
  // Every lane of `mask` meets; each lane's `value` is visible to all in `result`.
  // `kind` and `key` must agree across lanes (otherwise the warp diverged at a .aligned op).
  // `once` runs exactly once, when the last lane arrives (the warp-wide effect of the op).
  const WarpCollective& warp_meet(std::uint32_t mask, const char* kind, std::uint64_t key, std::uint32_t value,
                                  const std::function<void()>& once = {});

  // ---- Tensor Memory (9.7.16.7 alloc/dealloc, 9.7.16.8 ld/st/wait) -------------------
  void tmem_alloc(std::uint32_t dst_addr, std::uint32_t columns);
  void tmem_dealloc(std::uint32_t taddr, std::uint32_t columns);
  void tmem_relinquish();
  void tmem_ld_32x32b(std::uint32_t* regs, int count, std::uint32_t taddr);
  void tmem_st_32x32b(const std::uint32_t* regs, int count, std::uint32_t taddr);
  void tmem_wait_ld();
  void tmem_wait_st();
  void st_shared(std::uint32_t addr, const void* data, std::uint32_t bytes);
  // A plain C++ load of `bytes` at window address `addr` (the kernels' ld_shared): tracked only.
  void ld_shared(std::uint32_t addr, std::uint32_t bytes);
  [[nodiscard]] std::uint32_t& tmem_cell(int lane, int column) {
    return m_tmem[std::size_t(lane) * kTmemColumns + column];
  }
  // Throws unless lanes [lane, lane + lanes) x columns [column, column + columns) are allocated.
  void check_tmem_range(int lane, int lanes, int column, int columns, const char* what) const;
  [[nodiscard]] const std::vector<TmemAllocation>& tmem_allocations() const { return m_allocs; }

  // ---- tcgen05.mma / commit (9.7.16.10, 9.7.16.12) -------------------------------------
  void mma_f16_ss(std::uint32_t d_tmem, std::uint64_t a_desc, std::uint64_t b_desc, std::uint32_t idesc,
                  bool accumulate);
  void mma_commit(std::uint32_t bar_addr);

  // ---- bulk copies (9.7.9.25) ---------------------------------------------------------
  void tma_load_2d(std::uint32_t dst, const void* map, int x, int y, std::uint32_t bar);
  void tma_store_2d(const void* map, int x, int y, std::uint32_t src);
  void bulk_load(std::uint32_t dst, const void* src, std::uint32_t bytes, std::uint32_t bar);
  void bulk_reduce_add_f32(float* dst, std::uint32_t src, std::uint32_t bytes);
  void bulk_commit();
  void bulk_wait(bool read_only);

  // The CTA's end: TMEM must be freed (9.7.16.7.1: "all of the Tensor Memory ... must be
  // deallocated before the kernel exits").
  void check_exit() const;

  [[nodiscard]] RaceDetector& races() { return m_race; }

 private:
  MBarrier& mbar(std::uint32_t addr, const char* what);
  void mbar_try_complete(std::uint32_t addr, MBarrier& b);
  // The work gets the op's clock (its accesses' epoch, and what it releases).
  std::uint64_t post_bulk(std::function<void(const VectorClock&)> work, std::string what);   // bulk-group op
  void post_bulk_untracked(std::function<void(const VectorClock&)> work, std::string what);  // mbarrier copy

  Scheduler& m_sched;
  unsigned char* m_smem;
  std::size_t m_smem_bytes;
  CtaPlace m_place;
  std::map<std::uint32_t, MBarrier> m_mbars;
  std::map<std::uint32_t, std::string> m_barrier_names;
  std::map<int, NamedBarrier> m_bars;
  std::vector<WarpCollective> m_warps;
  std::vector<std::uint32_t> m_tmem;
  std::vector<TmemAllocation> m_allocs;
  bool m_relinquished = false;
  std::vector<std::vector<PendingLoad>> m_pending_loads;  // per thread
  std::vector<BulkGroups> m_bulk;                         // per thread
  std::uint64_t m_next_bulk = 1;
  std::vector<std::uint64_t> m_bulk_running;         // ids of bulk ops not yet complete
  std::map<std::uint64_t, VectorClock> m_bulk_done;  // clocks of completed bulk ops, until waited for
  RaceDetector m_race;
};

// The CTA the calling OS thread is running (set by the launcher for the CTA's lifetime).
[[nodiscard]] Cta& current_cta();
void set_current_cta(Cta* cta);

}  // namespace vsa::model
