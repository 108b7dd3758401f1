// Shared memory, mbarriers, CTA/named barriers and warp collectives of the model CTA.
#include "cta.hpp"

#include <algorithm>
#include <sstream>

namespace vsa::model {

namespace {
thread_local Cta* g_cta = nullptr;

std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}
}  // namespace

Cta& current_cta() {
  if (g_cta == nullptr) throw ModelError("model: a device operation ran outside a model CTA");
  return *g_cta;
}
void set_current_cta(Cta* cta) { g_cta = cta; }

Cta::Cta(Scheduler& scheduler, unsigned char* smem, std::size_t smem_bytes, CtaPlace place)
    : m_sched(scheduler),
      m_smem(smem),
      m_smem_bytes(smem_bytes),
      m_place(place),
      m_warps((place.threads + 31) / 32),
      m_tmem(std::size_t(kTmemLanes) * kTmemColumns, kPoison),
      m_pending_loads(place.threads),
      m_bulk(place.threads),
      m_race(int(place.threads), smem_bytes, scheduler) {}

std::string Cta::barrier_name(std::uint32_t addr) const {
  auto it = m_barrier_names.find(addr);
  std::string s = "mbarrier at smem " + hex(addr);
  if (it != m_barrier_names.end()) s = "mbarrier " + it->second + " (smem " + hex(addr) + ")";
  return s;
}

// ---- shared memory ------------------------------------------------------------------------

bool Cta::in_smem(const void* p) const {
  const auto* c = static_cast<const unsigned char*>(p);
  return c >= m_smem && c < m_smem + m_smem_bytes;
}

std::uint32_t Cta::smem_address(const void* p) const {
  if (!in_smem(p)) throw ModelError("smem_addr of a pointer outside the CTA's shared memory");
  return kSmemWindowBase + std::uint32_t(static_cast<const unsigned char*>(p) - m_smem);
}

unsigned char* Cta::smem_at(std::uint32_t addr, std::size_t bytes, const char* what) const {
  if (addr < kSmemWindowBase || addr - kSmemWindowBase + bytes > m_smem_bytes)
    throw ModelError(std::string(what) + ": shared-memory access " + hex(addr) + "+" + std::to_string(bytes) +
                     " outside the " + std::to_string(m_smem_bytes) + "-byte dynamic shared memory");
  return m_smem + (addr - kSmemWindowBase);
}

// ---- mbarrier -----------------------------------------------------------------------------

MBarrier& Cta::mbar(std::uint32_t addr, const char* what) {
  if (addr % 8 != 0) throw ModelError(std::string(what) + ": mbarrier address " + hex(addr) + " not 8-byte aligned");
  (void)smem_at(addr, 8, what);
  auto it = m_mbars.find(addr);
  if (it == m_mbars.end()) throw ModelError(std::string(what) + " on " + barrier_name(addr) + " before mbarrier.init");
  return it->second;
}

const MBarrier& Cta::mbarrier(std::uint32_t addr) const {
  auto it = m_mbars.find(addr);
  if (it == m_mbars.end()) throw ModelError("no mbarrier at " + hex(addr));
  return it->second;
}

// 9.7.13.15.9 mbarrier.init: count in [1, 2^20 - 1]; phase 0, pending = count, tx = 0.
void Cta::mbar_init(std::uint32_t addr, std::uint32_t count) {
  if (addr % 8 != 0) throw ModelError("mbarrier.init: address " + hex(addr) + " not 8-byte aligned");
  (void)smem_at(addr, 8, "mbarrier.init");
  if (count < 1 || count > (1u << 20) - 1)
    throw ModelError("mbarrier.init of " + barrier_name(addr) + ": count " + std::to_string(count) +
                     " outside [1, 2^20 - 1]");
  MBarrier fresh;
  fresh.expected = count;
  fresh.pending = count;
  m_mbars[addr] = fresh;
  m_sched.changed();
}

// 9.7.13.15.1.2 phase completion: pending arrivals and tx-count both zero; the next phase
// starts with the expected count again.
void Cta::mbar_try_complete(std::uint32_t, MBarrier& b) {
  if (b.pending == 0 && b.tx == 0) {
    b.done[b.phase & 1u] = std::move(b.acc);
    b.acc.clear();
    ++b.phase;
    b.pending = b.expected;
    m_sched.changed();
  }
}

// 9.7.13.15.13 mbarrier.arrive: more arrivals than pending in the phase is undefined
// behaviour; the model calls it an error.
void Cta::mbar_arrive(std::uint32_t addr, std::uint32_t count, const VectorClock* release) {
  MBarrier& b = mbar(addr, "mbarrier.arrive");
  if (count > b.pending)
    throw ModelError("mbarrier.arrive on " + barrier_name(addr) + ": " + std::to_string(count) +
                     " arrival(s) with only " + std::to_string(b.pending) + " pending in phase " +
                     std::to_string(b.phase));
  if (release != nullptr) {
    join(b.acc, *release);
  } else {
    join(b.acc, m_race.released(me().tid));
    m_race.tick(me().tid);
  }
  b.pending -= count;
  mbar_try_complete(addr, b);
  m_sched.changed();
}

