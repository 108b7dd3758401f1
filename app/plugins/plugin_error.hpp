#pragma once
// A plugin that cannot be used (no such file, dlopen failure, missing entry point, wrong
// ABI version, a malformed table, a duplicate or built-in backend name): what() names the
// library and the reason. Commands turn it into exit 2 before anything runs.
#include <stdexcept>

namespace vsa {

class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace vsa
