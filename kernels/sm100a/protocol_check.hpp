#pragma once
// Host checker for the sm100a protocol tables (protocol_model.hpp). Header-only C++17,
// no CUDA: tests/unit/sm100a_protocol_test.cpp runs it on the kernel's own tables and on
// planted faulty variants that it must reject.
//
// Method: for a work item of `steps` kv steps, every warp's script is expanded into a
// trace of events (exactly the ops the kernel executes for that step count), and a
// happens-before graph is built:
//   - program order within a warp (an ld.shared is complete in program order);
//   - asynchronous work as its own node: a TMA load lands on its barrier's phase; a
//     tcgen05.mma is done before every later tcgen05.commit of its thread and before the
//     thread's next MMA (in-order tensor pipe); a tcgen05.ld / st is done at the warp's next
//     tcgen05.wait::ld / ::st; a TMA store has read its smem at the next wait_group.read;
//   - barrier phases: every arrival of (barrier, slot, use) -> phase completion -> every wait;
//   - role / CTA barriers: the k-th bar.sync of every participant joins.
// Then it reports:
//   arrival-count   a phase gets more or fewer arrivals than the barrier's init count
//   never-completes a wait whose phase never completes (a hang)
//   phase-order     a wait issued before the slot's previous phase completed (parity
//                   aliasing), or arrivals of use u+1 not ordered after phase u completes
//   deadlock        a cycle in the happens-before graph
//   race            two accesses to overlapping smem rows or TMEM columns x lanes, at least
//                   one a write, not ordered either way
//   release-before-wait  a tcgen05.ld / st whose warp arrives (hands columns back) before its
//                   tcgen05.wait::ld / ::st
//   fence           missing tcgen05.fence::before_thread_sync before a release, ::after_thread_sync
//                   before a tcgen05 op after a wait, or fence.proxy.async after st.shared
//   sync-count      warps of one barrier group reach bar.sync / __syncthreads different times
//   teardown        asynchronous work (a tcgen05.commit arrival, an MMA, a TMA copy, a
//                   tcgen05.ld / st) not ordered before the last __syncthreads: nobody waits
//                   for it, so it may still write shared memory or TMEM after the CTA has
//                   handed them back (e.g. the last commits on a ring's "empty" barriers)
//   table           the tables contradict themselves (TMEM ranges outside the allocation or
//                   sharing columns, missing regions)
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "protocol_model.hpp"

namespace vsa::sm100a::protocol {

struct Finding {
  std::string rule;
  std::string detail;
};

struct CheckResult {
  std::vector<Finding> findings;
  int events = 0;
  [[nodiscard]] bool ok() const { return findings.empty(); }
  [[nodiscard]] bool has(const std::string& rule) const {
    return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) { return f.rule == rule; });
  }
  [[nodiscard]] std::string text() const {
    std::string out;
    for (const auto& f : findings) out += f.rule + ": " + f.detail + "\n";
    return out;
  }
};

namespace detail {

struct Agent {
  WarpRole role;
  int warp;
  bool lead;  // first warp of its role
  int lane_lo, lane_hi;
};

struct Event {
  int agent;
  const Op* op;
  int step;      // kv step the op works on
  int instance;  // barrier / buffer slot
  int use;       // barrier use (phase index) for sync ops
  int node;      // program-order node
  int async_node = -1;
  std::string where() const {
    std::ostringstream s;
    s << kind_name(op->kind) << " (" << op->what << ", step " << step << ")";
    return s.str();
  }
};

struct Access {
  int node;
  int event;
  std::uint8_t buffer;  // kNone: all of TMEM (dealloc)
  int instance;
  bool write;
};

class Graph {
 public:
  int add() {
    m_succ.emplace_back();
    return int(m_succ.size()) - 1;
  }
  void edge(int a, int b) { m_succ[std::size_t(a)].push_back(b); }
  [[nodiscard]] int size() const { return int(m_succ.size()); }
  // Reachability by reverse topological order; false when the graph has a cycle.
  bool close() {
    const int n = size();
    std::vector<int> indegree(std::size_t(n), 0), order;
    for (const auto& s : m_succ)
      for (int b : s) ++indegree[std::size_t(b)];
    for (int v = 0; v < n; ++v)
      if (indegree[std::size_t(v)] == 0) order.push_back(v);
    for (std::size_t i = 0; i < order.size(); ++i)
      for (int b : m_succ[std::size_t(order[i])])
        if (--indegree[std::size_t(b)] == 0) order.push_back(b);
    m_words = std::size_t(n + 63) / 64;
    m_reach.assign(std::size_t(n) * m_words, 0);
    if (int(order.size()) != n) return false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int v = *it;
      std::uint64_t* rv = &m_reach[std::size_t(v) * m_words];
      rv[v / 64] |= std::uint64_t(1) << (v % 64);
      for (int b : m_succ[std::size_t(v)]) {
        const std::uint64_t* rb = &m_reach[std::size_t(b) * m_words];
        for (std::size_t w = 0; w < m_words; ++w) rv[w] |= rb[w];
      }
    }
    return true;
  }
  [[nodiscard]] bool reaches(int a, int b) const {
    return (m_reach[std::size_t(a) * m_words + std::size_t(b / 64)] >> (b % 64)) & 1u;
  }

