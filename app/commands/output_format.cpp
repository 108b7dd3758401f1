#include "commands/output_format.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace vsa::cli {

void add_format_option(CLI::App& cmd, std::string& format, const std::vector<std::string>& formats,
                       const std::string& help) {
  format = formats.front();
  CLI::Option* format_option =
      cmd.add_option("--format", format, fmt::format("{} ({})", help, fmt::join(formats, " | ")))
          ->check(CLI::IsMember(formats))
          ->capture_default_str();
  // Both given, one was ignored (`compare --format md --json` printed JSON): refused instead.
  cmd.add_flag_callback(
         "--json", [&format] { format = "json"; }, "Same as --format json")
      ->excludes(format_option);
}

}  // namespace vsa::cli
