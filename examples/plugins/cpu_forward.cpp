// Example plugin: a CPU forward (host memory, fp32, one query row at a time) in the SDK's
// terms: one entry point, a backend, a probe point. README "Test your own kernel" walks
// through it; tests/cli/plugins.sh runs it against cpu-ref. A second backend,
// example-cpu-ln, writes a natural-log lse and declares it (lse_factor): vsa-bench then
// converts after the call, so a kernel with that convention needs no conversion of its own.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "vsa/plugin.h"
#include "vsa/probe.cuh"

namespace {

float bf16_to_float(uint16_t b) {
  const uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint16_t float_to_bf16(float f) {  // round to nearest even (inputs here are finite)
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

int supports(void*, const vsa_plugin_device*, const vsa_plugin_shape* s, uint32_t, char* reason, size_t n) {
  if (s->head_dim <= 256) return 1;
  std::snprintf(reason, n, "needs D <= 256, got %d", s->head_dim);
  return 0;
}

// context: the factor of the backend's lse form (1: base 2, "M format"; ln 2: natural log).
int forward(void* context, const vsa_plugin_forward_args* a, char*, size_t) {
  const float lse_factor = float(*static_cast<const double*>(context));
  const vsa_plugin_shape& s = a->shape;
  const int64_t S = int64_t(s.num_blocks) * s.block, D = s.head_dim;
  const float scale = 1.0f / std::sqrt(float(D)), log2e = 1.4426950408889634f;
  for (int64_t bh = 0; bh < int64_t(s.batch) * s.heads; ++bh)
    for (int64_t r = 0; r < S; ++r) {
      const int64_t qb = r / s.block, list = bh * s.num_blocks + qb;
      const uint16_t* q = a->q + (bh * S + r) * D;
      float m = -INFINITY, l = 0, acc[256] = {};
      for (int e = 0; e < a->q2k_num[list]; ++e) {
        const int kb = a->q2k_idx[list * s.max_kv + e];
        for (int t = 0; t < a->vbs[kb]; ++t) {
          const int64_t key = (bh * S + int64_t(kb) * s.block + t) * D;
          float dot = 0;
          for (int64_t d = 0; d < D; ++d) dot += bf16_to_float(q[d]) * bf16_to_float(a->k[key + d]);
          const float x = dot * scale * log2e, m_new = std::fmax(m, x);  // base 2 throughout
          const float rescale = std::exp2(m - m_new), p = std::exp2(x - m_new);
          for (int64_t d = 0; d < D; ++d) acc[d] = acc[d] * rescale + p * bf16_to_float(a->v[key + d]);
          l = l * rescale + p;
          m = m_new;
        }
      }
      VSA_PROBE(a->probes, 0);  // "fwd.before_store": the row is computed, not yet written
      for (int64_t d = 0; d < D; ++d) a->out[(bh * S + r) * D + d] = float_to_bf16(l > 0 ? acc[d] / l : 0.0f);
      a->lse[bh * S + r] = l > 0 ? (m + std::log2(l)) * lse_factor : -INFINITY;
    }
  return 0;
}

const char* const kProbes[] = {"fwd.before_store", nullptr};
const double kBase2 = 1.0, kNaturalLog = 0.6931471805599453;  // ln x = ln 2 * log2 x
double lse_factor(void* context, const vsa_plugin_shape*) { return *static_cast<const double*>(context); }

vsa_plugin_backend make_backend(const char* name, const char* description, const double* factor) {
  vsa_plugin_backend b{};  // fields not set stay zero: NULL, none
  b.name = name;
  b.description = description;
  b.memory = VSA_PLUGIN_MEMORY_HOST;
  b.ops = VSA_PLUGIN_OP_FORWARD;
  b.probe_points = kProbes;
  b.context = const_cast<double*>(factor);
  b.supports = supports;
  b.forward = forward;
  if (*factor != 1.0) b.lse_factor = lse_factor;
  return b;
}
const vsa_plugin_backend kBackends[] = {make_backend("example-cpu",
                                                     "example plugin: fp32 CPU forward, one query row at a time "
                                                     "(examples/plugins/cpu_forward.cpp)",
                                                     &kBase2),
                                        make_backend("example-cpu-ln",
                                                     "example plugin: example-cpu with a natural-log lse, declared "
                                                     "as lse_factor ln 2 (examples/plugins/cpu_forward.cpp)",
                                                     &kNaturalLog)};
const vsa_plugin_build_item kBuild[] = {{"example", "cpu_forward.cpp"}, {"compiler", __VERSION__}};
const vsa_plugin_table kTable = {VSA_PLUGIN_ABI_VERSION, "example-cpu", kBuild, 2, kBackends, 2};

}  // namespace

extern "C" VSA_PLUGIN_EXPORT const vsa_plugin_table* vsa_plugin_entry(uint32_t) { return &kTable; }