 private:
  std::vector<std::vector<int>> m_succ;
  std::vector<std::uint64_t> m_reach;
  std::size_t m_words = 0;
};

inline bool is_release(OpKind k) {
  return k == OpKind::arrive || k == OpKind::arrive_tx || k == OpKind::commit || k == OpKind::role_sync ||
         k == OpKind::cta_sync;
}
inline bool is_tcgen05_op(OpKind k) {
  return k == OpKind::mma || k == OpKind::tmem_load || k == OpKind::tmem_store || k == OpKind::tmem_dealloc;
}
inline bool is_arrival(OpKind k) { return k == OpKind::arrive || k == OpKind::arrive_tx || k == OpKind::commit; }

class Checker {
 public:
  Checker(const Protocol& p, int steps) : m_p(p), m_steps(steps) {}

  CheckResult run() {
    check_tables();
    make_agents();
    for (int a = 0; a < int(m_agents.size()); ++a) expand(a);
    link_async();
    link_barriers();
    link_syncs();
    check_local_rules();
    if (!m_graph.close()) {
      report("deadlock", "the happens-before graph has a cycle: some wait needs an arrival that comes after it");
    } else {
      check_phases();
      check_races();
      check_teardown();
    }
    m_result.events = int(m_events.size());
    return m_result;
  }

 private:
  void report(const std::string& rule, const std::string& detail) {
    // One line per distinct finding; the first few of each rule are enough to act on.
    int same = 0;
    for (const auto& f : m_result.findings)
      if (f.rule == rule) ++same;
    if (same < 8) m_result.findings.push_back({rule, "[steps=" + std::to_string(m_steps) + "] " + detail});
  }

  std::string agent_name(int a) const {
    const Agent& ag = m_agents[std::size_t(a)];
    return std::string(role_name(ag.role)) + " warp " + std::to_string(ag.warp);
  }

  void check_tables() {
    if (m_p.tmem_alloc_columns < 32 || m_p.tmem_alloc_columns > 512 ||
        (m_p.tmem_alloc_columns & (m_p.tmem_alloc_columns - 1)) != 0)
      report("table", "TMEM allocation must be a power of two in [32, 512] columns");
    for (int i = 0; i < m_p.tmem_count; ++i) {
      const TmemRange& r = m_p.tmem[i];
      if (r.first_column < 0 || r.columns <= 0 || r.first_column + r.columns > m_p.tmem_alloc_columns)
        report("table", std::string("TMEM range ") + r.name + " lies outside the allocated columns");
    }
    // Every range says it holds nothing else: two ranges sharing a column are a table error
    // even where the MMA issue order keeps the writes apart (S^T and dP^T of one step).
    for (int i = 0; i < m_p.tmem_count; ++i)
      for (int j = i + 1; j < m_p.tmem_count; ++j) {
        const TmemRange& a = m_p.tmem[i];
        const TmemRange& b = m_p.tmem[j];
        if (a.first_column < b.first_column + b.columns && b.first_column < a.first_column + a.columns)
          report("table", std::string("TMEM ranges ") + a.name + " and " + b.name + " share columns");
      }
    for (int i = 0; i < m_p.buffer_count; ++i) {
      const BufferSpec& b = m_p.buffers[i];
      if (b.memory == Memory::tmem && (b.tmem_region < 0 || b.tmem_region + m_p.ring_size(b.ring) > m_p.tmem_count))
        report("table", std::string("TMEM buffer ") + b.name + " has no column range for every instance");
    }
  }

