#pragma once
// A fresh folder for one test's files, removed with everything in it when the test ends.
// mkdtemp names it, so tests that ctest runs in parallel (or twice in one process) never
// share one, and a test that fails half way leaves nothing behind in /tmp.
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace vsa::test {

class ScratchDir {
 public:
  // `tag` says in the folder's name which test made it: /tmp/vsa-TAG-XXXXXX.
  explicit ScratchDir(const std::string& tag) {
    std::string name = (std::filesystem::temp_directory_path() / ("vsa-" + tag + "-XXXXXX")).string();
    if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("ScratchDir: cannot create " + name);
    m_path = name;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
  // A path inside the folder, as a string (what most of the library takes).
  [[nodiscard]] std::string at(const std::string& name) const { return (m_path / name).string(); }

 private:
  std::filesystem::path m_path;
};

}  // namespace vsa::test
