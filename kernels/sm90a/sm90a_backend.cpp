// The sm90a backends: "sm90a" (dQ by fp32 atomics) and "sm90a-det"
// (deterministic dQ). Dispatch only; the kernels live beside this file.
#include <memory>

#include "launch.hpp"
#include "vsa/registry.hpp"

namespace vsa::sm90a {
namespace {

class Sm90aBackend final : public Backend {
 public:
  explicit Sm90aBackend(bool deterministic) : m_deterministic(deterministic) {}

  std::string name() const override { return m_deterministic ? "sm90a-det" : "sm90a"; }
  std::string description() const override {
    return m_deterministic ? "Hopper wgmma/TMA kernels, deterministic backward (no dQ atomics)"
                           : "Hopper wgmma/TMA kernels (forward, backward with fp32 dQ atomics)";
  }
  Memory memory() const override { return Memory::device; }
  bool has_op(Op) const override { return true; }

  Support supports(const DeviceInfo& dev, const Shape& s, Op) const override {
    if (!dev.present()) return Support::no("no CUDA device");
    if (dev.cc() != 90)
      return Support::no("needs compute capability 9.0 (sm_90a image), device is " + std::to_string(dev.cc_major) +
                         "." + std::to_string(dev.cc_minor));
    return supports_shape(s, Op::forward);
  }
  Support supports_shape(const Shape& s, Op) const override {
    if (s.block != kBlock) return Support::no("needs BLK = 64, got " + std::to_string(s.block));
    if (s.head_dim != kHeadDim) return Support::no("needs D = 128, got " + std::to_string(s.head_dim));
    return Support::yes();
  }

  std::size_t workspace_bytes(const Shape& s, Op op) const override {
    return op == Op::forward ? forward_workspace_bytes(s) : backward_workspace_bytes(s, m_deterministic);
  }
  std::vector<std::string> nondeterministic_outputs() const override {
    if (m_deterministic) return {};
    return {"dq"};
  }
  Status forward(const ForwardArgs& a) override { return launch_forward(a); }
  Status backward(const BackwardArgs& a) override { return launch_backward(a, m_deterministic); }
  std::vector<std::string> compiled_images() const override { return {"sm_90a"}; }
  std::vector<KernelInfo> kernels() const override {
    auto all = forward_kernels();
    for (auto& k : backward_kernels(m_deterministic)) all.push_back(std::move(k));
    return all;
  }
  std::vector<std::string> probe_points() const override { return probe_names(); }

 private:
  bool m_deterministic;
};

}  // namespace

std::vector<std::string> probe_names() { return {"fwd.release_kv", "fwd.epilogue", "bwd.release_q", "bwd.dq_reduce"}; }

}  // namespace vsa::sm90a

namespace vsa {
void register_sm90a_backends(Registry& registry) {
  registry.add(std::make_unique<sm90a::Sm90aBackend>(false));
  registry.add(std::make_unique<sm90a::Sm90aBackend>(true));
}
}  // namespace vsa
