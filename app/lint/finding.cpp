#include "lint/finding.hpp"

#include <tuple>

#include "sass/instruction.hpp"
#include "sass/listing.hpp"

namespace vsa::lint {

bool finding_less(const Finding& a, const Finding& b) {
  const auto offset_a = a.offset.value_or(0);
  const auto offset_b = b.offset.value_or(0);
  return std::tie(a.arch, a.kernel, offset_a, a.rule, a.message) <
         std::tie(b.arch, b.kernel, offset_b, b.rule, b.message);
}

nlohmann::json to_json(const Finding& finding) {
  return {
      {"rule", finding.rule},
      {"severity", to_string(finding.severity)},
      {"kernel", sass::demangle(finding.kernel)},
      {"mangled", finding.kernel},
      {"arch", finding.arch},
      {"offset", finding.offset ? nlohmann::json(sass::format_offset(*finding.offset)) : nlohmann::json(nullptr)},
      {"message", finding.message},
  };
}

}  // namespace vsa::lint
