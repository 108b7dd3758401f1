#pragma once
// A suite's "plugins" as this node can load them (docs/plugins.md). A suite or repro bundle
// carried from another node names its libraries by that node's paths; `run --plugin` with a
// library of the same file name stands in for one that is not here, and a stand-in that is not
// the build the bundle's origin recorded (its SHA-256) is said, since then another kernel runs.
#include <string>
#include <vector>

#include "suite/suite.hpp"

namespace vsa {

struct SuitePlugins {
  std::vector<std::string> load;   // the suite's libraries found here, to load after --plugin's
  std::vector<std::string> notes;  // one line per stand-in, for stderr
};

// `suite_arg` is how the user named the suite (errors name it). Throws SuiteError naming the suite
// and its $.plugins[i] for a library that is neither here nor stood in for.
[[nodiscard]] SuitePlugins resolve_suite_plugins(const Suite& suite, const std::string& suite_arg,
                                                 const std::vector<std::string>& cli_plugins);

}  // namespace vsa
