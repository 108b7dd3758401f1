#include "run/output_paths.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "suite/suite.hpp"
#include "util/files.hpp"

namespace vsa {

namespace fs = std::filesystem;

namespace {

std::string named(std::string_view flag, const std::string& path) { return std::string(flag) + " " + path; }

void check_writable_dir(std::string_view flag, const std::string& path, const fs::path& dir) {
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw SuiteError(named(flag, path) + ": cannot write in " + dir.string() + ": " + std::strerror(errno));
  // access() answers yes to root everywhere, /proc and a read-only mount included: a file made
  // and removed is the answer the run's own writes will get.
  std::string probe = (dir / ".vsa-bench-write-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) throw SuiteError(named(flag, path) + ": cannot write in " + dir.string() + ": " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

// A name the file system refuses before anything is looked up (ENAMETOOLONG): a part longer
// than NAME_MAX or a whole path longer than PATH_MAX. Caught here, it is bad input named by
// its flag; found when the report or export is written, it was exit 4 after the whole run.
void check_name_lengths(std::string_view flag, const std::string& path) {
  const fs::path absolute = fs::absolute(fs::path(path)).lexically_normal();
  const auto shown = [&] { return path.size() > 80 ? path.substr(0, 77) + "..." : path; };
  if (absolute.native().size() >= PATH_MAX)
    throw SuiteError(named(flag, shown()) + ": the path is " + std::to_string(absolute.native().size()) +
                     " bytes long, more than this system's " + std::to_string(PATH_MAX - 1));
  for (const auto& part : absolute)
    if (part.native().size() > NAME_MAX)
      throw SuiteError(named(flag, shown()) + ": a part of the path is " + std::to_string(part.native().size()) +
                       " bytes long, more than a file name's " + std::to_string(NAME_MAX));
}

}  // namespace

void check_output_file(std::string_view flag, const std::string& path, bool folder_is_made) {
  if (path.empty()) return;
  check_name_lengths(flag, path);
  // Written where write_file_atomic writes it (util/files.hpp): one of this process's descriptors
  // (--jsonl /dev/stdout, >(...)), a FIFO or device, or the file at the end of a chain of links.
  if (const auto fd = own_descriptor(path)) {
    const int mode = ::fcntl(*fd, F_GETFL);
    if (mode < 0 || (mode & O_ACCMODE) == O_RDONLY)
      throw SuiteError(named(flag, path) + ": descriptor " + std::to_string(*fd) + " is not open for writing");
    return;
  }
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (fs::is_directory(status)) throw SuiteError(named(flag, path) + ": is a directory; give a file name");
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    if (::access(path.c_str(), W_OK) != 0)
      throw SuiteError(named(flag, path) + ": cannot write it: " + std::strerror(errno));
    return;
  }
  const fs::path p(link_target(path));
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (fs::is_directory(dir, ec)) return check_writable_dir(flag, path, dir);
  if (fs::exists(dir, ec)) throw SuiteError(named(flag, path) + ": " + dir.string() + " is not a directory");
  if (!folder_is_made) throw SuiteError(named(flag, path) + ": no directory " + dir.string() + " (create it first)");
}

namespace {
// "R/" as "R": a trailing separator leaves lexically_normal an empty file name.
fs::path without_trailing_separator(const fs::path& p) { return p.has_filename() ? p : p.parent_path(); }
}  // namespace

bool directly_in(const std::string& file, const std::string& dir) {
  std::error_code ec;
  const auto normal = [&](const fs::path& p) {
    return without_trailing_separator(fs::absolute(p, ec).lexically_normal());
  };
  return !file.empty() && !dir.empty() && normal(fs::path(file)).parent_path() == normal(fs::path(dir));
}

namespace {
// As the file system resolves it where it can, else lexically (a path that cannot be resolved
// must not compare equal to another that cannot either).
fs::path resolved(const std::string& p) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(p, ec).lexically_normal();
  const fs::path canonical = fs::weakly_canonical(absolute, ec);
  return ec || canonical.empty() ? absolute : canonical;
}
}  // namespace

void check_outputs_spare_inputs(const std::vector<std::pair<std::string_view, std::string>>& outputs,
                                const std::vector<std::pair<std::string_view, std::string>>& inputs) {
  for (const auto& [input_flag, input] : inputs) {
    std::error_code ec;
    if (input.empty() || !fs::is_regular_file(input, ec)) continue;
    for (const auto& [output_flag, output] : outputs)
      if (!output.empty() && resolved(output) == resolved(input))
        throw SuiteError(std::string(output_flag) + " " + output + " is the " + std::string(input_flag) + " " + input +
                         " this command reads: give the output another path");
  }
}

void check_distinct_outputs(const std::vector<std::pair<std::string_view, std::string>>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (outputs[i].second.empty() || outputs[j].second.empty()) continue;
      if (resolved(outputs[i].second) == resolved(outputs[j].second))
        throw SuiteError(std::string(outputs[i].first) + " " + outputs[i].second + " and " +
                         std::string(outputs[j].first) + " " + outputs[j].second +
                         " are one file: give each its own path");
    }
}

void check_outputs_are_not_dir(const std::vector<std::pair<std::string_view, std::string>>& outputs,
                               std::string_view dir_flag, const std::string& dir) {
  if (dir.empty()) return;
  // Where each would be written (a link, dangling too, as write_file_atomic follows it).
  const auto folder = [](const std::string& p) { return without_trailing_separator(resolved(link_target(p))); };
  const fs::path out = folder(dir);
  for (const auto& [flag, output] : outputs) {
    if (output.empty()) continue;
    const fs::path target = folder(output);
    if (target == out)
      throw SuiteError(std::string(flag) + " " + output + " is the " + std::string(dir_flag) + " folder " + dir +
                       ": give a file name (in it: " + (fs::path(dir) / "NAME").string() + ")");
    for (fs::path above = out.parent_path(); !above.empty() && above != above.parent_path();
         above = above.parent_path())
      if (target == above)
        throw SuiteError(std::string(flag) + " " + output + " is a folder above the " + std::string(dir_flag) +
                         " folder " + dir + ", which the run makes: give a file name");
  }
}

void check_output_dir(std::string_view flag, const std::string& path) {
  if (path.empty()) throw SuiteError(std::string(flag) + ": empty; give a directory");
  check_name_lengths(flag, path);
  std::error_code ec;
  if (fs::is_symlink(path, ec) && !fs::exists(path, ec))
    throw SuiteError(named(flag, path) + ": a symbolic link to nothing (" + fs::read_symlink(path, ec).string() + ")");
  fs::path dir = fs::absolute(path, ec).lexically_normal();
  if (ec) throw SuiteError(named(flag, path) + ": " + ec.message());
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw SuiteError(named(flag, path) + ": is a file, not a directory");
  // The folders that do not exist yet are made under the nearest one that does.
  while (!fs::exists(dir, ec) && dir.has_parent_path() && dir.parent_path() != dir) dir = dir.parent_path();
  if (!fs::is_directory(dir, ec)) throw SuiteError(named(flag, path) + ": " + dir.string() + " is not a directory");
  check_writable_dir(flag, path, dir);
}

}  // namespace vsa
