#include "race_detector.hpp"

#include <algorithm>
#include <sstream>

#include "cta.hpp"

namespace vsa::model {

const char* access_name(Access a) {
  switch (a) {
    case Access::st_shared:
      return "st.shared.v4";
    case Access::tma_load:
      return "cp.async.bulk.tensor load";
    case Access::tma_store:
      return "cp.async.bulk.tensor store";
    case Access::bulk_load:
      return "cp.async.bulk load";
    case Access::bulk_reduce:
      return "cp.reduce.async.bulk";
    case Access::mma_read_a:
      return "tcgen05.mma (A operand)";
    case Access::mma_read_b:
      return "tcgen05.mma (B operand)";
    case Access::mma_write_d:
      return "tcgen05.mma (D accumulator)";
    case Access::tmem_ld:
      return "tcgen05.ld";
    case Access::tmem_st:
      return "tcgen05.st";
    case Access::tmem_dealloc:
      return "tcgen05.dealloc";
    case Access::ld_shared:
      return "ld.shared";
    case Access::tmem_alloc:
      return "tcgen05.alloc (its address write to shared memory)";
  }
  return "?";
}

void join(VectorClock& into, const VectorClock& from) {
  if (from.empty()) return;
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i)
    if (from[i] > into[i]) into[i] = from[i];
}

RaceDetector::RaceDetector(int threads, std::size_t smem_bytes, Scheduler& sched)
    : m_threads(threads),
      m_sched(sched),
      m_thread_vc(std::size_t(threads), VectorClock(std::size_t(5 * threads), 0)),
      m_pipe_vc(std::size_t(threads), VectorClock(std::size_t(5 * threads), 0)),
      m_tc_view(std::size_t(threads), VectorClock(std::size_t(5 * threads), 0)),
      m_fenced_ld(std::size_t(threads), 0),
      m_fenced_st(std::size_t(threads), 0),
      m_agent_clock(std::size_t(5 * threads), 0),
      m_smem((smem_bytes + 15) / 16),
      m_tmem(std::size_t(kTmemLanes) * kTmemColumns),
      m_unfenced(std::size_t(threads)) {
  for (int t = 0; t < threads; ++t) m_thread_vc[std::size_t(t)][thread_agent(t)] = 1;
}

VectorClock RaceDetector::issue(int t, std::uint32_t agent) {
  VectorClock vc = m_thread_vc[std::size_t(t)];
  vc[agent] = ++m_agent_clock[agent];
  return vc;
}

VectorClock RaceDetector::tcgen05_view(int t) const {
  VectorClock vc = m_tc_view[std::size_t(t)];
  const VectorClock& own = m_thread_vc[std::size_t(t)];
  for (const std::uint32_t a : {thread_agent(t), ld_agent(t), st_agent(t)}) vc[a] = std::max(vc[a], own[a]);
  return vc;
}

VectorClock RaceDetector::issue_tcgen05(int t, std::uint32_t agent) {
  VectorClock vc = tcgen05_view(t);
  vc[agent] = ++m_agent_clock[agent];
  return vc;
}

VectorClock RaceDetector::issue_tensor(int t) {
  VectorClock& pipe = m_pipe_vc[std::size_t(t)];
  join(pipe, tcgen05_view(t));
  pipe[tensor_agent(t)] = ++m_agent_clock[tensor_agent(t)];
  return pipe;
}

// Only the loads and stores already completed (wait::ld / wait::st) travel: as we read
// 9.7.16.6, an asynchronous tcgen05 op is complete at its wait, and the fence orders it from
// there. An unwaited tcgen05.ld stays unordered even behind a fence (the seed review's bug).
void RaceDetector::fence_before_thread_sync(int t) {
  m_fenced_ld[std::size_t(t)] = m_thread_vc[std::size_t(t)][ld_agent(t)];
  m_fenced_st[std::size_t(t)] = m_thread_vc[std::size_t(t)][st_agent(t)];
}

