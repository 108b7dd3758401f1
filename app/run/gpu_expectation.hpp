#pragma once
// Fail closed: a node that has GPUs (by PCI or NVML) or was asked to run on
// some (--devices LIST, --require-gpu, --expect-gpus N) must not qualify on a
// CPU-only run because CUDA could not start. The decision is a pure function of
// what each source saw, so tests can feed it any combination.
#include <optional>
#include <string>
#include <vector>

namespace vsa {

struct GpuEvidence {
  int cuda_devices = 0;                  // what CUDA (the worker's discovery) can use
  std::string cuda_note;                 // why CUDA sees none, e.g. "cudaGetDeviceCount: cudaErrorNoDevice: ..."
  std::vector<std::string> pci_gpus;     // NVIDIA display/3D functions on the PCI bus (addresses)
  std::optional<unsigned> nvml_devices;  // nullopt: NVML not loadable
  std::string devices_flag = "all";      // --devices: all | none | a list
  bool require_gpu = false;
  std::optional<int> expect_gpus;  // --expect-gpus N
};

// Empty when the run may go on; otherwise the reason it must stop with exit 4.
[[nodiscard]] std::string fail_closed_reason(const GpuEvidence& evidence);

// Empty when TEXT is a --devices value: `all`, `none`, one CUDA ordinal, or (when `list`) a comma
// list of distinct ordinals, digits only; otherwise what is wrong (a usage error, exit 2,
// before any work: a typo must not read as a node without GPUs).
[[nodiscard]] std::string devices_flag_error(const std::string& text, bool list = true);

// Empty unless the GPU flags contradict each other: --devices none with --require-gpu or
// --expect-gpus N > 0 (a usage error, exit 2, not a node's failure).
[[nodiscard]] std::string contradicting_gpu_flags(const GpuEvidence& flags);

}  // namespace vsa
