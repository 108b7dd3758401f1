// GPU planted-fault backends (vsa-bench selftest). Each computes the correct
// forward with the cuda-ref kernels and then adds exactly one bug, which exactly one
// check of the harness must catch:
//   selftest-oob           illegal address, sticky error          -> FAULT
//   selftest-deadlock      hand-off a zero-count row never ends   -> HANG
//   selftest-overlap-race  early release, exposed by a probe      -> stability mismatches
//   selftest-nan           a NaN in O                             -> NaN count
//   selftest-unwritten     the last row of O never written        -> unwritten count
//   selftest-stream-cache  staging buffer shared by all streams   -> two-stream mismatch
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>

#include "cuda_status.hpp"
#include "planted_launch.hpp"
#include "portable/launch.hpp"
#include "vsa/registry.hpp"

#ifndef VSA_SELFTEST_GENCODE
#error "kernels/selftest/CMakeLists.txt passes the build's gencode targets as VSA_SELFTEST_GENCODE"
#endif

namespace vsa::selftest {
namespace {

bool device_present() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

// Forward-only, device memory, the cuda-ref shape limits; what differs is the bug.
class PlantedGpuBackend : public Backend {
 public:
  PlantedGpuBackend(std::string name, std::string description)
      : m_name(std::move(name)), m_description(std::move(description)) {}
  std::string name() const override { return m_name; }
  std::string description() const override { return m_description; }
  Memory memory() const override { return Memory::device; }
  bool has_op(Op op) const override { return op == Op::forward; }

  Support supports(const DeviceInfo& dev, const Shape& s, Op op) const override {
    if (!dev.present()) return Support::no("no CUDA device");
    if (dev.cc() < 80)
      return Support::no("needs compute capability >= 8.0, device is " + std::to_string(dev.cc_major) + "." +
                         std::to_string(dev.cc_minor));
    return supports_shape(s, op);
  }
  Support supports_shape(const Shape& s, Op op) const override {
    if (op != Op::forward) return Support::no("forward only");
    if (s.head_dim < 1 || s.head_dim > portable::kMaxSupportedHeadDim)
      return Support::no("needs 1 <= D <= " + std::to_string(portable::kMaxSupportedHeadDim));
    if (s.max_kv < 1) return Support::no("needs max_kv >= 1");
    return Support::yes();
  }
  Status backward(const BackwardArgs&) override { return Status::failure(m_name + ": forward only"); }

  std::vector<std::string> compiled_images() const override {
    std::vector<std::string> targets;
    std::istringstream list(VSA_SELFTEST_GENCODE);
    for (std::string target; std::getline(list, target, ',');)
      if (!target.empty()) targets.push_back(target);
    return targets;
  }
  std::vector<KernelInfo> kernels() const override {
    if (!device_present()) return {};
    std::vector<KernelInfo> all{portable::forward_kernel_info()};
    if (const auto planted = planted_kernel()) all.push_back(*planted);
    return all;
  }

 protected:
  // The kernel that carries the bug, when it is one of ours.
  [[nodiscard]] virtual std::optional<KernelInfo> planted_kernel() const { return std::nullopt; }

 private:
  std::string m_name, m_description;
};

class OutOfBoundsBackend final : public PlantedGpuBackend {
 public:
  OutOfBoundsBackend()
      : PlantedGpuBackend("selftest-oob",
                          "planted fault: writes 1 TiB past O (illegal address, sticky; must end FAULT)") {}
  Status forward(const ForwardArgs& a) override {
    if (Status st = portable::launch_forward(a); !st.ok()) return st;
    return launch_out_of_bounds_write(a.out, a.stream);
  }

 protected:
  std::optional<KernelInfo> planted_kernel() const override { return out_of_bounds_kernel_info(); }
};

class DeadlockBackend final : public PlantedGpuBackend {
 public:
  DeadlockBackend()
      : PlantedGpuBackend("selftest-deadlock",
                          "planted fault: a row with q2k_num = 0 never completes its mbarrier hand-off "
                          "(must end HANG where a case has zero-count rows; FAULT naming row_done with "
                          "hang_watch_ms)") {}
  Status forward(const ForwardArgs& a) override {
    if (Status st = portable::launch_forward(a); !st.ok()) return st;
    return launch_row_handshake(a.shape, a.q2k_num, a.hang_watch, a.stream);
  }

 protected:
  std::optional<KernelInfo> planted_kernel() const override { return row_handshake_kernel_info(); }
};

// O goes through a scratch copy: the forward writes it there, the racy stage copy
// moves it to args.out. Workspace: [tile counter | pad to 256 B | scratch O].
class OverlapRaceBackend final : public PlantedGpuBackend {
 public:
  OverlapRaceBackend()
      : PlantedGpuBackend("selftest-overlap-race",
                          "planted fault: a consumer warp releases a shared stage before reading it; latent "
                          "without delay, run-to-run mismatches with probe selftest.overlap (stability)") {}
  std::size_t workspace_bytes(const Shape& s, Op op) const override {
    return op == Op::forward ? kScratchOffset + std::size_t(s.tensor_elems()) * sizeof(bf16_bits) : 0;
  }
  std::vector<std::string> probe_points() const override { return {"selftest.overlap"}; }
  Status forward(const ForwardArgs& a) override {
    auto* base = static_cast<unsigned char*>(a.workspace);
    auto* scratch = reinterpret_cast<bf16_bits*>(base + kScratchOffset);
    ForwardArgs to_scratch = a;
    to_scratch.out = scratch;
    if (Status st = portable::launch_forward(to_scratch); !st.ok()) return st;
    return launch_early_release_copy(scratch, a.out, a.shape.tensor_elems(), reinterpret_cast<int*>(base),
                                     a.probes.nanoseconds[0], a.stream);
  }

