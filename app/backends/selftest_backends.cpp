#include "backends/selftest_backends.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

namespace vsa {
namespace {

class PlantedFaultBackend final : public Backend {
 public:
  enum class Kind { abort, hang };
  explicit PlantedFaultBackend(Kind kind) : m_kind(kind) {}
  std::string name() const override { return m_kind == Kind::abort ? "selftest-abort" : "selftest-hang"; }
  std::string description() const override {
    return m_kind == Kind::abort ? "planted fault: aborts its process in forward (must end FAULT)"
                                 : "planted fault: never returns from forward (must end HANG)";
  }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op op) const override { return op == Op::forward; }
  Support supports(const DeviceInfo&, const Shape&, Op) const override { return Support::yes(); }
  Status forward(const ForwardArgs&) override {
    if (m_kind == Kind::abort) std::abort();
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  Status backward(const BackwardArgs&) override { return Status::failure("no backward"); }

 private:
  Kind m_kind;
};

// A worker that says something off-protocol: an error event on its stdout in the
// middle of a case, then no answer. The case must end FAIL with that message, and the
// next case must not read this worker's leftovers.
class StrayEventBackend final : public Backend {
 public:
  std::string name() const override { return "selftest-stray-event"; }
  std::string description() const override {
    return "planted fault: writes an error event to the worker protocol in forward (must end FAIL)";
  }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op op) const override { return op == Op::forward; }
  Support supports(const DeviceInfo&, const Shape&, Op) const override { return Support::yes(); }
  Status forward(const ForwardArgs&) override {
    std::fputs("{\"event\": \"error\", \"message\": \"planted stray error event\"}\n", stdout);
    std::fflush(stdout);
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  Status backward(const BackwardArgs&) override { return Status::failure("no backward"); }
};

}  // namespace

void register_host_selftest_backends(Registry& registry) {
  registry.add(std::make_unique<PlantedFaultBackend>(PlantedFaultBackend::Kind::abort));
  registry.add(std::make_unique<PlantedFaultBackend>(PlantedFaultBackend::Kind::hang));
  registry.add(std::make_unique<StrayEventBackend>());
}

}  // namespace vsa
