// Tensor Memory of the model CTA: allocation (PTX ISA 9.7.16.7), tcgen05.ld / st with the
// 32x32b shape and tcgen05.wait (9.7.16.8), addressed as 9.7.16.1.1 says (lane in bits
// 31..16, column in bits 15..0).
#include <cstring>
#include <sstream>

#include "cta.hpp"

namespace vsa::model {

namespace {
int lane_of(std::uint32_t taddr) { return int(taddr >> 16); }
int column_of(std::uint32_t taddr) { return int(taddr & 0xFFFFu); }
bool power_of_two(std::uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }
}  // namespace

void Cta::check_tmem_range(int lane, int lanes, int column, int columns, const char* what) const {
  if (lane < 0 || lane + lanes > kTmemLanes || column < 0 || column + columns > kTmemColumns) {
    std::ostringstream os;
    os << what << ": TMEM lanes " << lane << ".." << lane + lanes - 1 << " columns " << column << ".."
       << column + columns - 1 << " outside the 128 x 512 Tensor Memory";
    throw ModelError(os.str());
  }
  for (int c = column; c < column + columns; ++c) {
    bool owned = false;
    for (const auto& a : m_allocs)
      owned = owned || (std::uint32_t(c) >= a.column && std::uint32_t(c) < a.column + a.columns);
    if (!owned) {
      std::ostringstream os;
      os << what << ": TMEM column " << c << " is not allocated (columns " << column << ".." << column + columns - 1
         << ")";
      throw ModelError(os.str());
    }
  }
}

// 9.7.16.7.1 tcgen05.alloc: warp-wide; nCols a power of two in [32, 512]; the address of the
// allocation (lane 0, its first column) is written to shared memory at [dst]. Not allowed
// after the CTA relinquished its allocation permit. With one CTA per SM in the model, an
// allocation that does not fit would block forever: an error.
void Cta::tmem_alloc(std::uint32_t dst_addr, std::uint32_t columns) {
  const int warp = me().warp;
  warp_meet(0xffffffffu, "tcgen05.alloc", (std::uint64_t(dst_addr) << 32) | columns, 0, [&] {
    if (!power_of_two(columns) || columns < 32 || columns > 512)
      throw ModelError("tcgen05.alloc: " + std::to_string(columns) +
                       " columns; nCols must be a power of two in [32, 512] (PTX ISA 9.7.16.7.1)");
    if (m_relinquished) throw ModelError("tcgen05.alloc after tcgen05.relinquish_alloc_permit (PTX ISA 9.7.16.7.1)");
    std::uint32_t used = 0;
    for (const auto& a : m_allocs) used += a.columns;
    for (std::uint32_t start = 0; start + columns <= std::uint32_t(kTmemColumns); start += columns) {
      bool free = true;
      for (const auto& a : m_allocs) free = free && (start + columns <= a.column || a.column + a.columns <= start);
      if (free) {
        m_allocs.push_back({start, columns, warp});
        std::uint32_t* dst = reinterpret_cast<std::uint32_t*>(smem_at(dst_addr, 4, "tcgen05.alloc"));
        *dst = start;  // lane 0, column `start`
        // The address write keeps same-address order with the thread's generic accesses
        // (9.7.16.6.1): tracked as that thread's write.
        const int tid = me().tid;
        m_race.access(Space::smem, dst_addr, 4, true, Access::tmem_alloc, tid, m_race.thread_agent(tid),
                      m_race.thread_clock(tid), me().op);
        return;
      }
    }
    throw ModelError("tcgen05.alloc of " + std::to_string(columns) + " columns with " + std::to_string(used) +
                     " of 512 already allocated: past the 512 columns of Tensor Memory (it would wait forever)");
  });
}

// 9.7.16.7.1 tcgen05.dealloc: frees an allocation of this warp, exactly as allocated.
void Cta::tmem_dealloc(std::uint32_t taddr, std::uint32_t columns) {
  const int warp = me().warp;
  warp_meet(0xffffffffu, "tcgen05.dealloc", (std::uint64_t(taddr) << 32) | columns, 0, [&] {
    if (lane_of(taddr) != 0) throw ModelError("tcgen05.dealloc: address lane field must be 0");
    for (auto it = m_allocs.begin(); it != m_allocs.end(); ++it) {
      if (it->column != std::uint32_t(column_of(taddr))) continue;
      if (it->columns != columns)
        throw ModelError("tcgen05.dealloc of " + std::to_string(columns) + " columns at column " +
                         std::to_string(it->column) + ", allocated as " + std::to_string(it->columns));
      if (it->warp != warp)
        throw ModelError("tcgen05.dealloc by warp " + std::to_string(warp) + " of TMEM allocated by warp " +
                         std::to_string(it->warp) + " (the allocating warp must free it)");
      // A write of every freed cell under the generic view (dealloc is synchronous, 9.7.16.6.1):
      // a tcgen05.ld / st / mma not ordered before the teardown sync races with it.
      const int tid = me().tid;
      for (int lane = 0; lane < kTmemLanes; ++lane)
        m_race.access(Space::tmem, std::uint32_t(lane * kTmemColumns) + it->column, it->columns, true,
                      Access::tmem_dealloc, tid, m_race.thread_agent(tid), m_race.thread_clock(tid), me().op);
      m_allocs.erase(it);
      return;
    }
    throw ModelError("tcgen05.dealloc at column " + std::to_string(column_of(taddr)) + ": no allocation starts there");
  });
}

// 9.7.16.7.1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned: warp-wide like
// alloc and dealloc (every lane, same instruction); afterwards the CTA may not allocate.
void Cta::tmem_relinquish() {
  warp_meet(0xffffffffu, "tcgen05.relinquish_alloc_permit", 0, 0, [&] { m_relinquished = true; });
}

void Cta::check_exit() const {
  // 9.7.9.25.4.3: a bulk op of the bulk_group kind (TMA store, bulk reduce) reads its shared-memory
  // source until cp.async.bulk.wait_group.read by the thread that committed it says it has; the
  // CTA's shared memory is released when its threads exit, so a thread must wait for its own
  // groups before it ends. Another thread's wait covers nothing: groups are per thread (review
  // of 2026-12-06: the forward's store wait moved to another lane passed).
  for (std::size_t tid = 0; tid < m_bulk.size(); ++tid) {
    const std::size_t pending = m_bulk[tid].committed_ids.size() + m_bulk[tid].uncommitted_ids.size();
    if (pending == 0) continue;
    const int warp = int(tid) / 32;
    std::ostringstream os;
    os << "thread " << tid << " (warp " << warp << " lane " << tid % 32 << ", " << m_sched.role_of(warp)
       << ") ended with " << pending << " bulk op(s) it issued and never waited for ("
       << m_bulk[tid].uncommitted_ids.size()
       << " not committed): cp.async.bulk.wait_group(.read) by the issuing thread must come before the CTA's shared "
          "memory is released";
    throw ModelError(os.str());
  }
  if (!m_allocs.empty()) {
    std::ostringstream os;
    os << "CTA exits with Tensor Memory still allocated:";
    for (const auto& a : m_allocs)
      os << " columns " << a.column << ".." << a.column + a.columns - 1 << " (warp " << a.warp << ")";
    throw ModelError(os.str());
  }
}

namespace {
// 9.7.16.8 (restrictions on TMEM access, 9.7.16.1): warp w of a warpgroup reaches lanes
// 32 (w % 4) .. 32 (w % 4) + 31; a 32x32b access covers exactly those 32 lanes.
void check_quarter(int warp, std::uint32_t taddr, const char* what) {
  const int quarter = 32 * (warp % 4);
  if (lane_of(taddr) != quarter) {
    std::ostringstream os;
    os << what << ": warp " << warp << " addresses TMEM lanes " << lane_of(taddr) << ".." << lane_of(taddr) + 31
       << "; it may only reach lanes " << quarter << ".." << quarter + 31 << " (warp % 4 = " << warp % 4 << ")";
    throw ModelError(os.str());
  }
}
}  // namespace

// tcgen05.ld.sync.aligned.32x32b.x(count): lane i of the warp reads TMEM lane (lane base +
// i), register j = column (column base + j). The registers are undefined until
// tcgen05.wait::ld: the model poisons them now and fills them at the wait.
void Cta::tmem_ld_32x32b(std::uint32_t* regs, int count, std::uint32_t taddr) {
  FiberThread& t = me();
  warp_meet(0xffffffffu, "tcgen05.ld.32x32b", (std::uint64_t(taddr) << 8) | std::uint64_t(count), 0);
  check_quarter(t.warp, taddr, "tcgen05.ld.32x32b");
  check_tmem_range(lane_of(taddr), 32, column_of(taddr), count, "tcgen05.ld.32x32b");
  for (int j = 0; j < count; ++j) regs[j] = kPoison;
  const int lane_read = lane_of(taddr) + t.lane;
  m_race.access(Space::tmem, std::uint32_t(lane_read * kTmemColumns + column_of(taddr)), std::uint32_t(count), false,
                Access::tmem_ld, t.tid, m_race.ld_agent(t.tid), m_race.issue_tcgen05(t.tid, m_race.ld_agent(t.tid)),
                t.op);
  m_pending_loads[std::size_t(t.tid)].push_back({regs, count, lane_of(taddr) + t.lane, column_of(taddr)});
}

void Cta::tmem_st_32x32b(const std::uint32_t* regs, int count, std::uint32_t taddr) {
  FiberThread& t = me();
  warp_meet(0xffffffffu, "tcgen05.st.32x32b", (std::uint64_t(taddr) << 8) | std::uint64_t(count), 0);
  check_quarter(t.warp, taddr, "tcgen05.st.32x32b");
  check_tmem_range(lane_of(taddr), 32, column_of(taddr), count, "tcgen05.st.32x32b");
  const int lane = lane_of(taddr) + t.lane;
  m_race.access(Space::tmem, std::uint32_t(lane * kTmemColumns + column_of(taddr)), std::uint32_t(count), true,
                Access::tmem_st, t.tid, m_race.st_agent(t.tid), m_race.issue_tcgen05(t.tid, m_race.st_agent(t.tid)),
                t.op);
  for (int j = 0; j < count; ++j) tmem_cell(lane, column_of(taddr) + j) = regs[j];
}

// tcgen05.wait::ld: every earlier tcgen05.ld of this thread has completed; the model reads
// TMEM here, the latest point the hardware could have.
void Cta::tmem_wait_ld() {
  FiberThread& t = me();
  warp_meet(0xffffffffu, "tcgen05.wait::ld", 0, 0);
  for (const PendingLoad& p : m_pending_loads[std::size_t(t.tid)])
    for (int j = 0; j < p.count; ++j) p.dst[j] = tmem_cell(p.lane, p.column + j);
  m_pending_loads[std::size_t(t.tid)].clear();
  m_race.complete(t.tid, m_race.ld_agent(t.tid));  // the loads are now the thread's
}

void Cta::tmem_wait_st() {
  warp_meet(0xffffffffu, "tcgen05.wait::st", 0, 0);
  m_race.complete(me().tid, m_race.st_agent(me().tid));
}

void Cta::ld_shared(std::uint32_t addr, std::uint32_t bytes) {
  const int tid = me().tid;
  (void)smem_at(addr, bytes, "ld.shared");
  m_race.access(Space::smem, addr, bytes, false, Access::ld_shared, tid, m_race.thread_agent(tid),
                m_race.thread_clock(tid), me().op);
}

void Cta::st_shared(std::uint32_t addr, const void* data, std::uint32_t bytes) {
  const int tid = me().tid;
  m_race.access(Space::smem, addr, bytes, true, Access::st_shared, tid, m_race.thread_agent(tid),
                m_race.thread_clock(tid), me().op);
  std::memcpy(smem_at(addr, bytes, "st.shared"), data, bytes);
}

}  // namespace vsa::model
