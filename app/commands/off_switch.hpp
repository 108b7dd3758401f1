#pragma once
// A flag that turns a setting that is on by default off: --quiet (progress), --no-isolate,
// --no-reference. CLI11's negated form ("!--quiet" bound to the setting) printed as
// "--quiet{false}" in --help; a callback flag prints as the user types it.
#include <string>

#include <CLI/CLI.hpp>

namespace vsa::cli {

// `setting` must outlive the parse (it lives in the command's options).
inline CLI::Option* add_off_switch(CLI::App& cmd, const std::string& name, bool& setting, const std::string& help) {
  return cmd.add_flag_callback(
      name, [&setting] { setting = false; }, help);
}

}  // namespace vsa::cli
