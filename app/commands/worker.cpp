// Hidden `vsa-bench __worker --device N`: the isolated case runner the parent spawns.
#include <CLI/CLI.hpp>

#include "commands/commands.hpp"
#include "run/worker.hpp"

namespace vsa::cli {

void register_worker(CLI::App& app, int& exit_code) {
  auto device = std::make_shared<int>(-1);
  auto plugins = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("__worker", "");  // empty description: hidden from --help
  cmd->group("");
  cmd->add_option("--device", *device, "CUDA ordinal, -1 for none");
  cmd->add_option("--plugin", *plugins, "Plugin library to load (repeatable)");
  cmd->callback([&exit_code, device, plugins] { exit_code = worker_main(*device, *plugins); });
}

}  // namespace vsa::cli
