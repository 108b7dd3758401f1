#include "run/gpu_expectation.hpp"

#include <algorithm>

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

std::string devices_flag_error(const std::string& text, bool list) {
  if (text == "none" || text == "all") return {};
  const std::string accepted =
      list ? "all, none or CUDA ordinals like 0,2" : "all (the first), none or one CUDA ordinal";
  std::vector<int> seen;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos)
      return fmt::format("\"{}\" is not a device ({})", item, accepted);
    const int ordinal = std::stoi(item);  // digits only, at most 4: no throw
    if (std::find(seen.begin(), seen.end(), ordinal) != seen.end())
      return fmt::format("device {} given twice", ordinal);
    seen.push_back(ordinal);
    if (comma == std::string::npos) break;
    if (!list) return fmt::format("\"{}\": one device only ({})", text, accepted);
    start = comma + 1;
  }
  return {};
}

std::string contradicting_gpu_flags(const GpuEvidence& e) {
  if (e.devices_flag != "none") return {};
  if (e.require_gpu) return "--require-gpu contradicts --devices none";
  if (e.expect_gpus && *e.expect_gpus > 0)
    return fmt::format("--expect-gpus {} contradicts --devices none", *e.expect_gpus);
  return {};
}

std::string fail_closed_reason(const GpuEvidence& e) {
  if (e.devices_flag == "none") return contradicting_gpu_flags(e);
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
