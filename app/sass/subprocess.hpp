#pragma once
// Runs a tool (no shell) and streams its standard output line by line; standard
// error is collected for the error message. Used to drive cuobjdump.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace vsa::sass {

struct ProcessResult {
  int exit_status = -1;    // the exit code; -1 when it did not exit normally
  std::string error_text;  // standard error (first 64 KiB)
};

// argv[0] is the executable's path (not searched on PATH). Throws std::runtime_error
// when the process cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv, const std::function<void(std::string_view)>& on_line);

}  // namespace vsa::sass