  void make_agents() {
    for (int r = 0; r < m_p.role_count; ++r) {
      const RoleSpec& rs = m_p.roles[r];
      for (int w = 0; w < rs.warps; ++w) {
        const int warp = rs.first_warp + w;
        const int lo = rs.lane_quarter ? 32 * (warp % 4) : 0;
        m_agents.push_back({rs.role, warp, w == 0, lo, rs.lane_quarter ? lo + 32 : 128});
      }
    }
  }

  void expand(int a) {
    const Agent& ag = m_agents[std::size_t(a)];
    const Script& sc = m_p.script(ag.role);
    int prev = -1;
    auto emit = [&](const Op& op, int iteration) {
      if (!op.active(iteration, m_steps)) return;
      if (op.lead_only && !ag.lead) return;
      const int step = iteration + op.step_offset;
      Event e{a, &op, step, 0, 0, m_graph.add()};
      if (op.barrier != kNone && op.kind != OpKind::tma_load) {
        const BarrierSpec& b = m_p.barrier(op.barrier);
        e.instance = m_p.instance(b.ring, step);
        e.use = m_p.use(b.ring, step) + op.use_delta;
        if (op.kind == OpKind::wait && e.use < 0) return;  // a free slot's previous use: no wait
      }
      if (prev >= 0) m_graph.edge(m_events[std::size_t(prev)].node, e.node);
      m_events.push_back(e);
      prev = int(m_events.size()) - 1;
    };
    for (int i = 0; i < sc.prologue_size; ++i) emit(sc.prologue[i], 0);
    for (int n = sc.first_iteration; n < m_steps; ++n)
      for (int i = 0; i < sc.loop_size; ++i) emit(sc.loop[i], n);
    for (int i = 0; i < sc.epilogue_size; ++i) emit(sc.epilogue[i], m_steps);
  }

  int buffer_instance(std::uint8_t buffer, int step) const {
    return m_p.instance(m_p.buffer(buffer).ring, std::max(step, 0));
  }

  void add_access(int node, int event, std::uint8_t buffer, bool write) {
    if (buffer == kNone) return;
    m_accesses.push_back({node, event, buffer, buffer_instance(buffer, m_events[std::size_t(event)].step), write});
  }

  // Per agent: the event index of the next event at or after `from` of kind k, or -1.
  int next_of(int from, OpKind k) const {
    const int agent = m_events[std::size_t(from)].agent;
    for (std::size_t i = std::size_t(from) + 1; i < m_events.size(); ++i)
      if (m_events[i].agent == agent && m_events[i].op->kind == k) return int(i);
    return -1;
  }

  void link_async() {
    std::vector<int> last_mma(m_agents.size(), -1);
    for (int i = 0; i < int(m_events.size()); ++i) {
      Event& e = m_events[std::size_t(i)];
      const Op& op = *e.op;
      switch (op.kind) {
        case OpKind::tma_load: {
          e.async_node = m_graph.add();
          m_graph.edge(e.node, e.async_node);
          Phase& ph = phase_of_step(op.barrier, e.step);
          m_graph.edge(e.async_node, ph.node);
          ph.contributors.push_back(e.async_node);
          add_access(e.async_node, i, op.write, true);
          break;
        }
        case OpKind::mma: {
          e.async_node = m_graph.add();
          m_graph.edge(e.node, e.async_node);
          int& last = last_mma[std::size_t(e.agent)];
          if (last >= 0) m_graph.edge(m_events[std::size_t(last)].async_node, e.async_node);
          last = i;
          add_access(e.async_node, i, op.write, true);
          for (std::uint8_t r : op.read) add_access(e.async_node, i, r, false);
          break;
        }
        case OpKind::tmem_load:
        case OpKind::tmem_store:
        case OpKind::tma_store: {
          e.async_node = m_graph.add();
          m_graph.edge(e.node, e.async_node);
          const OpKind waiter = op.kind == OpKind::tmem_load    ? OpKind::wait_ld
                                : op.kind == OpKind::tmem_store ? OpKind::wait_st
                                                                : OpKind::wait_store;
          const int w = next_of(i, waiter);
          if (w >= 0)
            m_graph.edge(e.async_node, m_events[std::size_t(w)].node);
          else
            report("release-before-wait", agent_name(e.agent) + ": " + e.where() + " is never waited for");
          add_access(e.async_node, i, op.write, true);
          add_access(e.async_node, i, op.read[0], false);
          break;
        }
        case OpKind::smem_store:
          add_access(e.node, i, op.write, true);
          break;
        case OpKind::smem_load:
          add_access(e.node, i, op.read[0], false);
          break;
        case OpKind::tmem_dealloc:
          m_accesses.push_back({e.node, i, kNone, 0, true});
          break;
        default:
          break;
      }
    }
    // A commit arrives once every earlier MMA of its thread is done.
    for (int i = 0; i < int(m_events.size()); ++i) {
      Event& e = m_events[std::size_t(i)];
      if (e.op->kind != OpKind::commit) continue;
      e.async_node = m_graph.add();
      m_graph.edge(e.node, e.async_node);
      for (int j = 0; j < i; ++j) {
        const Event& m = m_events[std::size_t(j)];
        if (m.agent == e.agent && m.op->kind == OpKind::mma) m_graph.edge(m.async_node, e.async_node);
      }
    }
  }

