#include "sass/cuobjdump.hpp"

#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>

#include "sass/subprocess.hpp"

namespace vsa::sass {

namespace {

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

std::vector<std::string> glob_paths(const std::string& pattern) {
  std::vector<std::string> paths;
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (std::size_t i = 0; i < g.gl_pathc; ++i) paths.emplace_back(g.gl_pathv[i]);
  }
  ::globfree(&g);
  return paths;
}

// Where pip puts the wheel's binary under one site-packages: nvidia/cu13/bin (CUDA 13
// wheels) or nvidia/cuda_cuobjdump/bin (CUDA 12 wheels).
void add_wheel_layouts(const std::string& site_packages, std::vector<std::string>& patterns) {
  patterns.push_back(site_packages + "/nvidia/cu*/bin/cuobjdump");
  patterns.push_back(site_packages + "/nvidia/cuda_cuobjdump/bin/cuobjdump");
}

// The wheel under the usual site-packages directories.
std::vector<std::string> wheel_patterns() {
  std::vector<std::string> roots = {"/usr/lib/python3*/site-packages", "/usr/lib/python3/dist-packages",
                                    "/usr/local/lib/python3*/site-packages", "/usr/local/lib/python3*/dist-packages",
                                    "/opt/conda/lib/python3*/site-packages"};
  if (const auto home = env("HOME"); !home.empty()) {
    roots.push_back(home + "/.local/lib/python3*/site-packages");
    roots.push_back(home + "/.pyenv/versions/*/lib/python3*/site-packages");
  }
  roots.emplace_back("/root/.pyenv/versions/*/lib/python3*/site-packages");
  if (const auto venv = env("VIRTUAL_ENV"); !venv.empty()) roots.push_back(venv + "/lib/python3*/site-packages");
  if (const auto conda = env("CONDA_PREFIX"); !conda.empty()) roots.push_back(conda + "/lib/python3*/site-packages");

  std::vector<std::string> patterns;
  for (const auto& root : roots) add_wheel_layouts(root, patterns);
  return patterns;
}

}  // namespace

std::vector<std::string> project_venv_patterns(const std::string& executable) {
  std::vector<std::string> patterns;
  std::string dir = executable;
  for (int up = 0; up < 3; ++up) {
    const auto slash = dir.find_last_of('/');
    if (slash == std::string::npos || slash == 0) break;
    dir.resize(slash);
    add_wheel_layouts(dir + "/.tools/venv/lib/python3*/site-packages", patterns);
  }
  return patterns;
}

ToolSearch find_cuobjdump(const std::string& explicit_path) {
  ToolSearch search;
  const auto check_required = [&](const std::string& path, const std::string& what) {
    search.searched.push_back(what + " = " + path);
    if (!is_executable_file(path)) throw ToolError(what + " = '" + path + "' is not an executable file");
    search.found = path;
  };
  if (!explicit_path.empty()) {
    check_required(explicit_path, "--cuobjdump");
    return search;
  }
  if (const auto from_env = env("VSA_CUOBJDUMP"); !from_env.empty()) {
    check_required(from_env, "$VSA_CUOBJDUMP");
    return search;
  }
  search.searched.emplace_back("$VSA_CUOBJDUMP (unset)");

  std::vector<std::string> candidates;
  const auto path_var = env("PATH");
  for (std::size_t start = 0; start <= path_var.size();) {
    const auto colon = std::min(path_var.find(':', start), path_var.size());
    if (colon > start) candidates.push_back(path_var.substr(start, colon - start) + "/cuobjdump");
    start = colon + 1;
  }
  search.searched.emplace_back("cuobjdump on $PATH");
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const auto dir = env(var); !dir.empty()) {
      candidates.push_back(dir + "/bin/cuobjdump");
      search.searched.push_back(std::string("$").append(var).append("/bin/cuobjdump"));
    }
  }
  candidates.emplace_back("/usr/local/cuda/bin/cuobjdump");
  search.searched.emplace_back("/usr/local/cuda/bin/cuobjdump");
  for (const auto& candidate : candidates) {
    if (is_executable_file(candidate)) {
      search.found = candidate;
      return search;
    }
  }
  std::vector<std::string> patterns = wheel_patterns();
  for (auto& pattern : project_venv_patterns(current_executable())) patterns.push_back(std::move(pattern));
  for (const auto& pattern : patterns) {
    search.searched.push_back(pattern);
    for (const auto& candidate : glob_paths(pattern)) {
      if (is_executable_file(candidate)) {
        search.found = candidate;
        return search;
      }
    }
  }
  return search;
}

std::string require_cuobjdump(const std::string& explicit_path) {
  auto search = find_cuobjdump(explicit_path);
  if (!search.found.empty()) return search.found;
  std::string message = "cuobjdump not found. Looked at:";
  for (const auto& place : search.searched) message += "\n  " + place;
  message +=
      "\nInstall the CUDA toolkit's cuobjdump or the PyPI wheel (pip install nvidia-cuda-cuobjdump), "
      "or point $VSA_CUOBJDUMP / --cuobjdump at it.";
  throw ToolError(message);
}

Listing dump_sass(const std::string& cuobjdump, const std::string& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) throw ToolError("'" + file + "' is not a readable file");
  ListingParser parser;
  ProcessResult result;
  try {
    result = run_process({cuobjdump, "--dump-sass", "--dump-resource-usage", file},
                         [&](std::string_view line) { parser.feed_line(line); });
  } catch (const std::runtime_error& error) {
    throw ToolError(error.what());
  }
  auto listing = parser.finish();
  std::string error = result.error_text;
  while (!error.empty() && (error.back() == '\n' || error.back() == '\r')) error.pop_back();
  if (result.exit_status != 0) {
    throw ToolError(cuobjdump + " failed on '" + file + "' (exit " + std::to_string(result.exit_status) +
                    (error.empty() ? ")" : "): " + error));
  }
  if (listing.kernels.empty()) {
    throw ToolError("'" + file + "' holds no SASS (no cubin for any architecture; PTX-only images are not linted)");
  }
  return listing;
}

std::string current_executable() {
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) throw ToolError("cannot resolve /proc/self/exe; name the file to lint");
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

}  // namespace vsa::sass
