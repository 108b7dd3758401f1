#include "telemetry/pci_gpus.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace vsa {
namespace {

namespace fs = std::filesystem;

constexpr unsigned kNvidiaVendor = 0x10de;
constexpr unsigned kDisplayBaseClass = 0x03;  // PCI base class "display controller"

// A sysfs hex attribute such as "0x10de\n"; false when missing or not hex.
bool read_hex(const fs::path& file, unsigned& value) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text)) return false;
  char* end = nullptr;
  const unsigned long v = std::strtoul(text.c_str(), &end, 16);
  if (end == text.c_str()) return false;
  value = unsigned(v);
  return true;
}

}  // namespace

std::string pci_devices_root() {
  const char* env = std::getenv("VSA_SYSFS_PCI_DEVICES");
  return env && *env ? env : "/sys/bus/pci/devices";
}

std::vector<PciGpu> nvidia_pci_gpus(const std::string& root) {
  std::vector<PciGpu> gpus;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    unsigned vendor = 0, cls = 0;
    if (!read_hex(it->path() / "vendor", vendor) || vendor != kNvidiaVendor) continue;
    if (!read_hex(it->path() / "class", cls) || (cls >> 16) != kDisplayBaseClass) continue;
    gpus.push_back({it->path().filename().string(), cls});
  }
  std::sort(gpus.begin(), gpus.end(), [](const PciGpu& a, const PciGpu& b) { return a.address < b.address; });
  return gpus;
}

}  // namespace vsa
