// Where `lint` looks for cuobjdump beyond the toolkit: the checkout's own tool venv, which
// the setup command fills when the toolkit has none (scripts/lib/common.sh).
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sass/cuobjdump.hpp"
#include "scratch_dir.hpp"

namespace vsa::sass {
namespace {

std::vector<std::string> matches(const std::vector<std::string>& patterns) {
  std::vector<std::string> found;
  for (const auto& pattern : patterns) {
    glob_t g{};
    if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
      for (std::size_t i = 0; i < g.gl_pathc; ++i) found.emplace_back(g.gl_pathv[i]);
    ::globfree(&g);
  }
  return found;
}

TEST(CuobjdumpSearch, FindsTheCheckoutsToolVenvFromBinariesOneToThreeFoldersDeep) {
  const test::ScratchDir scratch("venv");
  const std::string root = scratch.path().string();
  const std::string tool = root + "/.tools/venv/lib/python3.11/site-packages/nvidia/cu13/bin/cuobjdump";
  std::filesystem::create_directories(std::filesystem::path(tool).parent_path());
  std::ofstream(tool) << "#!/bin/sh\n";
  ::chmod(tool.c_str(), 0755);
  for (const std::string& exe :
       {root + "/build/vsa-bench", root + "/build/tests/vsa_unit_tests", root + "/build/tools/sm90a_fwd_trace"}) {
    const auto found = matches(project_venv_patterns(exe));
    ASSERT_EQ(found.size(), 1u) << exe;
    EXPECT_EQ(found[0], tool) << exe;
  }
  EXPECT_TRUE(matches(project_venv_patterns(root + "/a/b/c/d/vsa-bench")).empty()) << "four folders deep: not ours";
  EXPECT_TRUE(project_venv_patterns("vsa-bench").empty()) << "no folder in the path";
}

}  // namespace
}  // namespace vsa::sass
