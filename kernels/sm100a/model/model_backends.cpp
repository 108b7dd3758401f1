// The sm100a kernels on the execution model as host backends: `sm100a-blk64@model` (forward
// and backward) and `sm100a-blk128@model` (forward). Same shape rules as the hardware
// backends (launch.hpp), plus a size cap: the model runs a CTA's threads as fibers on one
// core, so larger cases are refused with the reason instead of taking minutes.
//
// What a PASS proves: the kernels' logic, layouts and synchronisation under the PTX ISA's
// rules as the model reads them. Not: hardware timing, the silicon's own errata, anything
// rack-specific. The sm100a hardware backends stay unvalidated until a Blackwell run.
#include <memory>
#include <string>

#include "launch.hpp"
#include "model/kernels_on_model.hpp"
#include "vsa/registry.hpp"

namespace vsa {
namespace {

// q / kv blocks per head and heads in all: what the model suite and the small correctness
// cases use. A CTA costs the model about 10-50 ms per kv step.
constexpr long long kMaxModelItems = 64;

Support model_size_support(const Shape& s) {
  if (s.count_elems() > kMaxModelItems)
    return Support::no("model backend: B * H * nb = " + std::to_string(s.count_elems()) + " above the model's " +
                       std::to_string(kMaxModelItems) + " (one CTA at a time on the CPU)");
  return Support::yes();
}

constexpr const char* kProves =
    "executes the sm100a role files (same source as the sm_100a image) on a host model of tcgen05/TMEM/TMA/mbarrier "
    "written from the PTX ISA: proves logic, layouts and synchronisation under the ISA as the model reads it, not "
    "hardware timing or silicon errata";

class ModelBlk64Backend final : public Backend {
 public:
  std::string name() const override { return "sm100a-blk64@model"; }
  std::string description() const override { return std::string("sm100a-blk64 kernels on the execution model: ") + kProves; }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op) const override { return true; }
  Support supports(const DeviceInfo&, const Shape& s, Op op) const override { return supports_shape(s, op); }
  Support supports_shape(const Shape& s, Op op) const override {
    const Support shape =
        op == Op::forward ? sm100a::blk64_shape_support(s) : sm100a::blk64_backward_shape_support(s);
    if (!shape.ok) return shape;
    return model_size_support(s);
  }
  std::size_t workspace_bytes(const Shape& s, Op op) const override {
    return op == Op::backward ? model::workspace_bytes_backward(s) : 0;
  }
  Status forward(const ForwardArgs& a) override { return model::run_forward_blk64(a, m_options); }
  Status backward(const BackwardArgs& a) override { return model::run_backward_blk64(a, m_options); }
  std::vector<std::string> probe_points() const override {
    std::vector<std::string> names = sm100a::forward_probe_names();
    for (const auto& n : sm100a::backward_probe_names()) names.push_back(n);
    return names;
  }

 private:
  model::RunOptions m_options;
};

class ModelBlk128Backend final : public Backend {
 public:
  std::string name() const override { return "sm100a-blk128@model"; }
  std::string description() const override { return std::string("sm100a-blk128 forward on the execution model: ") + kProves; }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op op) const override { return op == Op::forward; }
  Support supports(const DeviceInfo&, const Shape& s, Op op) const override { return supports_shape(s, op); }
  Support supports_shape(const Shape& s, Op op) const override {
    if (op != Op::forward) return Support::no("sm100a-blk128 has no backward (use sm100a-blk64)");
    if (const Support shape = sm100a::blk128_shape_support(s); !shape.ok) return shape;
    return model_size_support(s);
  }
  Status forward(const ForwardArgs& a) override { return model::run_forward_blk128(a, m_options); }
  Status backward(const BackwardArgs&) override { return Status::failure("sm100a-blk128@model: no backward"); }
  std::vector<std::string> probe_points() const override { return sm100a::forward_probe_names(); }

 private:
  model::RunOptions m_options;
};

}  // namespace

void register_sm100a_model_backends(Registry& registry) {
  registry.add(std::make_unique<ModelBlk64Backend>());
  registry.add(std::make_unique<ModelBlk128Backend>());
}

}  // namespace vsa