  struct Phase {
    std::uint8_t barrier;
    int instance, use;
    int node;
    int arrivals;
    std::vector<int> arrival_nodes;  // arrive / commit nodes
    std::vector<int> contributors;   // those and the TMA writes whose bytes complete the phase
  };

  Phase& phase_of_step(std::uint8_t barrier, int step) {
    const BarrierSpec& b = m_p.barrier(barrier);
    return phase(barrier, m_p.instance(b.ring, step), m_p.use(b.ring, step));
  }
  Phase& phase(std::uint8_t barrier, int instance, int use) {
    for (auto& ph : m_phases)
      if (ph.barrier == barrier && ph.instance == instance && ph.use == use) return ph;
    m_phases.push_back({barrier, instance, use, m_graph.add(), 0, {}, {}});
    return m_phases.back();
  }
  const Phase* find_phase(std::uint8_t barrier, int instance, int use) const {
    for (const auto& ph : m_phases)
      if (ph.barrier == barrier && ph.instance == instance && ph.use == use) return &ph;
    return nullptr;
  }

  void link_barriers() {
    for (const Event& e : m_events) {
      if (!is_arrival(e.op->kind)) continue;
      Phase& ph = phase(e.op->barrier, e.instance, e.use);
      const int from = e.op->kind == OpKind::commit ? e.async_node : e.node;
      m_graph.edge(from, ph.node);
      ++ph.arrivals;
      ph.arrival_nodes.push_back(from);
      ph.contributors.push_back(from);
    }
    for (const Event& e : m_events) {
      if (e.op->kind != OpKind::wait) continue;
      const Phase* ph = find_phase(e.op->barrier, e.instance, e.use);
      const std::string name = std::string(m_p.barrier(e.op->barrier).name) + "[" + std::to_string(e.instance) +
                               "] use " + std::to_string(e.use);
      if (ph == nullptr) {
        report("never-completes", agent_name(e.agent) + " waits on " + name + ", which nobody arrives on");
        continue;
      }
      m_graph.edge(ph->node, e.node);
    }
    for (const Phase& ph : m_phases) {
      const BarrierSpec& b = m_p.barrier(ph.barrier);
      if (ph.arrivals != b.arrivals)
        report(ph.arrivals < b.arrivals ? "never-completes" : "arrival-count",
               std::string(b.name) + "[" + std::to_string(ph.instance) + "] use " + std::to_string(ph.use) + ": " +
                   std::to_string(ph.arrivals) + " arrival(s), the barrier is initialised for " +
                   std::to_string(b.arrivals));
    }
  }

  void link_syncs() {
    // k-th role_sync of each warp of a role, k-th cta_sync of every warp.
    auto join = [&](OpKind kind, auto&& member, const std::string& group) {
      std::vector<std::vector<int>> per_agent(m_agents.size());
      for (int i = 0; i < int(m_events.size()); ++i) {
        const Event& e = m_events[std::size_t(i)];
        if (e.op->kind == kind) per_agent[std::size_t(e.agent)].push_back(i);
      }
      std::size_t rounds = 0;
      bool first = true, same = true;
      for (std::size_t a = 0; a < m_agents.size(); ++a) {
        if (!member(m_agents[a])) continue;
        if (first) rounds = per_agent[a].size();
        same = same && per_agent[a].size() == rounds;
        rounds = std::min(rounds, per_agent[a].size());
        first = false;
      }
      if (!same)
        report("sync-count", "warps of " + group + " reach " + kind_name(kind) + " a different number of times");
      for (std::size_t k = 0; k < rounds; ++k) {
        const int join_node = m_graph.add();
        if (kind == OpKind::cta_sync) m_teardown_join = join_node;
        for (std::size_t a = 0; a < m_agents.size(); ++a) {
          if (!member(m_agents[a])) continue;
          const int ev = per_agent[a][k];
          m_graph.edge(m_events[std::size_t(ev)].node, join_node);
          for (std::size_t j = std::size_t(ev) + 1; j < m_events.size(); ++j)
            if (m_events[j].agent == int(a)) {
              m_graph.edge(join_node, m_events[j].node);
              break;
            }
        }
      }
    };
    join(
        OpKind::cta_sync, [](const Agent&) { return true; }, "the CTA");
    for (int r = 0; r < m_p.role_count; ++r) {
      const WarpRole role = m_p.roles[r].role;
      join(
          OpKind::role_sync, [role](const Agent& a) { return a.role == role; }, std::string("role ") + role_name(role));
    }
  }

