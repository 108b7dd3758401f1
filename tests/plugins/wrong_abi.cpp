// A plugin built against a later ABI version: must be refused, exit 2, naming both versions.
#include "test_backend.hpp"

namespace {
const vsa_plugin_backend kBackends[] = {
    test_plugin::host_backend("test-wrong-abi", "built against another ABI", test_plugin::fails)};
const vsa_plugin_table kTable = {VSA_PLUGIN_ABI_VERSION + 1, "test-wrong-abi", nullptr, 0, kBackends, 1};
}  // namespace

extern "C" VSA_PLUGIN_EXPORT const vsa_plugin_table* vsa_plugin_entry(uint32_t) { return &kTable; }
