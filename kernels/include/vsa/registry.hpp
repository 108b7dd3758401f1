#pragma once
// Backend registry. Each kernel family has one registration function; the
// harness calls them explicitly (no static-initialisation tricks that a static
// library link would silently drop).
#include <memory>
#include <string_view>
#include <vector>

#include "vsa/backend.hpp"

namespace vsa {

class Registry {
 public:
  void add(std::unique_ptr<Backend> backend) { m_backends.push_back(std::move(backend)); }
  [[nodiscard]] Backend* find(std::string_view name) const {
    for (const auto& b : m_backends)
      if (b->name() == name) return b.get();
    return nullptr;
  }
  [[nodiscard]] const std::vector<std::unique_ptr<Backend>>& all() const { return m_backends; }

 private:
  std::vector<std::unique_ptr<Backend>> m_backends;
};

// One per kernel family, defined next to its kernels.
void register_cpu_backends(Registry& registry);           // reference/
void register_portable_backends(Registry& registry);      // kernels/portable/
void register_sm90a_backends(Registry& registry);         // kernels/sm90a/
void register_sm100a_backends(Registry& registry);        // kernels/sm100a/
void register_sm100a_model_backends(Registry& registry);  // kernels/sm100a/model/: the same kernels on the host model
void register_selftest_gpu_backends(Registry& registry);  // kernels/selftest/: planted faults

// Every backend name the project defines, built into this binary or not: a
// suite naming one that this build left out (e.g. VSA_BUILD_SM90A=OFF) is
// SKIPped with that reason instead of refused as a typo.
[[nodiscard]] inline std::vector<std::string_view> known_backend_names() {
  return {"cpu-ref",
          "cpu-naive",
          "cuda-ref",
          "sm90a",
          "sm90a-det",
          "sm100a-blk64",
          "sm100a-blk128",
          "sm100a-blk64@model",
          "sm100a-blk128@model",
          "selftest-abort",
          "selftest-hang",
          "selftest-stray-event",
          "selftest-garbled-abort",
          "selftest-bad-result",
          "selftest-stdout-flood",
          "selftest-oob",
          "selftest-deadlock",
          "selftest-overlap-race",
          "selftest-nan",
          "selftest-unwritten",
          "selftest-stream-cache",
          "selftest-model-wrong-sbo",
          "selftest-model-expect-tx-short",
          "selftest-model-skip-wait-ld",
          "selftest-model-tmem-overalloc",
          "selftest-model-dealloc-other-warp",
          "selftest-model-tmem-overlap",
          "selftest-model-skip-fence-after",
          "selftest-model-skip-fence-before",
          "selftest-model-stat-next-stage",
          "selftest-model-store-wait-other-lane",
          "selftest-model-step-past-count"};
}

// All families, in a stable order (CPU first, then CUDA reference, then fast kernels).
[[nodiscard]] Registry make_registry();

}  // namespace vsa
