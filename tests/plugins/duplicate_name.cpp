// Declares "example-cpu", the example plugin's backend: loaded together, refused (exit 2).
#include "test_backend.hpp"

namespace {
const vsa_plugin_backend kBackends[] = {
    test_plugin::host_backend("example-cpu", "a second backend of that name", test_plugin::fails)};
const vsa_plugin_table kTable = {VSA_PLUGIN_ABI_VERSION, "test-duplicate", nullptr, 0, kBackends, 1};
}  // namespace

extern "C" VSA_PLUGIN_EXPORT const vsa_plugin_table* vsa_plugin_entry(uint32_t) { return &kTable; }
