#pragma once
// The kernels of a cuobjdump `--dump-sass --dump-resource-usage` listing, per
// architecture image: instructions (with decoded control bits) and resources.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sass/instruction.hpp"

namespace vsa::sass {

// One line of cuobjdump's resource usage ("REG:255 STACK:1088 SHARED:0 LOCAL:0 ...").
struct ResourceUsage {
  int registers = 0;
  std::int64_t stack_bytes = 0;
  std::int64_t shared_bytes = 0;
  std::int64_t local_bytes = 0;
};

struct Kernel {
  std::string name;  // mangled, as in the ELF symbol table
  std::string arch;  // "sm_90a"
  int image = 0;     // which ELF image of the file (several can share an arch)
  std::vector<Instruction> instructions;
  std::optional<ResourceUsage> resources;
};

struct Listing {
  std::vector<Kernel> kernels;
};

// Line-at-a-time parser, so a large listing can be parsed while it streams in.
class ListingParser {
 public:
  void feed_line(std::string_view line);
  // Attaches resource usage to kernels and hands the result over.
  [[nodiscard]] Listing finish();

 private:
  struct PendingResources {
    int image;
    std::string name;
    ResourceUsage usage;
  };
  Listing m_listing;
  std::vector<PendingResources> m_resources;
  std::string m_arch;
  int m_image = -1;
  bool m_in_resources = false;
  std::string m_resource_function;  // " Function NAME:" seen, usage line next
  bool m_expect_high_word = false;
};

[[nodiscard]] Listing parse_listing(std::string_view text);

// Itanium demangling (abi::__cxa_demangle); the input when it is not a mangled name.
[[nodiscard]] std::string demangle(const std::string& mangled);

}  // namespace vsa::sass
