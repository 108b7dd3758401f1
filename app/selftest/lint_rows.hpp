#pragma once
// The selftest rows for the linter: cubins with a planted empty body and a planted
// arrive-before-wait (the lint fixtures, embedded at build time) go through the
// same lint_file as `vsa-bench lint`, and the planted finding must come out.
#include <string>
#include <vector>

#include "selftest/selftest.hpp"

namespace vsa {

// `cuobjdump`: explicit path or empty to search. Rows read SKIP without cuobjdump
// or without the embedded images.
[[nodiscard]] std::vector<SelftestRow> lint_selftest_rows(const std::string& cuobjdump);

}  // namespace vsa
