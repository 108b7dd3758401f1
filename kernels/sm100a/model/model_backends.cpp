// The sm100a kernels on the execution model as host backends: `sm100a-blk64@model` (forward
// and backward) and `sm100a-blk128@model` (forward). Same shape rules as the hardware
// backends (launch.hpp), plus a size cap: the model runs a CTA's threads as fibers on one
// core, so larger cases are refused with the reason instead of taking minutes.
//
// Schedules: every call runs one schedule, the seed set last (vsa/schedule_explorer.hpp); the
// case runner runs a case's `schedules` seeds one call each, compares the outputs that must
// not depend on the schedule bit for bit (all but dQ: nondeterministic_outputs()) and
// reports the seed of a finding. Seed 0 is round robin with async ops completed at once.
//
// What a PASS proves: the kernels' logic, layouts and synchronisation under the PTX ISA's
// rules as the model reads them. Not: hardware timing, the silicon's own errata, anything
// rack-specific (the seed's fault). The sm100a hardware backends stay unvalidated until a Blackwell run.
#include <memory>
#include <string>
#include <vector>

#include "launch.hpp"
#include "model/kernels_on_model.hpp"
#include "model/plants.hpp"
#include "vsa/registry.hpp"
#include "vsa/schedule_explorer.hpp"

namespace vsa {

namespace model {
Support shape_support_blk64(const Shape& s) { return sm100a::blk64_shape_support(s); }
Support shape_support_blk128(const Shape& s) { return sm100a::blk128_shape_support(s); }
Support shape_support_blk64_backward(const Shape& s) { return sm100a::blk64_backward_shape_support(s); }

namespace {
Plant g_plant = Plant::none;
}
Plant active_plant() { return g_plant; }
void set_active_plant(Plant p) { g_plant = p; }
}  // namespace model

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
    "hardware timing, silicon errata or rack-specific faults; the sm100a hardware backends stay unvalidated";

// dK and dV rows belong to one CTA each: schedule-independent. dQ sums bulk reductions in
// completion order, so it may differ in the last bits between schedules.
const std::vector<std::string> kScheduleDependent = {"dq"};

class ModelBlk64Backend final : public Backend, public ScheduleExplorer {
 public:
  std::string name() const override { return "sm100a-blk64@model"; }
  std::string description() const override {
    return std::string("sm100a-blk64 kernels on the execution model: ") + kProves;
  }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op) const override { return true; }
  // The shape rules and the size cap decide at run time (SKIP with the reason), not when a
  // suite is read: suites list the model backends by default over cases of every shape.
  Support supports(const DeviceInfo&, const Shape& s, Op op) const override {
    const Support shape = op == Op::forward ? sm100a::blk64_shape_support(s) : sm100a::blk64_backward_shape_support(s);
    if (!shape.ok) return shape;
    return model_size_support(s);
  }
  std::size_t workspace_bytes(const Shape& s, Op op) const override {
    return op == Op::backward ? model::workspace_bytes_backward(s) : 0;
  }
  std::vector<std::string> nondeterministic_outputs() const override { return kScheduleDependent; }
  void set_schedule_seed(std::uint64_t seed) override { m_seed = seed; }
  Status forward(const ForwardArgs& a) override { return model::run_forward_blk64(a, model::RunOptions{m_seed}); }
  Status backward(const BackwardArgs& a) override { return model::run_backward_blk64(a, model::RunOptions{m_seed}); }
  std::vector<std::string> probe_points() const override {
    std::vector<std::string> names = sm100a::forward_probe_names();
    for (const auto& n : sm100a::backward_probe_names()) names.push_back(n);
    return names;
  }

 private:
  std::uint64_t m_seed = 1;
};

class ModelBlk128Backend final : public Backend, public ScheduleExplorer {
 public:
  std::string name() const override { return "sm100a-blk128@model"; }
  std::string description() const override {
    return std::string("sm100a-blk128 forward on the execution model: ") + kProves;
  }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op op) const override { return op == Op::forward; }
  Support supports(const DeviceInfo&, const Shape& s, Op op) const override {
    if (op != Op::forward) return Support::no("sm100a-blk128 has no backward (use sm100a-blk64)");
    if (const Support shape = sm100a::blk128_shape_support(s); !shape.ok) return shape;
    return model_size_support(s);
  }
  void set_schedule_seed(std::uint64_t seed) override { m_seed = seed; }
  Status forward(const ForwardArgs& a) override { return model::run_forward_blk128(a, model::RunOptions{m_seed}); }
  Status backward(const BackwardArgs&) override { return Status::failure("sm100a-blk128@model: no backward"); }
  std::vector<std::string> probe_points() const override { return sm100a::forward_probe_names(); }

 private:
  std::uint64_t m_seed = 1;
};

