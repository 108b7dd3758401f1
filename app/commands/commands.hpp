#pragma once
// One registration function per subcommand (one file each). A callback fills a
// plain options struct, calls the harness library and stores the exit code.
namespace CLI {
class App;
}

namespace vsa::cli {

void register_info(CLI::App& app, int& exit_code);
void register_list(CLI::App& app, int& exit_code);
void register_run(CLI::App& app, int& exit_code);
void register_lint(CLI::App& app, int& exit_code);
void register_worker(CLI::App& app, int& exit_code);  // hidden: the isolated case runner

}  // namespace vsa::cli
