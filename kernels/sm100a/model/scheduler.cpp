#include "scheduler.hpp"

#include <boost/context/protected_fixedsize_stack.hpp>
#include <map>
#include <sstream>

namespace vsa::model {

namespace ctx = boost::context;

Scheduler::Scheduler(int threads, ScheduleOptions options, std::size_t stack_bytes)
    : m_options(options), m_stack_bytes(stack_bytes), m_rng(options.seed) {
  for (int i = 0; i < threads; ++i) {
    auto t = std::make_unique<FiberThread>();
    t->tid = i;
    t->warp = i / 32;
    t->lane = i % 32;
    m_threads.push_back(std::move(t));
  }
}

// Suspended fibers are unwound by their destructors (Boost.Context's forced unwind), which
// is how a run that stopped on an error releases its stacks.
Scheduler::~Scheduler() = default;

std::string Scheduler::describe(const FiberThread& t) const {
  std::ostringstream os;
  os << "thread " << t.tid << " (" << role_of(t.warp) << " warp " << t.warp << " lane " << t.lane << ")";
  return os.str();
}

std::string Scheduler::describe_op(const char* op) {
  return op == nullptr || *op == 0 ? std::string() : std::string(" at protocol op \"") + op + "\"";
}

void Scheduler::yield() {
  FiberThread& t = *m_current;
  t.sink = std::move(t.sink).resume();
}

void Scheduler::block(std::function<std::string()> what, std::function<bool()> ready) {
  if (ready()) {
    yield();  // still a scheduling point: another thread may run first
    return;
  }
  FiberThread& t = *m_current;
  t.waits_on = std::move(what);
  t.ready = std::move(ready);
  yield();
  t.waits_on = nullptr;
}

void Scheduler::post(AsyncOp op) {
  m_async.push_back(std::move(op));
  changed();
}

void Scheduler::refresh_blocked() {
  if (m_seen_epoch == m_epoch) return;
  m_seen_epoch = m_epoch;
  for (auto& t : m_threads)
    if (!t->done && t->ready && t->ready()) t->ready = nullptr;
}

// Completes one pending async op: the first in issue order of a random pipe (seeded), or the
// oldest one (seed 0 / forced).
bool Scheduler::complete_one_async(bool forced) {
  if (m_async.empty()) return false;
  std::size_t pick = 0;
  if (m_options.seed != 0 && !forced) {
    std::vector<std::size_t> heads;
    for (std::size_t i = 0; i < m_async.size(); ++i) {
      bool head = true;
      if (m_async[i].order_key >= 0)
        for (std::size_t j = 0; j < i && head; ++j) head = m_async[j].order_key != m_async[i].order_key;
      if (head) heads.push_back(i);
    }
    pick = heads[std::uniform_int_distribution<std::size_t>(0, heads.size() - 1)(m_rng)];
  }
  AsyncOp op = std::move(m_async[pick]);
  m_async.erase(m_async.begin() + std::ptrdiff_t(pick));
  op.complete();
  changed();
  return true;
}

FiberThread* Scheduler::pick() {
  const std::size_t n = m_threads.size();
  if (m_options.seed == 0) {
    for (std::size_t k = 0; k < n; ++k) {
      FiberThread* t = m_threads[(m_rr + k) % n].get();
      if (!t->done && !t->ready) {
        m_rr = (m_rr + k + 1) % n;
        return t;
      }
    }
    return nullptr;
  }
  // Random interleaving with a favoured thread that changes at random points (a cheap
  // form of priority change points): long runs of one thread and sudden switches both occur.
  std::uniform_real_distribution<double> u(0.0, 1.0);
  if (m_sticky >= 0 && u(m_rng) < 0.5) {
    FiberThread* s = m_threads[std::size_t(m_sticky)].get();
    if (!s->done && !s->ready) return s;
  }
  std::vector<FiberThread*> runnable;
  for (auto& t : m_threads)
    if (!t->done && !t->ready) runnable.push_back(t.get());
  if (runnable.empty()) return nullptr;
  FiberThread* t = runnable[std::uniform_int_distribution<std::size_t>(0, runnable.size() - 1)(m_rng)];
  if (u(m_rng) < 0.02) m_sticky = t->tid;
  return t;
}

void Scheduler::report_deadlock() {
  std::ostringstream os;
  os << "deadlock: every live thread is blocked and no asynchronous operation is pending (step " << m_step << ")";
  // One line per warp and wait (a warp's lanes usually wait on the same thing).
  std::map<std::pair<int, std::string>, std::vector<int>> groups;
  for (auto& t : m_threads)
    if (!t->done)
      groups[{t->warp, (t->waits_on ? t->waits_on() : std::string("(running)")) + describe_op(t->op)}].push_back(
          t->lane);
  for (const auto& [key, lanes] : groups) {
    os << "\n  " << role_of(key.first) << " warp " << key.first << " lane";
    if (lanes.size() == 1)
      os << " " << lanes.front();
    else
      os << "s " << lanes.front() << ".." << lanes.back() << " (" << lanes.size() << ")";
    os << " waits on " << key.second;
  }
  throw ModelError(os.str());
}

void Scheduler::run(const Body& body) {
  for (auto& tp : m_threads) {
    FiberThread* t = tp.get();
    t->context = ctx::fiber(std::allocator_arg, ctx::protected_fixedsize_stack(m_stack_bytes),
                            [this, t, &body](ctx::fiber&& sink) {
                              t->sink = std::move(sink);
                              try {
                                body(*t);
                              } catch (const ModelError& e) {
                                if (m_error.empty()) m_error = std::string(e.what()) + " [in " + describe(*t) + "]";
                              } catch (const std::exception& e) {
                                if (m_error.empty())
                                  m_error = std::string("exception in ") + describe(*t) + ": " + e.what();
                              }
                              t->done = true;
                              changed();
                              return std::move(t->sink);
                            });
  }
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (;;) {
    if (!m_error.empty()) break;
    bool all_done = true;
    for (auto& t : m_threads) all_done = all_done && t->done;
    if (all_done) {
      while (complete_one_async(true)) {
      }
      break;
    }
    refresh_blocked();
    if (!m_async.empty() && (m_options.seed == 0 || u(m_rng) < m_options.async_rate)) {
      complete_one_async(false);
      refresh_blocked();
    }
    FiberThread* t = pick();
    if (t == nullptr) {
      if (complete_one_async(false)) continue;
      m_seen_epoch = 0;  // a last full re-check before calling it a deadlock
      ++m_epoch;
      refresh_blocked();
      if ((t = pick()) == nullptr) report_deadlock();
    }
    m_current = t;
    t->started = true;
    t->context = std::move(t->context).resume();
    m_current = nullptr;
    ++m_step;
    if (m_step > 2'000'000'000ull) throw ModelError("schedule did not finish in 2e9 steps (livelock?)");
  }
  if (!m_error.empty()) throw ModelError(m_error);
}

}  // namespace vsa::model
