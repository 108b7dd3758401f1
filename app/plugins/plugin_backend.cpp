#include "plugins/plugin_backend.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace vsa {
namespace {

// The C structs mirror the C++ ones field for field where memory is shared (the hang
// record lives in host-mapped memory a kernel writes); checked here, where both are seen.
static_assert(sizeof(bf16_bits) == sizeof(std::uint16_t));
static_assert(VSA_PLUGIN_MAX_PROBES == kMaxProbePoints);
static_assert(VSA_PLUGIN_HANG_LABEL_BYTES == kHangLabelWords * 4);
static_assert(sizeof(vsa_plugin_hang_record) == sizeof(HangRecord));
static_assert(offsetof(vsa_plugin_hang_record, claimed) == offsetof(HangRecord, claimed));
static_assert(offsetof(vsa_plugin_hang_record, complete) == offsetof(HangRecord, complete));
static_assert(offsetof(vsa_plugin_hang_record, block) == offsetof(HangRecord, block));
static_assert(offsetof(vsa_plugin_hang_record, warp) == offsetof(HangRecord, warp));
static_assert(offsetof(vsa_plugin_hang_record, slot) == offsetof(HangRecord, slot));
static_assert(offsetof(vsa_plugin_hang_record, parity) == offsetof(HangRecord, parity));
static_assert(offsetof(vsa_plugin_hang_record, step) == offsetof(HangRecord, step));
static_assert(offsetof(vsa_plugin_hang_record, item) == offsetof(HangRecord, item));
static_assert(offsetof(vsa_plugin_hang_record, waited_ms) == offsetof(HangRecord, waited_ms));
static_assert(offsetof(vsa_plugin_hang_record, kernel) == offsetof(HangRecord, site));
static_assert(std::is_standard_layout_v<HangRecord>);
// HangLabel packs character i into byte i % 4 of word i / 4 (hang_label()): on a
// little-endian host that is the byte order of the C record's char arrays.
static_assert(std::endian::native == std::endian::little, "the hang record's labels assume a little-endian host");

constexpr std::size_t kTextBytes = 4096;  // reason / error buffers handed to the plugin

// A plugin's text, terminated whatever it wrote.
struct TextBuffer {
  std::array<char, kTextBytes> bytes{};
  char* data() { return bytes.data(); }
  std::string text() {
    bytes.back() = '\0';
    return std::string(bytes.data());
  }
};

std::vector<std::string> list_of(const char* const* list) {
  std::vector<std::string> out;
  if (list)
    for (std::size_t i = 0; list[i]; ++i) out.emplace_back(list[i]);
  return out;
}

vsa_plugin_shape c_shape(const Shape& s) {
  return {s.batch, s.heads, s.num_blocks, s.head_dim, s.block, s.max_kv, s.max_q};
}

vsa_plugin_probes c_probes(const ProbeDelays& p) {
  vsa_plugin_probes c{};
  std::memcpy(c.nanoseconds, p.nanoseconds, sizeof c.nanoseconds);
  std::memcpy(c.warps, p.warps, sizeof c.warps);
  return c;
}

vsa_plugin_hang_watch c_hang_watch(const HangWatch& w) {
  return {reinterpret_cast<vsa_plugin_hang_record*>(w.record), w.timeout_ms};
}

std::uint32_t c_op(Op op) { return op == Op::forward ? VSA_PLUGIN_OP_FORWARD : VSA_PLUGIN_OP_BACKWARD; }

class PluginBackend final : public Backend {
 public:
  PluginBackend(std::shared_ptr<const PluginLibrary> library, const vsa_plugin_backend& entry)
      : m_library(std::move(library)), m_entry(entry) {}

  std::string name() const override { return m_entry.name; }
  std::string description() const override { return m_entry.description; }
  Memory memory() const override { return m_entry.memory == VSA_PLUGIN_MEMORY_HOST ? Memory::host : Memory::device; }
  bool has_op(Op op) const override { return (m_entry.ops & c_op(op)) != 0; }

  Support supports(const DeviceInfo& d, const Shape& s, Op op) const override {
    const vsa_plugin_device device{d.ordinal,  d.name.c_str(),         d.cc_major,  d.cc_minor,
                                   d.sm_count, d.smem_per_block_optin, d.global_mem};
    const vsa_plugin_shape shape = c_shape(s);
    TextBuffer reason;
    const int yes = m_entry.supports(m_entry.context, &device, &shape, c_op(op), reason.data(), kTextBytes);
    return answer(yes, reason, "supports");
  }

  Support supports_shape(const Shape& s, Op op) const override {
    if (!m_entry.supports_shape) return Support::yes();
    const vsa_plugin_shape shape = c_shape(s);
    TextBuffer reason;
    const int yes = m_entry.supports_shape(m_entry.context, &shape, c_op(op), reason.data(), kTextBytes);
    return answer(yes, reason, "supports_shape");
  }

