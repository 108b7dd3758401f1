#pragma once
// One plugin library, opened with dlopen and its entry point called once: the table it
// returned, checked against the ABI (kernels/include/vsa/plugin.h). Kept open until the
// process exits, so every pointer in the table stays valid (docs/plugins.md, "Lifetimes").
#include <memory>
#include <string>

#include "vsa/plugin.h"

namespace vsa {

struct PluginLibrary {
  std::string path;  // absolute, as opened
  void* handle = nullptr;
  const vsa_plugin_table* table = nullptr;
};

// Opens PATH, finds vsa_plugin_entry, checks the ABI version and every field of the table
// (names, ops, required functions, probe points, lint families). Throws PluginError
// naming PATH and what is wrong.
[[nodiscard]] std::shared_ptr<const PluginLibrary> open_plugin(const std::string& path);

// The checks of open_plugin on a table already in memory (unit tests plant defects here).
// Throws PluginError prefixed with `where`.
void check_plugin_table(const vsa_plugin_table* table, const std::string& where);

}  // namespace vsa
