#include "run/gpu_expectation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace vsa {
namespace {

std::string others_saw(const GpuEvidence& e) {
  std::string pci = e.pci_gpus.empty()
                        ? "no NVIDIA GPU"
                        : fmt::format("{} NVIDIA GPU(s) ({})", e.pci_gpus.size(), fmt::join(e.pci_gpus, ", "));
  std::string nvml = e.nvml_devices ? fmt::format("{}", *e.nvml_devices) : std::string("not loadable");
  return fmt::format("PCI bus: {}; NVML: {}", pci, nvml);
}

}  // namespace

std::string fail_closed_reason(const GpuEvidence& e) {
  if (e.devices_flag == "none") {
    if (e.expect_gpus && *e.expect_gpus > 0)
      return fmt::format("--expect-gpus {} contradicts --devices none", *e.expect_gpus);
    return {};
  }
  const std::string cuda = e.cuda_devices > 0 ? fmt::format("CUDA can use {} device(s)", e.cuda_devices)
                                              : "CUDA cannot use any GPU (" + e.cuda_note + ")";
  if (e.expect_gpus && e.cuda_devices != *e.expect_gpus)
    return fmt::format("--expect-gpus {}: {}; {}", *e.expect_gpus, cuda, others_saw(e));
  if (e.cuda_devices > 0) return {};
  if (e.devices_flag != "all")
    return fmt::format("--devices {} asked for GPUs, but {}; {}", e.devices_flag, cuda, others_saw(e));
  if (!e.pci_gpus.empty() || (e.nvml_devices && *e.nvml_devices > 0))
    return fmt::format("this node has GPUs, but {}; {} (use --devices none for a deliberate CPU-only run)", cuda,
                       others_saw(e));
  if (e.require_gpu) return "--require-gpu: no GPU found (" + e.cuda_note + ")";
  return {};
}

}  // namespace vsa
