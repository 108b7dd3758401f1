#pragma once
// A kernel's SASS in a few counts (MMA, wgmma waits, divergent regions, barriers, memory
// traffic by space, ...) and the difference between two builds of the same kernels.
// What a kernel author reads after a change that "only moves data": ptxas can add
// divergent regions, serialise wgmma or spill without a warning, and the timing alone
// does not say why (kernels/sm90a/NOTES.md runs 6 and 13). `vsa-bench lint --counts`.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sass/listing.hpp"

namespace vsa::sass {

// One counted class of instructions: an id for tables and JSON, and what it stands for.
struct CountClass {
  std::string id;
  std::string meaning;
};
[[nodiscard]] const std::vector<CountClass>& count_classes();

struct KernelCounts {
  std::string name;  // mangled
  std::string arch;
  std::size_t instructions = 0;
  int registers = -1;  // -1: no resource usage in the listing
  std::int64_t stack_bytes = -1;
  std::vector<int> counts;  // one per count_classes(), same order
};

// The class of an instruction (index into count_classes()), or -1 for none.
[[nodiscard]] int count_class_of(const Instruction& instruction);

// One entry per (kernel, arch), from its first image.
[[nodiscard]] std::vector<KernelCounts> kernel_counts(const Listing& listing);

// A kernel whose counts differ between two builds, or that only one of them has.
struct CountChange {
  std::string name;
  std::string arch;
  const KernelCounts* a = nullptr;  // null: only in B
  const KernelCounts* b = nullptr;  // null: only in A
};
// Kernels matched by (mangled name, arch); unchanged ones are left out. Pointers refer
// into `a` and `b`, which must outlive the result.
[[nodiscard]] std::vector<CountChange> compare_counts(const std::vector<KernelCounts>& a,
                                                      const std::vector<KernelCounts>& b);

// Plain-text tables: every kernel's counts, or the changes ("BSSY 26 -> 42 (+16)").
[[nodiscard]] std::string format_counts(const std::vector<KernelCounts>& kernels);
[[nodiscard]] std::string format_changes(const std::vector<CountChange>& changes);

}  // namespace vsa::sass