  // Order rules inside one warp's trace.
  void check_local_rules() {
    for (int i = 0; i < int(m_events.size()); ++i) {
      const Event& e = m_events[std::size_t(i)];
      const OpKind k = e.op->kind;
      if (k == OpKind::tmem_load || k == OpKind::tmem_store || k == OpKind::smem_store) {
        const OpKind need = k == OpKind::tmem_load    ? OpKind::wait_ld
                            : k == OpKind::tmem_store ? OpKind::wait_st
                                                      : OpKind::fence_async;
        bool waited = false, fenced = k == OpKind::smem_store;
        for (std::size_t j = std::size_t(i) + 1; j < m_events.size(); ++j) {
          const Event& f = m_events[j];
          if (f.agent != e.agent) continue;
          if (f.op->kind == need) waited = true;
          if (f.op->kind == OpKind::fence_before && waited) fenced = true;
          if (is_release(f.op->kind)) {
            if (!waited)
              report(k == OpKind::smem_store ? "fence" : "release-before-wait", agent_name(e.agent) + ": " + e.where() +
                                                                                    " is followed by " + f.where() +
                                                                                    " before " + kind_name(need));
            else if (!fenced)
              report("fence", agent_name(e.agent) + ": " + e.where() + " is followed by " + f.where() +
                                  " without tcgen05.fence::before_thread_sync");
            break;
          }
        }
      }
      if (is_tcgen05_op(k)) {
        // Walk back to the last wait / sync of this warp: a fence::after_thread_sync must follow it.
        for (int j = i - 1; j >= 0; --j) {
          const Event& f = m_events[std::size_t(j)];
          if (f.agent != e.agent) continue;
          if (f.op->kind == OpKind::fence_after || is_tcgen05_op(f.op->kind)) break;
          if (f.op->kind == OpKind::wait || f.op->kind == OpKind::cta_sync || f.op->kind == OpKind::role_sync) {
            report("fence", agent_name(e.agent) + ": " + e.where() + " follows " + f.where() +
                                " without tcgen05.fence::after_thread_sync");
            break;
          }
        }
      }
    }
  }

  void check_phases() {
    for (const Event& e : m_events) {
      if (e.op->kind != OpKind::wait || e.use < 1) continue;
      const Phase* before = find_phase(e.op->barrier, e.instance, e.use - 1);
      if (before != nullptr && !m_graph.reaches(before->node, e.node))
        report("phase-order", agent_name(e.agent) + ": " + e.where() + " may run before use " +
                                  std::to_string(e.use - 1) + " of the slot completed (parity aliasing)");
    }
    // Use u+1's arrivals must not count toward use u: each must come after the phase
    // completed (seen by a waiter) or after every arrival and TMA write of use u.
    for (const Phase& ph : m_phases) {
      const Phase* next = find_phase(ph.barrier, ph.instance, ph.use + 1);
      if (next == nullptr) continue;
      for (int a : next->arrival_nodes) {
        bool after = m_graph.reaches(ph.node, a);
        if (!after) {
          after = true;
          for (int c : ph.contributors) after = after && m_graph.reaches(c, a);
        }
        if (!after) {
          report("phase-order", std::string(m_p.barrier(ph.barrier).name) + "[" + std::to_string(ph.instance) +
                                    "]: an arrival for use " + std::to_string(ph.use + 1) + " may land before use " +
                                    std::to_string(ph.use) + " completed");
          break;
        }
      }
    }
  }

