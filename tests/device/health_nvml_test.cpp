// The health gates' NVML calls on the real driver (docs/qualify.md): every fact of every
// GPU is a value or a stated reason, the gates judge them without a crash, and the Xid
// event set opens and closes. Skips with the reason where NVML or a GPU is absent.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "qualify/health_gates.hpp"
#include "qualify/health_monitor.hpp"
#include "telemetry/nvml.hpp"

namespace vsa {
namespace {

template <typename T>
void stated(const NvmlAnswer<T>& a, const char* what) {
  EXPECT_TRUE(a.value.has_value() || !a.why.empty()) << what << ": neither a value nor a reason";
  if (!a.value) std::printf("  %s: %s\n", what, a.why.c_str());
}

TEST(HealthNvml, EveryFactIsAValueOrAStatedReasonOnThisDriver) {
  const Nvml& nvml = shared_nvml();
  if (!nvml.available()) GTEST_SKIP() << "NVML unavailable: " << nvml.error();
  const auto count = nvml.device_count();
  if (!count || *count == 0) GTEST_SKIP() << "NVML sees no GPU";
  for (unsigned i = 0; i < *count; ++i) {
    const auto device = nvml.device_by_index(i);
    ASSERT_TRUE(device.has_value()) << i;
    HealthMonitor monitor(nvml, device, "", std::chrono::milliseconds(50));
    monitor.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const HealthRecord r = monitor.stop();
    stated(r.after.remapped_rows, "remapped rows");
    stated(r.after.retired_pages_pending, "retired pages pending");
    stated(r.after.ecc_uncorrected, "uncorrected ECC");
    stated(r.after.pcie_link, "PCIe link");
    stated(r.after.pcie_link_max, "PCIe link max");
    if (r.after.pcie_link.value && r.after.pcie_link_max.value) {
      EXPECT_LE(r.after.pcie_link.value->generation, r.after.pcie_link_max.value->generation);
      EXPECT_LE(r.after.pcie_link.value->width, r.after.pcie_link_max.value->width);
    }
    EXPECT_TRUE(r.xid_watched || !r.xid_note.empty());
    for (const auto& c : health_checks(r, {})) {
      std::printf("GPU %u %-22s %-4s %-20s %s\n", i, c.name.c_str(), verdict_name(c.verdict).c_str(), c.code.c_str(),
                  c.reason.c_str());
      EXPECT_FALSE(c.reason.empty()) << c.name;
    }
  }
}

}  // namespace
}  // namespace vsa
