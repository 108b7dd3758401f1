// Needs a symbol nothing defines: dlopen (RTLD_NOW) fails, naming it; exit 2.
#include "test_backend.hpp"

extern "C" int vsa_test_symbol_nobody_defines(void);

namespace {
int forward(void*, const vsa_plugin_forward_args*, char*, size_t) { return vsa_test_symbol_nobody_defines(); }
const vsa_plugin_backend kBackends[] = {test_plugin::host_backend("test-unresolved", "cannot load", forward)};
const vsa_plugin_table kTable = {VSA_PLUGIN_ABI_VERSION, "test-unresolved", nullptr, 0, kBackends, 1};
}  // namespace

extern "C" VSA_PLUGIN_EXPORT const vsa_plugin_table* vsa_plugin_entry(uint32_t) { return &kTable; }
