#include "backends/selftest_backends.hpp"

#include <chrono>
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

}  // namespace

void register_host_selftest_backends(Registry& registry) {
  registry.add(std::make_unique<PlantedFaultBackend>(PlantedFaultBackend::Kind::abort));
  registry.add(std::make_unique<PlantedFaultBackend>(PlantedFaultBackend::Kind::hang));
}

}  // namespace vsa