  std::size_t workspace_bytes(const Shape& s, Op op) const override {
    if (!m_entry.workspace_bytes) return 0;
    const vsa_plugin_shape shape = c_shape(s);
    return std::size_t(m_entry.workspace_bytes(m_entry.context, &shape, c_op(op)));
  }

  std::vector<std::string> nondeterministic_outputs() const override {
    return list_of(m_entry.nondeterministic_outputs);
  }

  Status forward(const ForwardArgs& a) override {
    if (!m_entry.forward) return Status::failure(name() + ": the plugin has no forward");
    vsa_plugin_forward_args c{};
    c.shape = c_shape(a.shape);
    c.q = a.q;
    c.k = a.k;
    c.v = a.v;
    c.q2k_idx = a.q2k_idx;
    c.q2k_num = a.q2k_num;
    c.vbs = a.vbs;
    c.out = a.out;
    c.lse = a.lse;
    c.workspace = a.workspace;
    c.stream = a.stream;
    c.probes = c_probes(a.probes);
    c.trace = a.trace;
    c.hang_watch = c_hang_watch(a.hang_watch);
    TextBuffer error;
    return status(m_entry.forward(m_entry.context, &c, error.data(), kTextBytes), error, "forward");
  }

  Status backward(const BackwardArgs& a) override {
    if (!m_entry.backward) return Status::failure(name() + ": the plugin has no backward");
    vsa_plugin_backward_args c{};
    c.shape = c_shape(a.shape);
    c.q = a.q;
    c.k = a.k;
    c.v = a.v;
    c.out = a.out;
    c.d_out = a.d_out;
    c.lse = a.lse;
    c.q2k_idx = a.q2k_idx;
    c.q2k_num = a.q2k_num;
    c.k2q_idx = a.k2q_idx;
    c.k2q_num = a.k2q_num;
    c.vbs = a.vbs;
    c.dq = a.dq;
    c.dk = a.dk;
    c.dv = a.dv;
    c.workspace = a.workspace;
    c.stream = a.stream;
    c.probes = c_probes(a.probes);
    c.trace = a.trace;
    c.hang_watch = c_hang_watch(a.hang_watch);
    TextBuffer error;
    return status(m_entry.backward(m_entry.context, &c, error.data(), kTextBytes), error, "backward");
  }

  double lse_factor(const Shape& s) const override {
    if (!m_entry.lse_factor) return 1.0;
    const vsa_plugin_shape shape = c_shape(s);
    return m_entry.lse_factor(m_entry.context, &shape);
  }

  std::vector<std::string> compiled_images() const override { return list_of(m_entry.compiled_images); }

  std::vector<KernelInfo> kernels() const override {
    if (!m_entry.kernels) return {};
    std::vector<vsa_plugin_kernel_info> infos(64);
    std::size_t count = 0;
    TextBuffer error;
    if (m_entry.kernels(m_entry.context, infos.data(), infos.size(), &count, error.data(), kTextBytes) != 0) return {};
    std::vector<KernelInfo> out;
    for (std::size_t i = 0; i < std::min(count, infos.size()); ++i) {
      const auto& k = infos[i];
      KernelInfo info;
      info.name = std::string(k.name, strnlen(k.name, sizeof k.name));
      info.registers = k.registers;
      info.shared_static_bytes = std::size_t(k.shared_static_bytes);
      info.local_bytes = std::size_t(k.local_bytes);
      info.max_threads_per_block = k.max_threads_per_block;
      info.binary_version = k.binary_version;
      info.hot = k.hot != 0;
      out.push_back(std::move(info));
    }
    return out;
  }

  std::vector<std::string> probe_points() const override { return list_of(m_entry.probe_points); }
  bool probe_warp_masks() const override { return m_entry.probe_warp_masks != 0; }

  const PluginLibrary& library() const { return *m_library; }

 private:
  Support answer(int yes, TextBuffer& reason, const char* function) const {
    if (yes == 1) return Support::yes();
    std::string why = reason.text();
    if (yes != 0) why = function + std::string("() returned ") + std::to_string(yes) + " (1 or 0 expected)";
    if (why.empty()) why = "the plugin's " + std::string(function) + "() said no without a reason";
    return Support::no(why);
  }

  Status status(int rc, TextBuffer& error, const char* function) const {
    if (rc == 0) return Status::success();
    std::string why = error.text();
    if (why.empty()) why = function + std::string("() returned ") + std::to_string(rc) + " without a message";
    return Status::failure(why);
  }

  std::shared_ptr<const PluginLibrary> m_library;
  vsa_plugin_backend m_entry;
};

}  // namespace

std::unique_ptr<Backend> make_plugin_backend(std::shared_ptr<const PluginLibrary> library,
                                             const vsa_plugin_backend& entry) {
  return std::make_unique<PluginBackend>(std::move(library), entry);
}

const PluginLibrary* plugin_of(const Backend& backend) {
  const auto* p = dynamic_cast<const PluginBackend*>(&backend);
  return p ? &p->library() : nullptr;
}

}  // namespace vsa
