// Atomic writes and report names (util/files.hpp): concurrent writers of one path each
// use their own temp file, and reserve_new_file gives two runs of one second two names.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

// Review of 2026-12-06: `--jsonl FIFO` replaced the FIFO with a file (and, as root, `--jsonl
// /dev/null` replaced /dev/null). A FIFO is written into; a link keeps pointing at its file.
TEST(WriteFileAtomic, AFifoIsWrittenIntoAndALinkKeptNotReplaced) {
  const test::ScratchDir scratch("files-special");
  const fs::path fifo = scratch.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader end open first, without blocking, so the writer's open finds it (and a write
  // that replaced the FIFO instead fails the test rather than hanging it).
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  write_file_atomic(fifo.string(), "{\"a\": 1}\n");
  char buffer[64] = {};
  const ssize_t got = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  EXPECT_EQ(std::string(buffer, std::size_t(std::max<ssize_t>(got, 0))), "{\"a\": 1}\n");
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));

  const fs::path file = scratch.path() / "real.json", link = scratch.path() / "latest.json";
  write_file_atomic(file.string(), "old");
  fs::create_symlink("real.json", link);  // relative, as `ln -s` makes them
  write_file_atomic(link.string(), "new");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(read_all(file), "new");
  EXPECT_THROW(write_file_atomic(scratch.path().string(), "x"), std::runtime_error);  // a folder
}

// A FIFO nobody opens for reading: the write gives up after its wait with an error naming the
// path, instead of hanging the run's end; a reader that comes during the wait gets the content.
TEST(WriteFileAtomic, AFifoWithoutAReaderFailsAfterTheWait) {
  const test::ScratchDir scratch("files-fifo-wait");
  const fs::path fifo = scratch.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto started = std::chrono::steady_clock::now();
  try {
    write_into_special_file(fifo.string(), {"x"}, std::chrono::milliseconds(300));
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(
        std::string(e.what()).find(fifo.string() + ": it is a FIFO and nothing opened it for reading within 300 ms"),
        std::string::npos)
        << e.what();
  }
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(300));

  std::string got;
  std::thread late_reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_CLOEXEC);  // blocks until the writer opens
    char buffer[16] = {};
    for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;) got.append(buffer, std::size_t(n));
    ::close(reader);
  });
  write_into_special_file(fifo.string(), {"late ", "reader"}, std::chrono::seconds(20));
  late_reader.join();
  EXPECT_EQ(got, "late reader");
}

// Review of 2026-12-06: `--jsonl /dev/stdout >> log` (root) followed /dev/stdout to the log and
// renamed a new file over it. A path naming one of this process's descriptors is written to
// the descriptor, where it points already.
TEST(WriteFileAtomic, APathNamingOwnDescriptorIsWrittenToIt) {
  EXPECT_EQ(own_descriptor("/dev/stdout"), 1);
  EXPECT_EQ(own_descriptor("/dev/stderr"), 2);
  EXPECT_EQ(own_descriptor("/dev/fd/63"), 63);
  EXPECT_EQ(own_descriptor("/proc/self/fd/7"), 7);
  EXPECT_EQ(own_descriptor("/dev/fd/x"), std::nullopt);
  EXPECT_EQ(own_descriptor("/tmp/dev/fd/3"), std::nullopt);
  const test::ScratchDir scratch("files-fd");
  const fs::path log = scratch.path() / "log";
  write_file_atomic(log.string(), "earlier\n");
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);  // as a shell's `>> log`
  ASSERT_GE(fd, 0);
  const fs::file_status before = fs::status(log);
  write_file_atomic("/dev/fd/" + std::to_string(fd), "{\"a\": 1}\n");
  ::close(fd);
  EXPECT_EQ(read_all(log), "earlier\n{\"a\": 1}\n");
  EXPECT_EQ(fs::status(log).permissions(), before.permissions());
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