// A planted fault of the real kernels on the model (`vsa-bench selftest`): the blk64 kernels
// of the planted build with one VSA_PLANT point switched to its bad value for the call.
class PlantedModelBackend final : public Backend, public ScheduleExplorer {
 public:
  PlantedModelBackend(std::string name, model::Plant plant, std::string what)
      : m_name(std::move(name)), m_plant(plant), m_what(std::move(what)) {}
  std::string name() const override { return m_name; }
  std::string description() const override { return "planted fault (model only): " + m_what; }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op) const override { return true; }
  Support supports(const DeviceInfo&, const Shape& s, Op op) const override { return supports_shape(s, op); }
  Support supports_shape(const Shape& s, Op op) const override {
    const Support shape = op == Op::forward ? sm100a::blk64_shape_support(s) : sm100a::blk64_backward_shape_support(s);
    if (!shape.ok) return shape;
    return model_size_support(s);
  }
  std::size_t workspace_bytes(const Shape& s, Op op) const override {
    return op == Op::backward ? model::workspace_bytes_backward(s) : 0;
  }
  std::vector<std::string> nondeterministic_outputs() const override { return kScheduleDependent; }
  void set_schedule_seed(std::uint64_t seed) override { m_seed = seed; }
  Status forward(const ForwardArgs& a) override {
    return with_plant([&] { return model::planted::run_forward_blk64(a, model::RunOptions{m_seed}); });
  }
  Status backward(const BackwardArgs& a) override {
    return with_plant([&] { return model::planted::run_backward_blk64(a, model::RunOptions{m_seed}); });
  }

 private:
  template <class F>
  Status with_plant(F f) const {
    model::set_active_plant(m_plant);
    Status st = f();
    model::set_active_plant(model::Plant::none);
    return st;
  }
  std::string m_name;
  model::Plant m_plant;
  std::string m_what;
  std::uint64_t m_seed = 1;
};

}  // namespace

void register_sm100a_model_backends(Registry& registry) {
  registry.add(std::make_unique<ModelBlk64Backend>());
  registry.add(std::make_unique<ModelBlk128Backend>());
  registry.add(std::make_unique<PlantedModelBackend>("selftest-model-wrong-sbo", model::Plant::wrong_sbo,
                                                     "the S MMA's K descriptor with SBO 512 instead of 1024"));
  registry.add(std::make_unique<PlantedModelBackend>("selftest-model-expect-tx-short", model::Plant::expect_tx_short,
                                                     "k_full expects 16 bytes fewer than the TMA loads deliver"));
  registry.add(std::make_unique<PlantedModelBackend>("selftest-model-skip-wait-ld", model::Plant::skip_wait_ld,
                                                     "dq_empty released before tcgen05.wait::ld of the dQ rows"));
  registry.add(std::make_unique<PlantedModelBackend>("selftest-model-tmem-overalloc", model::Plant::tmem_overalloc,
                                                     "tcgen05.alloc of 1024 columns"));
  registry.add(std::make_unique<PlantedModelBackend>("selftest-model-dealloc-other-warp",
                                                     model::Plant::dealloc_other_warp,
                                                     "TMEM allocated by the producer warp, freed by the MMA warp"));
  registry.add(std::make_unique<PlantedModelBackend>(
      "selftest-model-tmem-overlap", model::Plant::tmem_overlap,
      "the backward's dQ MMA accumulates into TMEM columns 64..191 (dP^T's 64..127 included) instead of 128..255, "
      "over the dP^T the dsoftmax warps are still reading"));
  registry.add(std::make_unique<PlantedModelBackend>(
      "selftest-model-skip-fence-after", model::Plant::skip_fence_after,
      "the forward's softmax warps read S and O from TMEM with no tcgen05.fence::after_thread_sync after their waits"));
  registry.add(std::make_unique<PlantedModelBackend>(
      "selftest-model-skip-fence-before", model::Plant::skip_fence_before,
      "the backward's dsoftmax warps release S^T / dP^T with no tcgen05.fence::before_thread_sync after their loads"));
  registry.add(std::make_unique<PlantedModelBackend>(
      "selftest-model-stat-next-stage", model::Plant::stat_next_stage,
      "the backward's dsoftmax warps read lse / Delta (plain C++ shared-memory loads) from the next step's stage, "
      "which the producer may be filling"));
  registry.add(std::make_unique<PlantedModelBackend>(
      "selftest-model-store-wait-other-lane", model::Plant::store_wait_other_lane,
      "the forward's O tile stores waited for (cp.async.bulk.wait_group.read) by lane 1, not by lane 0 that issued "
      "them"));
  registry.add(std::make_unique<PlantedModelBackend>(
      "selftest-model-step-past-count", model::Plant::step_past_count,
      "the forward's shorter q block of a pair takes part in one step past its count, reading the entry after its "
      "list"));
}

}  // namespace vsa
