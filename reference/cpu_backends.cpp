// The host backends: "cpu-ref" (Eigen, fp32, threaded; the harness's reference for
// small and medium cases) and "cpu-naive" (fp64 triple loops; tiny shapes only).
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "cpu_reference.hpp"
#include "naive_reference.hpp"
#include "problem_checks.hpp"
#include "vsa/registry.hpp"

namespace vsa {
namespace {

// Host backends have no delay points: a run that asks for one must not pass as probed.
Status refuse_probes(const ProbeDelays& probes, const std::string& backend) {
  if (probes.any()) return Status::failure(backend + " has no delay probe points");
  return Status::success();
}

std::string format_number(double x, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

Support support_of(const Status& shape_check) {
  return shape_check.ok() ? Support::yes() : Support::no(shape_check.error);
}

class CpuRefBackend final : public Backend {
 public:
  // Largest scratch one worker thread may need (q-block operands plus, for the
  // backward, one head's dK / dV accumulators). Only absurd shapes exceed it.
  static constexpr double kMaxWorkerScratchBytes = 64.0 * (1ull << 30);

  [[nodiscard]] std::string name() const override { return "cpu-ref"; }
  [[nodiscard]] std::string description() const override {
    return "CPU reference: Eigen products in fp32, exact softmax per q block, threads over heads/blocks";
  }
  [[nodiscard]] Memory memory() const override { return Memory::host; }
  [[nodiscard]] bool has_op(Op) const override { return true; }

  [[nodiscard]] Support supports(const DeviceInfo&, const Shape& shape, Op op) const override {
    if (auto st = ref::check_shape(shape); !st.ok()) return support_of(st);
    const double blk = shape.block, d = shape.head_dim, keys = double(shape.max_kv) * shape.block;
    const double scalars = op == Op::forward ? 2 * keys * d + blk * keys + 2 * blk * d
                                             : 4 * keys * d + 2 * blk * keys + 4 * blk * d + 2.0 * shape.seq() * d;
    if (scalars * sizeof(float) > kMaxWorkerScratchBytes)
      return Support::no("cpu-ref would need " + format_number(scalars * sizeof(float) / double(1ull << 30), "%.0f") +
                         " GiB of scratch per thread");
    return Support::yes();
  }

  Status forward(const ForwardArgs& args) override {
    if (auto st = refuse_probes(args.probes, name()); !st.ok()) return st;
    return ref::forward(ref::tensors_of(args), m_options);
  }
  Status backward(const BackwardArgs& args) override {
    if (auto st = refuse_probes(args.probes, name()); !st.ok()) return st;
    return ref::backward(ref::tensors_of(args), m_options);
  }

 private:
  ref::Options m_options;  // fp32, one thread per hardware thread
};

class NaiveBackend final : public Backend {
 public:
  explicit NaiveBackend(double max_multiply_adds = 2e9) : m_max_multiply_adds(max_multiply_adds) {}

  [[nodiscard]] std::string name() const override { return "cpu-naive"; }
  [[nodiscard]] std::string description() const override {
    return "fp64 triple loops straight from docs/spec.md, single thread (tiny shapes)";
  }
  [[nodiscard]] Memory memory() const override { return Memory::host; }
  [[nodiscard]] bool has_op(Op) const override { return true; }

  [[nodiscard]] Support supports(const DeviceInfo&, const Shape& shape, Op) const override {
    if (auto st = ref::check_shape(shape); !st.ok()) return support_of(st);
    // Upper bound from the shape alone: every q block selecting max_kv full blocks.
    const double multiply_adds =
        double(shape.bh()) * shape.num_blocks * shape.max_kv * double(shape.block) * shape.block * shape.head_dim;
    if (multiply_adds > m_max_multiply_adds)
      return Support::no("cpu-naive: B*H*nb*max_kv*BLK*BLK*D = " + format_number(multiply_adds, "%.3g") +
                         " multiply-adds exceeds its budget of " + format_number(m_max_multiply_adds, "%.3g"));
    return Support::yes();
  }

  Status forward(const ForwardArgs& a) override {
    if (auto st = refuse_probes(a.probes, name()); !st.ok()) return st;
    if (auto st = ref::check_problem(a.shape, {a.q2k_idx, a.q2k_num, a.vbs},
                                     {{a.q, "q"}, {a.k, "k"}, {a.v, "v"}, {a.out, "out"}, {a.lse, "lse"}});
        !st.ok())
      return st;
    return guarded([&] { naive::forward(a); });
  }
  Status backward(const BackwardArgs& a) override {
    if (auto st = refuse_probes(a.probes, name()); !st.ok()) return st;
    if (auto st = ref::check_problem(a.shape, {a.q2k_idx, a.q2k_num, a.vbs},
                                     {{a.q, "q"},
                                      {a.k, "k"},
                                      {a.v, "v"},
                                      {a.out, "out"},
                                      {a.d_out, "d_out"},
                                      {a.lse, "lse"},
                                      {a.dq, "dq"},
                                      {a.dk, "dk"},
                                      {a.dv, "dv"}});
        !st.ok())
      return st;
    return guarded([&] { naive::backward(a); });
  }

 private:
  template <typename F>
  Status guarded(F&& run) {
    try {
      run();
      return Status::success();
    } catch (const std::exception& e) {
      return Status::failure(name() + ": " + e.what());
    }
  }

  double m_max_multiply_adds;
};

}  // namespace

void register_cpu_backends(Registry& registry) {
  registry.add(std::make_unique<CpuRefBackend>());
  registry.add(std::make_unique<NaiveBackend>());
}

}  // namespace vsa
