#include "vsa/registry.hpp"

#include "backends/selftest_backends.hpp"

namespace vsa {

Registry make_registry() {
  Registry registry;
  register_cpu_backends(registry);
  register_portable_backends(registry);
#if defined(VSA_HAVE_SM90A)
  register_sm90a_backends(registry);
#endif
#if defined(VSA_HAVE_SM100A)
  register_sm100a_backends(registry);
#endif
#if defined(VSA_HAVE_SM100A_MODEL)
  register_sm100a_model_backends(registry);
#endif
  register_host_selftest_backends(registry);
#if defined(VSA_HAVE_SELFTEST_KERNELS)
  register_selftest_gpu_backends(registry);
#endif
  return registry;
}

}  // namespace vsa
