// Backends that misbehave at run time, each for its own cases: one aborts (FAULT), one never
// returns (HANG), one reports an error (FAULT with its text), one refuses a shape (exit 2
// before anything runs), one echoes the probe delays it was given (FAIL naming them).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "test_backend.hpp"

namespace {

int aborts(void*, const vsa_plugin_forward_args*, char*, size_t) { std::abort(); }

int hangs(void*, const vsa_plugin_forward_args*, char*, size_t) {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

int errs(void*, const vsa_plugin_forward_args*, char* error, size_t n) {
  std::snprintf(error, n, "planted plugin error: illegal tile %d", 42);
  return 3;
}

int echoes(void*, const vsa_plugin_forward_args* a, char* error, size_t n) {
  std::snprintf(error, n, "probe slot 0: %u ns, warps 0x%x; slot 1: %u ns", a->probes.nanoseconds[0],
                a->probes.warps[0], a->probes.nanoseconds[1]);
  return 1;
}

int d64_only(void*, const vsa_plugin_shape* s, uint32_t, char* reason, size_t n) {
  if (s->head_dim == 64) return 1;
  std::snprintf(reason, n, "needs D = 64, got %d", s->head_dim);
  return 0;
}

const char* const kEchoProbes[] = {"echo.first", "echo.second", nullptr};

vsa_plugin_backend echo() {
  vsa_plugin_backend b = test_plugin::host_backend("test-probe-echo", "fails with the probe delays it got", echoes);
  b.probe_points = kEchoProbes;
  b.probe_warp_masks = 1;
  return b;
}

vsa_plugin_backend shape_limited() {
  vsa_plugin_backend b = test_plugin::host_backend("test-d64-only", "refuses every D but 64", errs);
  b.supports_shape = d64_only;
  return b;
}

const vsa_plugin_backend kBackends[] = {
    test_plugin::host_backend("test-abort", "aborts in forward", aborts),
    test_plugin::host_backend("test-hang", "never returns from forward", hangs),
    test_plugin::host_backend("test-error", "returns an error from forward", errs),
    echo(),
    shape_limited(),
};
const vsa_plugin_build_item kBuild[] = {{"purpose", "tests/cli/plugins.sh"}};
const vsa_plugin_table kTable = {VSA_PLUGIN_ABI_VERSION, "test-misbehaving", kBuild, 1, kBackends, 5};

}  // namespace

extern "C" VSA_PLUGIN_EXPORT const vsa_plugin_table* vsa_plugin_entry(uint32_t) { return &kTable; }
