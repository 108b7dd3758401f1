// SASS counts (`vsa-bench lint --counts / --against`) on listings in cuobjdump's format:
// every class counted where it should be, prefixes matched at modifier boundaries, and a
// change between two builds reported per kernel with its delta, unchanged kernels left out.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sass/counts.hpp"
#include "sass/listing.hpp"
#include "sass_lines.hpp"

namespace vsa::sass {
namespace {

using test::sass_line;

std::string kernel(const std::string& name, const std::vector<std::string>& ops) {
  std::string text = "\t\tFunction : " + name + "\n";
  int at = 0;
  for (const auto& op : ops) text += sass_line(at += 0x10, op);
  return text;
}

int count(const KernelCounts& k, const std::string& id) {
  for (std::size_t c = 0; c < count_classes().size(); ++c)
    if (count_classes()[c].id == id) return k.counts[c];
  ADD_FAILURE() << "no class " << id;
  return -1;
}

const std::vector<std::string> kBody = {
    "WARPGROUP.ARRIVE",
    "HGMMA.64x64x16.F32.BF16 R24, gdesc[UR8], RZ, !UPT",
    "HGMMA.64x64x16.F32.BF16 R24, gdesc[UR8], R24, gsb0",
    "WARPGROUP.DEPBAR.LE gsb0, 0x0",
    "BSSY B0, 0x200",
    "@P0 BRA 0x1f0",
    "BAR.SYNC.DEFER_BLOCKING R2, 0x80",
    "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR7], RZ",
    "UTMALDG.2D [UR8], [UR4]",
    "LDG.E R2, desc[UR4][R2.64]",
    "REDG.E.ADD.F32x4.FTZ.RN.STRONG.GPU desc[UR4][R2.64], R4",
    "LDS.128 R4, [R2]",
    "STL [R1], R26",
    "SHFL.IDX PT, R0, R0, RZ, 0x1f",
    "MUFU.EX2 R5, R5",
    "R2UR UR8, R20",
    "BARX R1",  // not BAR: prefixes end at a modifier boundary
    "EXIT",
};

TEST(SassCounts, EveryClassCountedOnce) {
  const auto listing = parse_listing("\tcode for sm_90a\n" + kernel("_Z1kv", kBody));
  const auto counts = kernel_counts(listing);
  ASSERT_EQ(counts.size(), 1U);
  const auto& k = counts[0];
  EXPECT_EQ(k.arch, "sm_90a");
  EXPECT_EQ(k.instructions, kBody.size());
  EXPECT_EQ(count(k, "mma"), 2);
  EXPECT_EQ(count(k, "wgmma_wait"), 1);
  EXPECT_EQ(count(k, "wgmma_arrive"), 1);
  EXPECT_EQ(count(k, "divergent"), 1);
  EXPECT_EQ(count(k, "branch"), 1);
  EXPECT_EQ(count(k, "bar"), 1);
  EXPECT_EQ(count(k, "mbarrier"), 1);
  EXPECT_EQ(count(k, "tma"), 1);
  EXPECT_EQ(count(k, "global_load"), 1);
  EXPECT_EQ(count(k, "global_store"), 1);
  EXPECT_EQ(count(k, "shared"), 1);
  EXPECT_EQ(count(k, "local"), 1);
  EXPECT_EQ(count(k, "shuffle"), 1);
  EXPECT_EQ(count(k, "mufu"), 1);
  EXPECT_EQ(count(k, "uniform_move"), 1);
  EXPECT_EQ(k.registers, -1) << "no resource usage in this listing";
}

TEST(SassCounts, ChangesNameTheKernelAndTheDelta) {
  std::vector<std::string> more_divergent = kBody;
  more_divergent.insert(more_divergent.begin() + 4, 2, "BSSY B1, 0x300");
  const auto a =
      kernel_counts(parse_listing("\tcode for sm_90a\n" + kernel("_Z4samev", kBody) + kernel("_Z6gonev", kBody)));
  const auto b = kernel_counts(
      parse_listing("\tcode for sm_90a\n" + kernel("_Z4samev", more_divergent) + kernel("_Z3newv", kBody)));
  const auto changes = compare_counts(a, b);
  ASSERT_EQ(changes.size(), 3U);
  EXPECT_EQ(changes[0].name, "_Z4samev");
  ASSERT_TRUE(changes[0].a && changes[0].b);
  EXPECT_EQ(changes[1].name, "_Z6gonev");
  EXPECT_EQ(changes[1].b, nullptr);
  EXPECT_EQ(changes[2].name, "_Z3newv");
  EXPECT_EQ(changes[2].a, nullptr);

  const std::string text = format_changes(changes);
  EXPECT_NE(text.find("divergent 1 -> 3 (+2)"), std::string::npos) << text;
  EXPECT_NE(text.find("instructions 18 -> 20 (+2)"), std::string::npos) << text;
  EXPECT_NE(text.find("only in A"), std::string::npos) << text;
  EXPECT_NE(text.find("only in B"), std::string::npos) << text;
  EXPECT_EQ(text.find("mma "), std::string::npos) << "unchanged classes are not listed: " << text;
}

// Kernels in an anonymous namespace keep their names in the table (not all "vsa::").
TEST(SassCounts, KernelsInAnAnonymousNamespaceKeepTheirNames) {
  const auto counts =
      kernel_counts(parse_listing("\tcode for sm_90a\n" + kernel("_ZN3vsa12_GLOBAL__N_16kernelEi", kBody) +
                                  kernel("_ZN3vsa12_GLOBAL__N_16kernelILi2EEEvi", kBody)));
  const std::string text = format_counts(counts);
  EXPECT_NE(text.find("\nvsa::(anonymous namespace)::kernel | sm_90a"), std::string::npos) << text;
  EXPECT_NE(text.find("\nvoid vsa::(anonymous namespace)::kernel<2> | sm_90a"), std::string::npos) << text;
}

TEST(SassCounts, IdenticalBuildsReportNothing) {
  const auto a = kernel_counts(parse_listing("\tcode for sm_90a\n" + kernel("_Z1kv", kBody)));
  const auto b = kernel_counts(parse_listing("\tcode for sm_90a\n" + kernel("_Z1kv", kBody)));
  EXPECT_TRUE(compare_counts(a, b).empty());
  EXPECT_EQ(format_changes({}), "no kernel's counts changed\n");
}

}  // namespace
}  // namespace vsa::sass
