#pragma once
// How a command prints: `--format FORMAT` on every command with a machine-readable form,
// and `--json`, kept as the alias of `--format json` (info, list, lint and selftest had
// only it; compare and fleet had only --format).
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace vsa::cli {

// Adds --format (one of `formats`; the first is the default and is stored in `format`
// now) and --json. `format` must outlive the parse.
void add_format_option(CLI::App& cmd, std::string& format, const std::vector<std::string>& formats,
                       const std::string& help);

}  // namespace vsa::cli
