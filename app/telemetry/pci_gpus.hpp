#pragma once
// NVIDIA GPUs as the PCI bus lists them, independent of CUDA and NVML: the
// evidence that a node has GPUs even when the driver stack cannot start
// (fabric manager down, driver not loaded, CUDA_VISIBLE_DEVICES emptied).
#include <string>
#include <vector>

namespace vsa {

struct PciGpu {
  std::string address;      // "0000:19:00.0", the sysfs entry's name
  unsigned class_code = 0;  // e.g. 0x030200 (3D controller)
};

// The sysfs folder of PCI devices: /sys/bus/pci/devices, or $VSA_SYSFS_PCI_DEVICES
// (a test seam: a fake tree of <address>/vendor and <address>/class files).
[[nodiscard]] std::string pci_devices_root();

// Entries under `root` with vendor 0x10de and a display controller class (base
// class 0x03: VGA 0x0300, 3D 0x0302, other 0x0380). NVIDIA's audio and NVSwitch
// functions (other classes) are not GPUs. A missing or unreadable root gives none.
[[nodiscard]] std::vector<PciGpu> nvidia_pci_gpus(const std::string& root);

}  // namespace vsa
