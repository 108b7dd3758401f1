// The "cuda-ref" backend: portable fp32 CUDA reference kernels (docs/spec.md), any
// sm >= 80, no tensor cores, deterministic. Dispatch and reporting only; the
// kernels are in forward.cu and backward.cu.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <sstream>

#include "launch.hpp"
#include "vsa/registry.hpp"

#ifndef VSA_PORTABLE_GENCODE
#error "kernels/portable/CMakeLists.txt passes the build's gencode targets as VSA_PORTABLE_GENCODE"
#endif

namespace vsa::portable {
namespace {

// The gencode targets the build used, e.g. {"sm_80", "sm_90", "sm_100", "compute_100"}.
std::vector<std::string> build_gencode_targets() {
  std::vector<std::string> targets;
  std::istringstream list(VSA_PORTABLE_GENCODE);
  for (std::string target; std::getline(list, target, ',');)
    if (!target.empty()) targets.push_back(target);
  return targets;
}

bool device_present() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

class CudaRefBackend final : public Backend {
 public:
  std::string name() const override { return "cuda-ref"; }
  std::string description() const override {
    return "portable CUDA reference: fp32 accumulation, fp32 P, one warp per row, no tensor cores, deterministic";
  }
  Memory memory() const override { return Memory::device; }
  bool has_op(Op) const override { return true; }

  Support supports(const DeviceInfo& dev, const Shape& s, Op op) const override {
    if (!dev.present()) return Support::no("no CUDA device");
    if (dev.cc() < 80)
      return Support::no("needs compute capability >= 8.0 (sm_80 image), device is " + std::to_string(dev.cc_major) +
                         "." + std::to_string(dev.cc_minor));
    return supports_shape(s, op);
  }

  Support supports_shape(const Shape& s, Op op) const override {
    if (s.head_dim < 1 || s.head_dim > kMaxSupportedHeadDim)
      return Support::no("needs 1 <= D <= " + std::to_string(kMaxSupportedHeadDim) + ", got " +
                         std::to_string(s.head_dim));
    if (s.block < 1) return Support::no("needs BLK >= 1, got " + std::to_string(s.block));
    if (s.max_kv < 1) return Support::no("needs max_kv >= 1");
    if (op == Op::backward && s.max_q < 1) return Support::no("needs max_q >= 1");
    return Support::yes();
  }

  std::size_t workspace_bytes(const Shape& s, Op op) const override {
    return op == Op::backward ? backward_workspace_bytes(s) : 0;
  }
  Status forward(const ForwardArgs& a) override { return launch_forward(a); }
  Status backward(const BackwardArgs& a) override { return launch_backward(a); }

  // With a device: the images the driver actually loaded for it, from cudaFuncGetAttributes
  // ("sm_90"; "sm_120 (JIT from compute_100)" when only the PTX fits; empty when nothing
  // loads: the empty-image failure). Without one: the gencode targets the build used.
  std::vector<std::string> compiled_images() const override {
    const auto built = build_gencode_targets();
    if (!device_present()) return built;
    std::vector<std::string> loaded;
    for (const auto& k : kernels()) {
      if (k.binary_version <= 0) continue;
      std::string image = "sm_" + std::to_string(k.binary_version);
      if (std::find(built.begin(), built.end(), image) == built.end()) {
        const auto ptx =
            std::find_if(built.begin(), built.end(), [](const std::string& t) { return t.rfind("compute_", 0) == 0; });
        image += " (JIT from " + (ptx == built.end() ? std::string("PTX") : *ptx) + ")";
      }
      if (std::find(loaded.begin(), loaded.end(), image) == loaded.end()) loaded.push_back(image);
    }
    return loaded;
  }

  std::vector<KernelInfo> kernels() const override {
    if (!device_present()) return {};
    std::vector<KernelInfo> all{forward_kernel_info()};
    for (auto& k : backward_kernel_infos()) all.push_back(std::move(k));
    return all;
  }
};

}  // namespace
}  // namespace vsa::portable

namespace vsa {
void register_portable_backends(Registry& registry) { registry.add(std::make_unique<portable::CudaRefBackend>()); }
}  // namespace vsa
