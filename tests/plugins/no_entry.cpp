// A library without vsa_plugin_entry (a typo in its name): must be refused, exit 2.
#include "test_backend.hpp"

extern "C" VSA_PLUGIN_EXPORT const vsa_plugin_table* vsa_plugin_entry_point(uint32_t) { return nullptr; }