// 9.7.13.15.11 expect-tx: tx-count += bytes (range [-(2^20-1), 2^20-1], 9.7.13.15.1.1).
void Cta::mbar_expect_tx(std::uint32_t addr, std::uint32_t bytes) {
  MBarrier& b = mbar(addr, "mbarrier.expect_tx");
  b.tx += bytes;
  if (b.tx > (1 << 20) - 1) throw ModelError("expect-tx on " + barrier_name(addr) + ": tx-count above 2^20 - 1");
}

// 9.7.13.15.12 complete-tx: tx-count -= bytes, then the phase may complete.
void Cta::mbar_complete_tx(std::uint32_t addr, std::uint32_t bytes, const VectorClock& release) {
  MBarrier& b = mbar(addr, "complete-tx");
  join(b.acc, release);
  b.tx -= bytes;
  if (b.tx < -((1 << 20) - 1)) throw ModelError("complete-tx on " + barrier_name(addr) + ": tx-count below -(2^20-1)");
  mbar_try_complete(addr, b);
  m_sched.changed();
}

// 9.7.13.15.16 mbarrier.try_wait.parity: true once the phase with parity `parity` has
// completed, i.e. while the current (incomplete) phase has the other parity.
void Cta::mbar_wait_parity(std::uint32_t addr, std::uint32_t parity) {
  MBarrier& b = mbar(addr, "mbarrier.try_wait.parity");
  const std::uint32_t want = parity & 1u;
  MBarrier* pb = &b;
  m_sched.block(
      [this, addr, pb, want] {
        std::ostringstream what;
        what << barrier_name(addr) << " for parity " << want << " (completed phases " << pb->phase << ", "
             << pb->pending << "/" << pb->expected << " arrivals pending, tx-count " << pb->tx << ")";
        return what.str();
      },
      [pb, want] { return (pb->phase & 1u) != want; });
  join(m_race.thread_clock(me().tid), pb->done[want]);  // acquire
}

// ---- barriers -----------------------------------------------------------------------------

// 9.7.13.1 bar.sync a, b: the barrier completes when b threads have arrived (b a multiple
// of the warp size; 0 <= a < 16). bar.sync 0 with the CTA's size is __syncthreads.
void Cta::bar_sync(int id, int count) {
  if (id < 0 || id > 15) throw ModelError("bar.sync: barrier id " + std::to_string(id) + " outside 0..15");
  if (count <= 0 || count % 32 != 0 || count > int(m_place.threads))
    throw ModelError("bar.sync " + std::to_string(id) + ": thread count " + std::to_string(count) +
                     " not a positive multiple of 32 up to the CTA size");
  NamedBarrier& b = m_bars[id];
  if (b.arrived == 0) b.count = count;
  if (b.count != count)
    throw ModelError("bar.sync " + std::to_string(id) + ": thread count " + std::to_string(count) +
                     " differs from the " + std::to_string(b.count) + " of the threads already waiting");
  const std::uint64_t gen = b.generation;
  const int tid = me().tid;
  join(b.acc, m_race.released(tid));
  m_race.tick(tid);
  if (++b.arrived == b.count) {
    b.arrived = 0;
    b.released = std::move(b.acc);
    b.acc.clear();
    join(m_race.thread_clock(tid), b.released);
    ++b.generation;
    m_sched.changed();
    m_sched.yield();
    return;
  }
  NamedBarrier* pb = &b;
  m_sched.block(
      [pb, id, count] {
        return "bar.sync " + std::to_string(id) + " (" + std::to_string(pb->arrived) + " of " + std::to_string(count) +
               " threads arrived)";
      },
      [pb, gen] { return pb->generation != gen; });
  join(m_race.thread_clock(tid), pb->released);
}

const WarpCollective& Cta::warp_meet(std::uint32_t mask, const char* kind, std::uint64_t key, std::uint32_t value,
                                     const std::function<void()>& once) {
  FiberThread& t = me();
  if ((mask >> t.lane & 1u) == 0) throw ModelError(std::string(kind) + ": the calling lane is not in the member mask");
  WarpCollective& w = m_warps[std::size_t(t.warp)];
  if (w.arrived == 0) {
    w.mask = mask;
    w.kind = kind;
    w.key = key;
  } else if (w.mask != mask || w.kind != kind || w.key != key) {
    std::ostringstream os;
    os << "warp " << t.warp << " diverged at a warp-synchronous instruction: lane " << t.lane << " reached " << kind
       << " (mask 0x" << std::hex << mask << ", operand 0x" << key << ") while other lanes wait in " << w.kind
       << " (mask 0x" << w.mask << ", operand 0x" << w.key << ")";
    throw ModelError(os.str());
  }
  w.value[t.lane] = value;
  const std::uint64_t gen = w.generation;
  const int members = __builtin_popcount(mask);
  join(w.acc, m_race.released(t.tid));
  m_race.tick(t.tid);
  if (++w.arrived == members) {
    for (int i = 0; i < 32; ++i) w.result[i] = w.value[i];
    w.released = std::move(w.acc);
    w.acc.clear();
    join(m_race.thread_clock(t.tid), w.released);
    w.arrived = 0;
    if (once) once();
    ++w.generation;
    m_sched.changed();
    m_sched.yield();
    return w;
  }
  WarpCollective* pw = &w;
  const std::string what = std::string(kind) + " (warp rendezvous)";
  m_sched.block([what] { return what; }, [pw, gen] { return pw->generation != gen; });
  join(m_race.thread_clock(t.tid), pw->released);
  return w;
}

}  // namespace vsa::model
