// Declares "cpu-ref", a built-in backend's name: refused (exit 2).
#include "test_backend.hpp"

namespace {
const vsa_plugin_backend kBackends[] = {
    test_plugin::host_backend("cpu-ref", "pretends to be the CPU reference", test_plugin::fails)};
const vsa_plugin_table kTable = {VSA_PLUGIN_ABI_VERSION, "test-builtin-clash", nullptr, 0, kBackends, 1};
}  // namespace

extern "C" VSA_PLUGIN_EXPORT const vsa_plugin_table* vsa_plugin_entry(uint32_t) { return &kTable; }
