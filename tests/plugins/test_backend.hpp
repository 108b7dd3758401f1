#pragma once
// What the test plugins share: a host backend with a name and a forward, nothing else.
#include "vsa/plugin.h"

namespace test_plugin {

inline int always(void*, const vsa_plugin_device*, const vsa_plugin_shape*, uint32_t, char*, size_t) { return 1; }

inline vsa_plugin_backend host_backend(const char* name, const char* description,
                                       int (*forward)(void*, const vsa_plugin_forward_args*, char*, size_t)) {
  vsa_plugin_backend b{};
  b.name = name;
  b.description = description;
  b.memory = VSA_PLUGIN_MEMORY_HOST;
  b.ops = VSA_PLUGIN_OP_FORWARD;
  b.supports = always;
  b.forward = forward;
  return b;
}

inline int fails(void*, const vsa_plugin_forward_args*, char* error, size_t n) {
  if (n > 0) error[0] = '\0';
  return 1;
}

}  // namespace test_plugin
