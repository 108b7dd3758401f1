// Aborts in its entry point: the worker loading it dies, the parent exits 2 naming it.
#include <cstdlib>

#include "test_backend.hpp"

extern "C" VSA_PLUGIN_EXPORT const vsa_plugin_table* vsa_plugin_entry(uint32_t) { std::abort(); }
