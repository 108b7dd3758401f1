// The sm100a backends. Only "sm100a-blk64" (forward) is registered: the backward and the
// 128-token forward ("sm100a-blk128") are not written yet (README.md). Dispatch only; the
// kernels live beside this file. Nothing here has run on a Blackwell GPU: the kernel is
// compiled, disassembled and protocol-checked on the build machine (NOTES.md).
#include <cstdint>
#include <memory>
#include <string>

#include "launch.hpp"
#include "vsa/registry.hpp"

namespace vsa::sm100a {
namespace {

std::string cc_text(const DeviceInfo& d) { return std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor); }

class Sm100aBlk64Backend final : public Backend {
 public:
  std::string name() const override { return "sm100a-blk64"; }
  std::string description() const override {
    return "Blackwell tcgen05/TMEM forward, 64-token blocks, one CTA per pair of q blocks "
           "(UNVALIDATED: never run on a Blackwell GPU)";
  }
  Memory memory() const override { return Memory::device; }
  bool has_op(Op op) const override { return op == Op::forward; }

  Support supports(const DeviceInfo& dev, const Shape& s, Op op) const override {
    if (op != Op::forward) return Support::no("sm100a-blk64 has no backward yet");
    if (!dev.present()) return Support::no("no CUDA device");
    if (dev.cc() != 100)
      return Support::no("needs compute capability 10.0 (sm_100a image); device is " + cc_text(dev));
    if (const Support shape = supports_shape(s, op); !shape.ok) return shape;
    // Asked only on a CC 10.0 device: there the image must load, or the build dropped it.
    if (!forward_image_loads()) return Support::no("the binary holds no loadable sm_100a image of the forward kernel");
    return Support::yes();
  }
  Support supports_shape(const Shape& s, Op op) const override {
    if (op != Op::forward) return Support::no("sm100a-blk64 has no backward yet");
    return blk64_shape_support(s);
  }

  Status forward(const ForwardArgs& a) override { return launch_forward_blk64(a); }
  Status backward(const BackwardArgs&) override { return Status::failure("sm100a-blk64 has no backward yet"); }
  std::vector<std::string> compiled_images() const override { return {"sm_100a"}; }
  std::vector<KernelInfo> kernels() const override { return forward_kernels_blk64(); }
  std::vector<std::string> probe_points() const override { return forward_probe_names(); }
};

}  // namespace

Support blk64_shape_support(const Shape& s) {
  if (s.block != kBlock) return Support::no("needs BLK = 64, got " + std::to_string(s.block));
  if (s.head_dim != kHeadDim) return Support::no("needs D = 128, got " + std::to_string(s.head_dim));
  if (s.num_blocks % 2 != 0)
    return Support::no("needs an even number of blocks (one CTA takes q blocks 2p, 2p+1), got nb = " +
                       std::to_string(s.num_blocks));
  if (s.row_elems() >= (std::int64_t(1) << 31))
    return Support::no("needs B * H * S < 2^31 rows (32-bit TMA coordinates)");
  return Support::yes();
}

}  // namespace vsa::sm100a

namespace vsa {
void register_sm100a_backends(Registry& registry) { registry.add(std::make_unique<sm100a::Sm100aBlk64Backend>()); }
}  // namespace vsa