VectorClock RaceDetector::released(int t) const {
  VectorClock vc = m_thread_vc[std::size_t(t)];
  vc[ld_agent(t)] = m_fenced_ld[std::size_t(t)];
  vc[st_agent(t)] = m_fenced_st[std::size_t(t)];
  return vc;
}

std::string RaceDetector::describe(const Epoch& e) const {
  const auto& threads = m_sched.threads();
  std::ostringstream os;
  os << access_name(e.what) << (e.write ? " write" : " read") << " by "
     << (e.tid < threads.size() ? m_sched.describe(*threads[e.tid]) : std::string("?"));
  if (e.agent >= std::uint32_t(m_threads)) {
    const int kind = int(e.agent) / m_threads;
    os << (kind == 1   ? " via the copy engine"
           : kind == 2 ? " via the tensor core"
           : kind == 3 ? " (before its wait::ld)"
                       : " (before its wait::st)");
  }
  os << Scheduler::describe_op(e.op) << " at step " << e.step;
  return os.str();
}

void RaceDetector::fence_proxy_async(int t) {
  const std::uint32_t clock = m_thread_vc[std::size_t(t)][thread_agent(t)];
  for (std::uint32_t i : m_unfenced[std::size_t(t)]) {
    Shadow& s = m_smem[i];
    if (s.last_write.agent == thread_agent(t) && s.fence_clock == 0) s.fence_clock = clock;
  }
  m_unfenced[std::size_t(t)].clear();
}

void RaceDetector::report(Space space, std::uint32_t index, const Epoch& earlier, const Epoch& now, const char* why) {
  std::ostringstream os;
  os << "race";
  if (!m_label.empty()) os << " in " << m_label;
  os << ": ";
  if (space == Space::smem)
    os << "shared memory bytes 0x" << std::hex << (kSmemWindowBase + 16 * index) << "..0x"
       << (kSmemWindowBase + 16 * index + 15) << std::dec;
  else
    os << "TMEM lane " << index / kTmemColumns << " column " << index % kTmemColumns;
  os << ": " << describe(earlier) << ", and " << describe(now) << ", " << why;
  throw ModelError(os.str());
}

void RaceDetector::access(Space space, std::uint32_t first, std::uint32_t count, bool write, Access what, int tid,
                          std::uint32_t agent, const VectorClock& vc, const char* op) {
  std::vector<Shadow>& shadow = space == Space::smem ? m_smem : m_tmem;
  std::uint32_t lo = first, hi = first + count;  // cells
  if (space == Space::smem) {
    lo = (first - kSmemWindowBase) / 16;
    hi = (first - kSmemWindowBase + count + 15) / 16;
  }
  const Epoch now{agent, vc[agent], std::uint32_t(m_sched.step()), std::uint16_t(tid), what, write, op};
  const bool async_read = !write && space == Space::smem &&
                          (what == Access::mma_read_a || what == Access::mma_read_b || what == Access::tma_store ||
                           what == Access::bulk_reduce);
  for (std::uint32_t i = lo; i < hi && i < shadow.size(); ++i) {
    Shadow& s = shadow[i];
    const Epoch& w = s.last_write;
    if (w.clock != 0 && w.agent != agent && vc[w.agent] < w.clock) report(space, i, w, now);
    if (async_read && w.clock != 0 && w.agent < std::uint32_t(m_threads) &&
        (s.fence_clock == 0 || vc[w.agent] < s.fence_clock))
      report(space, i, w, now,
             "the async proxy reading a generic-proxy write not ordered after a fence.proxy.async of its writer");
    if (write && space == Space::smem && what == Access::st_shared) {
      s.fence_clock = 0;
      m_unfenced[std::size_t(tid)].push_back(i);
    }
    if (write) {
      for (const Epoch& r : s.reads)
        if (r.agent != agent && vc[r.agent] < r.clock) report(space, i, r, now);
      s.reads.clear();
      s.last_write = now;
    } else {
      bool found = false;
      for (Epoch& r : s.reads)
        if (r.agent == agent) {
          r = now;
          found = true;
        }
      if (!found) s.reads.push_back(now);
    }
  }
}

}  // namespace vsa::model