 protected:
  std::optional<KernelInfo> planted_kernel() const override { return early_release_copy_kernel_info(); }

 private:
  static constexpr std::size_t kScratchOffset = 256;
};

class NanBackend final : public PlantedGpuBackend {
 public:
  NanBackend() : PlantedGpuBackend("selftest-nan", "planted fault: one NaN in O (must FAIL on the NaN count)") {}
  Status forward(const ForwardArgs& a) override {
    if (Status st = portable::launch_forward(a); !st.ok()) return st;
    return launch_write_nan(a.out, a.shape.tensor_elems() / 2, a.stream);
  }

 protected:
  std::optional<KernelInfo> planted_kernel() const override { return write_nan_kernel_info(); }
};

// The forward lands in scratch; all of it but the last row of O is copied out.
class UnwrittenBackend final : public PlantedGpuBackend {
 public:
  UnwrittenBackend()
      : PlantedGpuBackend("selftest-unwritten",
                          "planted fault: never writes the last row of O (must FAIL on the unwritten count)") {}
  std::size_t workspace_bytes(const Shape& s, Op op) const override {
    return op == Op::forward ? std::size_t(s.tensor_elems()) * sizeof(bf16_bits) : 0;
  }
  Status forward(const ForwardArgs& a) override {
    auto* scratch = static_cast<bf16_bits*>(a.workspace);
    ForwardArgs to_scratch = a;
    to_scratch.out = scratch;
    if (Status st = portable::launch_forward(to_scratch); !st.ok()) return st;
    const std::int64_t written = a.shape.tensor_elems() - a.shape.head_dim;
    return device::status_from(cudaMemcpyAsync(a.out, scratch, std::size_t(written) * sizeof(bf16_bits),
                                               cudaMemcpyDeviceToDevice, cudaStream_t(a.stream)));
  }
};

// K and V are staged into a buffer the backend keeps between calls, keyed by the
// tensor size only. The host side is thread-safe (a mutex); the bug is that two
// calls on different streams share one device buffer: the second call's staging
// copy overwrites K/V while the first call's kernel still reads them.
class StreamCacheBackend final : public PlantedGpuBackend {
 public:
  StreamCacheBackend()
      : PlantedGpuBackend("selftest-stream-cache",
                          "planted fault: K/V staged in a cache shared by all streams (correct on one stream; "
                          "wrong when two streams run at once)") {}
  ~StreamCacheBackend() override {
    for (auto& [elems, ptr] : m_staging) (void)cudaFree(ptr);  // errors ignored: the context may be gone
  }
  Status forward(const ForwardArgs& a) override {
    const std::int64_t n = a.shape.tensor_elems();
    bf16_bits* staged = nullptr;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      void*& slot = m_staging[n];  // planted: the key has no stream in it
      if (!slot)
        if (Status st = device::status_from(cudaMalloc(&slot, 2 * std::size_t(n) * sizeof(bf16_bits))); !st.ok())
          return st;
      staged = static_cast<bf16_bits*>(slot);
    }
    const auto s = cudaStream_t(a.stream);
    const std::size_t bytes = std::size_t(n) * sizeof(bf16_bits);
    if (Status st = device::status_from(cudaMemcpyAsync(staged, a.k, bytes, cudaMemcpyDeviceToDevice, s)); !st.ok())
      return st;
    if (Status st = device::status_from(cudaMemcpyAsync(staged + n, a.v, bytes, cudaMemcpyDeviceToDevice, s)); !st.ok())
      return st;
    ForwardArgs from_staging = a;
    from_staging.k = staged;
    from_staging.v = staged + n;
    return portable::launch_forward(from_staging);
  }

 private:
  std::mutex m_mutex;
  std::map<std::int64_t, void*> m_staging;  // tensor elements -> device buffer holding K then V
};

}  // namespace
}  // namespace vsa::selftest

namespace vsa {
void register_selftest_gpu_backends(Registry& registry) {
  registry.add(std::make_unique<selftest::OutOfBoundsBackend>());
  registry.add(std::make_unique<selftest::DeadlockBackend>());
  registry.add(std::make_unique<selftest::OverlapRaceBackend>());
  registry.add(std::make_unique<selftest::NanBackend>());
  registry.add(std::make_unique<selftest::UnwrittenBackend>());
  registry.add(std::make_unique<selftest::StreamCacheBackend>());
}
}  // namespace vsa
