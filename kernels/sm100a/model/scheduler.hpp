#pragma once
// Cooperative fibers for the threads of one CTA (Boost.Context), and the scheduler that
// interleaves them. A fiber runs until it reaches a synchronising or asynchronous model
// operation, which yields (or blocks on a condition); the scheduler then picks the next
// runnable fiber, or lets an asynchronous agent (copy engine, tensor core) complete one of
// its pending operations. Which fiber runs and when an async op completes is decided by a
// seeded generator, so one seed is one reproducible schedule.
//
// Fibers never move to another OS thread: the kernels' shared memory is a thread_local
// array, and the scheduler's "current" pointer is thread_local too.
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/context/fiber.hpp>

namespace vsa::model {

// A rule of the programming model broken by the kernel (bad descriptor, TMEM misuse, a
// deadlock): the run stops and the message says what, where and who.
struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct FiberThread {
  int tid = 0;
  int warp = 0;
  int lane = 0;
  boost::context::fiber context;  // this fiber while it is suspended
  boost::context::fiber sink;     // the scheduler, while this fiber runs
  bool started = false;
  bool done = false;
  std::function<bool()> ready;            // set while blocked: true once the fiber may continue
  std::function<std::string()> waits_on;  // what it is blocked on (its state now), for reports
  // The protocol-script op the thread's cursor is at (protocol_cursor.cuh), for reports; null
  // outside a script (the prologue).
  const char* op = nullptr;
};

// Async work the scheduler completes at a point of its choosing. `order_key`: ops with the
// same non-negative key complete in issue order (the tensor core pipe); -1: any order.
struct AsyncOp {
  int order_key = -1;
  std::function<void()> complete;
  std::string what;
};

struct ScheduleOptions {
  std::uint64_t seed = 0;  // 0: round robin and async ops completed as soon as possible
  // Probability that an async op completes at a scheduling point (when any is pending).
  double async_rate = 0.2;
};

class Scheduler {
 public:
  using Body = std::function<void(FiberThread&)>;
  // The kernel's role of a warp ("softmax"), for reports.
  using RoleOf = std::function<std::string(int warp)>;

  Scheduler(int threads, ScheduleOptions options, std::size_t stack_bytes = 256 * 1024);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Runs `body` on every thread to completion. Throws ModelError on a deadlock (every
  // fiber blocked and no async op pending) or on an error raised inside a fiber.
  void run(const Body& body);

  // From inside a fiber: let another fiber (or an async agent) run.
  void yield();
  // From inside a fiber: suspend until `ready()` holds (checked whenever shared state
  // changed). `what` names the wait in a deadlock report.
  void block(std::function<std::string()> what, std::function<bool()> ready);
  // Shared synchronisation state changed: blocked fibers are re-checked.
  void changed() { ++m_epoch; }

  void post(AsyncOp op);
  // Completes every pending async op (the CTA's end: nothing may stay in flight).
  [[nodiscard]] bool async_pending() const { return !m_async.empty(); }

  [[nodiscard]] FiberThread& current() { return *m_current; }
  [[nodiscard]] bool in_fiber() const { return m_current != nullptr; }
  [[nodiscard]] const std::vector<std::unique_ptr<FiberThread>>& threads() const { return m_threads; }
  [[nodiscard]] std::uint64_t step() const { return m_step; }
  [[nodiscard]] std::uint64_t seed() const { return m_options.seed; }
  void set_role_of(RoleOf r) { m_role_of = std::move(r); }
  [[nodiscard]] std::string role_of(int warp) const { return m_role_of ? m_role_of(warp) : std::string("warp"); }
  // "thread 37 (softmax warp 1 lane 5)"
  [[nodiscard]] std::string describe(const FiberThread& t) const;
  // ` at protocol op "what"`, or "" for none.
  [[nodiscard]] static std::string describe_op(const char* op);

 private:
  void refresh_blocked();
  bool complete_one_async(bool forced);
  FiberThread* pick();
  [[noreturn]] void report_deadlock();

  std::vector<std::unique_ptr<FiberThread>> m_threads;
  std::vector<AsyncOp> m_async;
  ScheduleOptions m_options;
  std::size_t m_stack_bytes;
  std::mt19937_64 m_rng;
  FiberThread* m_current = nullptr;
  std::uint64_t m_epoch = 1, m_seen_epoch = 0, m_step = 0;
  std::size_t m_rr = 0;
  int m_sticky = -1;  // the thread favoured until the next priority change point
  std::string m_error;
  RoleOf m_role_of;
};

}  // namespace vsa::model
