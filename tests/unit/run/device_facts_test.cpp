// run/device_facts.hpp: a discovery worker and `run --no-isolate` give the supervisor the same
// facts about a GPU, the properties a backend's supports() reads among them (before, the
// in-process path gave only the ordinal, name and PCI bus id, so an alias saw compute
// capability 0 there). Without a GPU the CUDA half of the fingerprint is null, its keys present.
#include <gtest/gtest.h>

#include "run/device_facts.hpp"
#include "run/node_qualification.hpp"

namespace vsa {
namespace {

TEST(DeviceFacts, CarryWhatSupportsReadsAndTheFingerprintsCudaHalf) {
  DeviceInfo d;
  d.ordinal = 0;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.smem_per_block_optin = 232448;
  d.global_mem = std::size_t(150) << 30;
  const nlohmann::json facts = device_facts(d);
  const DeviceInfo back = device_info_of(facts);
  EXPECT_EQ(back.ordinal, 0);
  EXPECT_EQ(back.name, "NVIDIA H200");
  EXPECT_EQ(back.cc_major, 9);
  EXPECT_EQ(back.cc_minor, 0);
  EXPECT_EQ(back.sm_count, 132);
  EXPECT_EQ(back.smem_per_block_optin, 232448u);
  EXPECT_EQ(back.global_mem, std::size_t(150) << 30);
  for (const char* key : {"uuid", "mig_uuid", "cuda_runtime_version", "l2_cache_bytes", "pci_bus_id"})
    EXPECT_TRUE(facts.contains(key)) << key << " missing from " << facts.dump();
}

}  // namespace
}  // namespace vsa
