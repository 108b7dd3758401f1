// A device backend with its own lse form (Backend::lse_factor) through the engine: cuda-ref
// whose lse is scaled by a factor, in device memory, so the engine's device path (the
// forward's lse fetched and converted, the backward's input converted and uploaded once) is
// exercised on a GPU. The host paths are tests/unit/engine/lse_form_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "device_buffers.hpp"
#include "engine/case_runner.hpp"
#include "engine/devices.hpp"
#include "suite/suite.hpp"
#include "vsa/registry.hpp"

namespace vsa::test {
namespace {

// cuda-ref with lse_own = factor x lse. The scaling goes through the host (a test backend:
// its calls are never timed here), after a synchronisation of the given stream.
class ScaledCudaRef final : public Backend {
 public:
  ScaledCudaRef(Backend& inner, double factor, bool declared)
      : m_inner(inner), m_factor(factor), m_declared(declared) {}
  std::string name() const override { return "own-lse-cuda"; }
  std::string description() const override { return "test double: cuda-ref with a scaled lse"; }
  Memory memory() const override { return Memory::device; }
  bool has_op(Op op) const override { return m_inner.has_op(op); }
  Support supports(const DeviceInfo& d, const Shape& s, Op op) const override { return m_inner.supports(d, s, op); }
  std::size_t workspace_bytes(const Shape& s, Op op) const override { return m_inner.workspace_bytes(s, op); }
  double lse_factor(const Shape&) const override { return m_declared ? m_factor : 1.0; }

  Status forward(const ForwardArgs& a) override {
    if (Status st = m_inner.forward(a); !st.ok()) return st;
    std::vector<float> lse = download(a.lse, a.shape, a.stream);
    for (float& x : lse) x = float(double(x) * m_factor);
    check_cuda(cudaMemcpy(a.lse, lse.data(), lse.size() * sizeof(float), cudaMemcpyHostToDevice), "upload lse");
    return Status::success();
  }
  Status backward(const BackwardArgs& a) override {
    std::vector<float> lse = download(a.lse, a.shape, a.stream);  // in this backend's form
    for (float& x : lse) x = float(double(x) / m_factor);
    DeviceBuffer<float> m_format(lse);
    BackwardArgs m = a;
    m.lse = m_format.get();
    const Status st = m_inner.backward(m);
    check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(a.stream)), "backward sync");  // m_format's lifetime
    return st;
  }

 private:
  static std::vector<float> download(const float* lse, const Shape& s, void* stream) {
    check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "sync");
    std::vector<float> host(std::size_t(s.row_elems()));
    check_cuda(cudaMemcpy(host.data(), lse, host.size() * sizeof(float), cudaMemcpyDeviceToHost), "download lse");
    return host;
  }
  Backend& m_inner;
  double m_factor;
  bool m_declared;
};

class LseFormDevice : public DeviceTest {
 protected:
  CaseResult run(double factor, bool declared, const std::string& op) {
    Registry registry = make_registry();
    Backend* cuda_ref = registry.find("cuda-ref");
    if (cuda_ref == nullptr) throw std::logic_error("cuda-ref is not registered");
    registry.add(std::make_unique<ScaledCudaRef>(*cuda_ref, factor, declared));
    WorkerContext ctx;
    ctx.device = query_devices().devices.at(0);
    ctx.registry = &registry;
    const std::string text = R"({"name": "c", "op": ")" + op +
                             R"(", "B": 1, "H": 2, "S": 512, "D": 64, "seed": 3, "reference": "cpu-ref",
        "pattern": {"kind": "ragged", "density": 0.5, "zero_rows": 0.2}, "backends": ["own-lse-cuda"]})";
    return run_case(case_from_json(nlohmann::json::parse(text), "test", "$"), ctx).result;
  }
};

TEST_F(LseFormDevice, DeclaredFormPassesForwardAndBackward) {
  const CaseResult r = run(-8.0 * std::log(2.0), true, "both");  // TK's form at D = 64
  ASSERT_EQ(r.backends.size(), 1u) << r.message;
  EXPECT_EQ(r.backends[0].verdict, kPass) << r.backends[0].reason;
  EXPECT_EQ(r.backends[0].metrics.size(), 5u);  // o, lse, dq, dk, dv
}

TEST_F(LseFormDevice, UndeclaredFormFails) {
  const CaseResult r = run(-8.0 * std::log(2.0), false, "both");
  ASSERT_EQ(r.backends.size(), 1u) << r.message;
  EXPECT_EQ(r.backends[0].verdict, kFail) << r.backends[0].reason;
}

}  // namespace
}  // namespace vsa::test
