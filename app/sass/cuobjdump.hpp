#pragma once
// Finding NVIDIA's cuobjdump and reading a file's SASS through it.
#include <stdexcept>
#include <string>
#include <vector>

#include "sass/listing.hpp"

namespace vsa::sass {

// Bad input or a missing tool: the message says what was looked for or what failed.
class ToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ToolSearch {
  std::string found;                  // empty when nothing was found
  std::vector<std::string> searched;  // every place looked at, in order, for the error message
};

// Search order: `explicit_path` (a command-line option), $VSA_CUOBJDUMP, `cuobjdump`
// on $PATH, $CUDA_HOME/bin and $CUDA_PATH/bin, /usr/local/cuda/bin, then the PyPI
// wheel (nvidia-cuda-cuobjdump) in the usual site-packages directories, then in the
// checkout's own tool venv (project_venv_patterns). An explicit path or $VSA_CUOBJDUMP
// that is not an executable file is an error, not skipped.
[[nodiscard]] ToolSearch find_cuobjdump(const std::string& explicit_path);
// Where scripts/lib/common.sh installs the wheel when the toolkit has no cuobjdump:
// <checkout>/.tools/venv. Glob patterns for it from the executable's path, one to three
// folders up (build/vsa-bench, build/tests/<test>, build/tools/<tool>), so a binary run by
// hand finds the tool the setup command installed without $VSA_CUOBJDUMP.
[[nodiscard]] std::vector<std::string> project_venv_patterns(const std::string& executable);
// find_cuobjdump, throwing a ToolError naming every place searched when nothing is found.
[[nodiscard]] std::string require_cuobjdump(const std::string& explicit_path);

// Runs `cuobjdump --dump-sass --dump-resource-usage FILE` and parses its output.
// Throws ToolError when the file is missing, has no device code, or cuobjdump fails.
[[nodiscard]] Listing dump_sass(const std::string& cuobjdump, const std::string& file);

// The path of the running executable (readlink of /proc/self/exe; a child process
// given "/proc/self/exe" would read its own image instead).
[[nodiscard]] std::string current_executable();

}  // namespace vsa::sass
