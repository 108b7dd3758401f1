#include "commands/output_format.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace vsa::cli {

void add_format_option(CLI::App& cmd, std::string& format, const std::vector<std::string>& formats,
                       const std::string& help) {
  format = formats.front();
  cmd.add_option("--format", format, fmt::format("{} ({})", help, fmt::join(formats, " | ")))
      ->check(CLI::IsMember(formats))
      ->capture_default_str();
  cmd.add_flag_callback(
      "--json", [&format] { format = "json"; }, "Same as --format json");
}

}  // namespace vsa::cli
