// The adapter (plugins/plugin_backend.hpp) on an in-memory table: what the harness passes
// reaches the plugin unchanged (pointers, shape, probes, hang watch), and what the plugin
// says (reasons, errors, kernels) comes back as the in-tree types say it.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>

#include "plugins/plugin_backend.hpp"

namespace vsa {
namespace {

struct Seen {
  vsa_plugin_forward_args forward{};
  vsa_plugin_backward_args backward{};
  vsa_plugin_device device{};
  std::string device_name;
};

int supports(void* ctx, const vsa_plugin_device* d, const vsa_plugin_shape* s, uint32_t op, char* reason, size_t n) {
  auto* seen = static_cast<Seen*>(ctx);
  seen->device = *d;
  seen->device_name = d->name;
  if (s->head_dim == 128 && op == VSA_PLUGIN_OP_FORWARD) return 1;
  std::snprintf(reason, n, "needs D = 128 forward, got D = %d op %u", s->head_dim, op);
  return 0;
}
int forward(void* ctx, const vsa_plugin_forward_args* a, char* error, size_t n) {
  static_cast<Seen*>(ctx)->forward = *a;
  std::snprintf(error, n, "forward saw %d heads", a->shape.heads);
  return 5;
}
int backward(void* ctx, const vsa_plugin_backward_args* a, char*, size_t) {
  static_cast<Seen*>(ctx)->backward = *a;
  return 0;
}
uint64_t workspace(void*, const vsa_plugin_shape* s, uint32_t op) { return uint64_t(s->num_blocks) * 10 + op; }
double lse_factor(void*, const vsa_plugin_shape* s) { return -double(s->head_dim); }
int kernels(void*, vsa_plugin_kernel_info* k, size_t capacity, size_t* count, char*, size_t) {
  if (capacity < 1) return 1;
  std::snprintf(k[0].name, sizeof k[0].name, "%s", "_ZN4mine6kernelEv");
  k[0].registers = 168;
  k[0].local_bytes = 8;
  k[0].hot = 1;
  *count = 1;
  return 0;
}

const char* const kProbes[] = {"fwd.a", "bwd.b", nullptr};
const char* const kNondet[] = {"dq", nullptr};
const char* const kImages[] = {"sm_90a", nullptr};

std::unique_ptr<Backend> adapter(Seen& seen, double (*lse)(void*, const vsa_plugin_shape*) = nullptr) {
  static vsa_plugin_backend entry{};
  entry.name = "mine";
  entry.description = "a test backend";
  entry.memory = VSA_PLUGIN_MEMORY_DEVICE;
  entry.ops = VSA_PLUGIN_OP_FORWARD | VSA_PLUGIN_OP_BACKWARD;
  entry.probe_points = kProbes;
  entry.probe_warp_masks = 1;
  entry.nondeterministic_outputs = kNondet;
  entry.compiled_images = kImages;
  entry.context = &seen;
  entry.supports = supports;
  entry.workspace_bytes = workspace;
  entry.forward = forward;
  entry.backward = backward;
  entry.kernels = kernels;
  entry.lse_factor = lse;
  static vsa_plugin_table table{VSA_PLUGIN_ABI_VERSION, "mine", nullptr, 0, &entry, 1};
  auto lib = std::make_shared<PluginLibrary>();
  lib->path = "/in/memory.so";
  lib->table = &table;
  return make_plugin_backend(lib, entry);
}

TEST(PluginBackend, DeclarationsReadAsTheInTreeInterfaceSaysThem) {
  Seen seen;
  const auto b = adapter(seen);
  EXPECT_EQ(b->name(), "mine");
  EXPECT_EQ(b->memory(), Memory::device);
  EXPECT_TRUE(b->has_op(Op::forward));
  EXPECT_TRUE(b->has_op(Op::backward));
  EXPECT_EQ(b->probe_points(), (std::vector<std::string>{"fwd.a", "bwd.b"}));
  EXPECT_TRUE(b->probe_warp_masks());
  EXPECT_EQ(b->nondeterministic_outputs(), std::vector<std::string>{"dq"});
  EXPECT_EQ(b->compiled_images(), std::vector<std::string>{"sm_90a"});
  EXPECT_EQ(b->workspace_bytes(Shape{1, 1, 7, 128, 64, 1, 1}, Op::backward), 72u);
  EXPECT_EQ(b->supports_shape(Shape{}, Op::forward).ok, true);  // no supports_shape: every shape
  ASSERT_NE(plugin_of(*b), nullptr);
  EXPECT_EQ(plugin_of(*b)->path, "/in/memory.so");
}

TEST(PluginBackend, LseFactorIsTheDeclaredOneOrOne) {
  Seen seen;
  EXPECT_EQ(adapter(seen)->lse_factor(Shape{1, 1, 7, 128, 64, 1, 1}), 1.0);               // none declared: M format
  EXPECT_EQ(adapter(seen, lse_factor)->lse_factor(Shape{1, 1, 7, 96, 64, 1, 1}), -96.0);  // the shape reaches it
}

TEST(PluginBackend, SupportPassesTheDeviceAndReturnsTheReason) {
  Seen seen;
  const auto b = adapter(seen);
  DeviceInfo d;
  d.ordinal = 3;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.sm_count = 132;
  EXPECT_TRUE(b->supports(d, Shape{}, Op::forward).ok);
  EXPECT_EQ(seen.device.ordinal, 3);
  EXPECT_EQ(seen.device.cc_major, 9);
  EXPECT_EQ(seen.device.sm_count, 132);
  EXPECT_EQ(seen.device_name, "NVIDIA H200");
  Shape s;
  s.head_dim = 96;
  const Support no = b->supports(d, s, Op::backward);
  EXPECT_FALSE(no.ok);
  EXPECT_EQ(no.reason, "needs D = 128 forward, got D = 96 op 2");
}

TEST(PluginBackend, ForwardGetsEveryArgumentAndReturnsItsError) {
  Seen seen;
  const auto b = adapter(seen);
  ForwardArgs a;
  a.shape = Shape{2, 3, 4, 128, 64, 5, 6};
  bf16_bits q[1], k[1], v[1], o[1];
  std::int32_t idx[1], num[1], vbs[1];
  float lse[1];
  HangRecord record;
  a.q = q, a.k = k, a.v = v, a.out = o, a.lse = lse, a.q2k_idx = idx, a.q2k_num = num, a.vbs = vbs;
  a.workspace = &seen;
  a.stream = reinterpret_cast<void*>(0x1234);
  a.probes.nanoseconds[2] = 2000;
  a.probes.warps[2] = 0xf0;
  a.hang_watch = HangWatch{&record, 500};
  const Status st = b->forward(a);
  EXPECT_EQ(st.error, "forward saw 3 heads");
  const auto& c = seen.forward;
  EXPECT_EQ(c.shape.batch, 2);
  EXPECT_EQ(c.shape.max_kv, 5);
  EXPECT_EQ(c.shape.max_q, 6);
  EXPECT_EQ(c.q, q);
  EXPECT_EQ(c.out, o);
  EXPECT_EQ(c.lse, lse);
  EXPECT_EQ(c.vbs, vbs);
  EXPECT_EQ(c.workspace, &seen);
  EXPECT_EQ(c.stream, reinterpret_cast<void*>(0x1234));
  EXPECT_EQ(c.probes.nanoseconds[2], 2000u);
  EXPECT_EQ(c.probes.warps[2], 0xf0u);
  EXPECT_EQ(c.probes.nanoseconds[0], 0u);
  EXPECT_EQ(static_cast<void*>(c.hang_watch.record), static_cast<void*>(&record));
  EXPECT_EQ(c.hang_watch.timeout_ms, 500u);
}

TEST(PluginBackend, BackwardGetsTheInversionAndGradients) {
  Seen seen;
  const auto b = adapter(seen);
  BackwardArgs a;
  std::int32_t k2q_idx[1], k2q_num[1];
  bf16_bits dq[1], dk[1], dv[1];
  a.k2q_idx = k2q_idx, a.k2q_num = k2q_num, a.dq = dq, a.dk = dk, a.dv = dv;
  EXPECT_TRUE(b->backward(a).ok());
  EXPECT_EQ(seen.backward.k2q_idx, k2q_idx);
  EXPECT_EQ(seen.backward.k2q_num, k2q_num);
  EXPECT_EQ(seen.backward.dq, dq);
  EXPECT_EQ(seen.backward.dv, dv);
}

TEST(PluginBackend, KernelsComeBackWithTheirResources) {
  Seen seen;
  const auto b = adapter(seen);
  const auto k = b->kernels();
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].name, "_ZN4mine6kernelEv");
  EXPECT_EQ(k[0].registers, 168);
  EXPECT_EQ(k[0].local_bytes, 8u);
  EXPECT_TRUE(k[0].hot);
}

}  // namespace
}  // namespace vsa
