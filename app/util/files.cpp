#include "util/files.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vsa {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

// The folder holding `path`, synced so that a rename into it survives a power loss (the
// rename is an entry of the folder: fsync(2) of the file does not cover it).
void sync_folder_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const int fd = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // a folder we cannot open cannot be synced; the rename stands
  ::fsync(fd);
  ::close(fd);
}

void write_all(int fd, std::string_view data, const std::string& tmp) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("write failed: " + tmp + ": " + errno_text(errno));
    data.remove_prefix(std::size_t(n));
  }
}

}  // namespace

// A target that is there and is no regular file (a FIFO, /dev/stdout, /dev/null) is written
// into: a rename would put a file where the pipe or device was (as root, over /dev/null).
void write_into_special_file(const std::string& path, std::initializer_list<std::string_view> parts,
                             std::chrono::milliseconds reader_wait) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENXIO) {  // a FIFO nobody reads yet: say why the run waits, then wait a while
    std::fprintf(stderr, "vsa-bench: waiting up to %lld s for a reader of %s\n",
                 static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(reader_wait).count()),
                 path.c_str());
    const auto deadline = std::chrono::steady_clock::now() + reader_wait;
    while (fd < 0 && errno == ENXIO && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    }
    if (fd < 0 && errno == ENXIO)
      throw std::runtime_error(fmt::format(
          "cannot write {}: it is a FIFO and nothing opened it for reading within {} ms", path, reader_wait.count()));
  }
  if (fd < 0) throw std::runtime_error("cannot write " + path + ": " + errno_text(errno));
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // whole writes, as to a file
  try {
    for (const auto part : parts) write_all(fd, part, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

std::optional<int> own_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string_view prefix : {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/")}) {
    if (path.rfind(prefix, 0) != 0) continue;
    const std::string digits = path.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
      return std::nullopt;
    return std::stoi(digits);
  }
  return std::nullopt;
}

std::string link_target(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p = path;
  std::error_code ec;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) break;
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  return p.string();
}

void write_file_atomic(const std::string& path_as_given, std::initializer_list<std::string_view> parts) {
  if (const auto fd = own_descriptor(path_as_given)) {
    std::fflush(nullptr);  // what this process printed before comes first
    for (const auto part : parts) write_all(*fd, part, path_as_given);
    return;
  }
  std::error_code ec;
  const auto status = std::filesystem::status(path_as_given, ec);  // through links
  if (!ec && std::filesystem::is_directory(status))
    throw std::runtime_error("cannot write " + path_as_given + ": it is a folder");
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    write_into_special_file(path_as_given, parts, kFifoReaderWait);
    return;
  }
  const std::string path = link_target(path_as_given);
  // A temp name of its own (mkstemp), so two runs writing the same report never share
  // one (issue 20: one run's rename took the other's half-written file).
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot write " + path + ": " + errno_text(errno));
  try {
    for (const auto part : parts) write_all(fd, part, tmp);
    // The content on disk before the rename makes it visible: a crash then leaves the old
    // file or the new one, never an empty one.
    if (::fsync(fd) != 0) throw std::runtime_error("fsync failed: " + tmp + ": " + errno_text(errno));
    ::fchmod(fd, 0644);  // mkstemp's 0600 would hide reports from the fleet's reader
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + errno_text(e));
  }
  sync_folder_of(path);
}

void write_file_atomic(const std::string& path, const std::string& content) { write_file_atomic(path, {content}); }

std::string reserve_new_file(const std::string& stem, const std::string& extension) {
  for (int n = 1; n < 10000; ++n) {
    // fmt, not `"-" + std::to_string(n)`: that trips GCC 12's bogus -Wrestrict (GCC bug 105329).
    const std::string path = n == 1 ? stem + extension : fmt::format("{}-{}{}", stem, n, extension);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      return path;
    }
    if (errno != EEXIST) throw std::runtime_error("cannot create " + path + ": " + errno_text(errno));
  }
  throw std::runtime_error("cannot create " + stem + extension + ": 9999 files of that name exist");
}

}  // namespace vsa
