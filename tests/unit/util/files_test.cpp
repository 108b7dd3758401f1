// Atomic writes and report names (util/files.hpp): concurrent writers of one path each
// use their own temp file, and reserve_new_file gives two runs of one second two names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "util/files.hpp"

#include "scratch_dir.hpp"

namespace vsa {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(WriteFileAtomic, ConcurrentWritersOfOnePathNeverCollide) {
  const test::ScratchDir scratch("files-atomic");
  const fs::path& dir = scratch.path();
  const std::string path = (dir / "r.json").string();
  std::vector<std::thread> writers;
  std::vector<std::string> errors(8);
  for (int w = 0; w < 8; ++w)
    writers.emplace_back([&, w] {
      const std::string content(100000, char('a' + w));
      try {
        for (int i = 0; i < 50; ++i) write_file_atomic(path, content);
      } catch (const std::exception& e) {
        errors[std::size_t(w)] = e.what();
      }
    });
  for (auto& t : writers) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  const std::string last = read_all(path);
  ASSERT_EQ(last.size(), 100000u);
  EXPECT_EQ(last.find_first_not_of(last[0]), std::string::npos) << "a mix of two writers' contents";
  for (const auto& entry : fs::directory_iterator(dir)) EXPECT_EQ(entry.path().filename(), "r.json");
}

TEST(WriteFileAtomic, AFolderThatIsGoneIsAnErrorNamingThePath) {
  try {
    write_file_atomic("/nonexistent-vsa/r.json", "x");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-vsa/r.json"), std::string::npos) << e.what();
  }
}

TEST(ReserveNewFile, EachCallerGetsItsOwnName) {
  const test::ScratchDir scratch("files-reserve");
  const fs::path& dir = scratch.path();
  const std::string stem = (dir / "ci-host-cpu-2026-01-01T00-00-00Z").string();
  std::vector<std::string> names(16);
  std::vector<std::thread> callers;
  for (std::size_t i = 0; i < names.size(); ++i)
    callers.emplace_back([&, i] { names[i] = reserve_new_file(stem, ".json"); });
  for (auto& t : callers) t.join();
  const std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
  EXPECT_TRUE(unique.count(stem + ".json"));
  EXPECT_TRUE(unique.count(stem + "-16.json"));
}

}  // namespace
}  // namespace vsa
