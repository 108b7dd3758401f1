#pragma once
// One registration function per subcommand (one file each). A callback fills a
// plain options struct, calls the harness library and stores the exit code.
namespace CLI {
class App;
}

#include <string>
#include <vector>

namespace vsa::cli {

// The command line as typed, recorded in reports (set once by main).
std::vector<std::string>& process_argv();

void register_info(CLI::App& app, int& exit_code);
void register_list(CLI::App& app, int& exit_code);
void register_run(CLI::App& app, int& exit_code);
void register_lint(CLI::App& app, int& exit_code);
void register_selftest(CLI::App& app, int& exit_code);
void register_sanitize(CLI::App& app, int& exit_code);
void register_repro(CLI::App& app, int& exit_code);
void register_dump(CLI::App& app, int& exit_code);
void register_compare(CLI::App& app, int& exit_code);
void register_fleet(CLI::App& app, int& exit_code);
void register_render(CLI::App& app, int& exit_code);
void register_floors(CLI::App& app, int& exit_code);
void register_worker(CLI::App& app, int& exit_code);  // hidden: the isolated case runner

}  // namespace vsa::cli