  // Every asynchronous operation must be done (seen complete by some wait) before the last
  // __syncthreads, after which the CTA frees TMEM and exits and its shared memory goes to
  // the next CTA on the SM.
  void check_teardown() {
    for (const Event& e : m_events) {
      if (e.async_node < 0) continue;
      if (m_teardown_join < 0) {
        report("teardown",
               agent_name(e.agent) + ": " + e.where() + " is asynchronous and the CTA has no __syncthreads");
        continue;
      }
      if (!m_graph.reaches(e.async_node, m_teardown_join))
        report("teardown", agent_name(e.agent) + ": " + e.where() +
                               " is waited by nobody before the teardown __syncthreads: it may complete after the "
                               "CTA's shared memory / TMEM is reused");
    }
  }

  struct Cells {
    bool tmem;
    int col_lo, col_hi;  // TMEM columns [lo, hi)
    int lane_lo, lane_hi;
  };
  // Rows (lanes) an access covers: the tensor cores and the TMA engine touch whole tiles;
  // a warp's own loads and stores only the rows of its lane quarter.
  Cells cells(const Access& x) const {
    const Event& e = m_events[std::size_t(x.event)];
    const Agent& ag = m_agents[std::size_t(e.agent)];
    const OpKind k = e.op->kind;
    const bool whole =
        (k == OpKind::mma || k == OpKind::tma_load || k == OpKind::tma_store || x.buffer == kNone) && !e.op->own_rows;
    const int lo = whole ? 0 : ag.lane_lo, hi = whole ? 128 : ag.lane_hi;
    if (x.buffer == kNone) return {true, 0, m_p.tmem_alloc_columns, lo, hi};
    const BufferSpec& b = m_p.buffer(x.buffer);
    if (b.memory == Memory::smem) return {false, 0, 0, lo, hi};
    const TmemRange& r = m_p.tmem[b.tmem_region + x.instance];
    return {true, r.first_column, r.first_column + r.columns, lo, hi};
  }
  bool overlap(const Access& x, const Access& y) const {
    const Cells a = cells(x), b = cells(y);
    if (a.tmem != b.tmem) return false;
    if (!a.tmem && (x.buffer != y.buffer || x.instance != y.instance)) return false;
    if (a.tmem && (a.col_hi <= b.col_lo || b.col_hi <= a.col_lo)) return false;
    return a.lane_lo < b.lane_hi && b.lane_lo < a.lane_hi;
  }
  std::string describe(const Access& x) const {
    const Event& e = m_events[std::size_t(x.event)];
    const Cells c = cells(x);
    std::ostringstream s;
    s << agent_name(e.agent) << " " << (x.write ? "writes " : "reads ");
    if (x.buffer == kNone)
      s << "all TMEM";
    else
      s << m_p.buffer(x.buffer).name << "[" << x.instance << "]";
    if (c.tmem) s << " (TMEM columns " << c.col_lo << ".." << c.col_hi - 1 << ")";
    s << " lanes " << c.lane_lo << ".." << c.lane_hi - 1 << " in " << e.where();
    return s.str();
  }

  void check_races() {
    for (std::size_t i = 0; i < m_accesses.size(); ++i)
      for (std::size_t j = i + 1; j < m_accesses.size(); ++j) {
        const Access& x = m_accesses[i];
        const Access& y = m_accesses[j];
        if (!x.write && !y.write) continue;
        if (!overlap(x, y)) continue;
        if (m_graph.reaches(x.node, y.node) || m_graph.reaches(y.node, x.node)) continue;
        report("race", describe(x) + "  vs  " + describe(y) + ": no barrier orders them");
      }
  }

  const Protocol& m_p;
  int m_steps;
  std::vector<Agent> m_agents;
  std::vector<Event> m_events;
  std::vector<Access> m_accesses;
  std::vector<Phase> m_phases;
  Graph m_graph;
  int m_teardown_join = -1;  // join node of the last __syncthreads round
  CheckResult m_result;
};

}  // namespace detail

// Checks one step count.
[[nodiscard]] inline CheckResult check_protocol(const Protocol& p, int steps) {
  return detail::Checker(p, steps).run();
}

// Checks 0 .. max_steps kv steps (enough to wrap every ring twice), findings merged.
[[nodiscard]] inline CheckResult check_protocol_up_to(const Protocol& p, int max_steps) {
  CheckResult all;
  for (int steps = 0; steps <= max_steps; ++steps) {
    CheckResult r = check_protocol(p, steps);
    all.events += r.events;
    for (auto& f : r.findings) all.findings.push_back(std::move(f));
  }
  return all;
}

}  // namespace vsa::sm100a::protocol
