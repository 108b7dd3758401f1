// The sm100a backends: "sm100a-blk64" (forward and backward) and "sm100a-blk128" (the
// 128-token forward; no backward). Dispatch only; the kernels live beside this file.
// Nothing here has run on a Blackwell GPU: the kernels are compiled, disassembled and
// protocol-checked on the build machine (NOTES.md).
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
    return "Blackwell tcgen05/TMEM kernels, 64-token blocks: forward (one CTA per pair of q blocks), backward "
           "(one CTA per kv block, dQ by bulk fp32 reduce-add) (UNVALIDATED: never run on a Blackwell GPU)";
  }
  Memory memory() const override { return Memory::device; }
  bool has_op(Op op) const override { return op == Op::forward || op == Op::backward; }

  Support supports(const DeviceInfo& dev, const Shape& s, Op op) const override {
    if (!dev.present()) return Support::no("no CUDA device");
    if (dev.cc() != 100) return Support::no("needs compute capability 10.0 (sm_100a image); device is " + cc_text(dev));
    if (const Support shape = supports_shape(s, op); !shape.ok) return shape;
    // Asked only on a CC 10.0 device: there the image must load, or the build dropped it (or the
    // driver refuses it: the reason then names the CUDA error).
    if (const std::string problem = op == Op::forward ? forward_image_problem() : backward_image_problem();
        !problem.empty())
      return Support::no(problem);
    return Support::yes();
  }
  Support supports_shape(const Shape& s, Op op) const override {
    return op == Op::forward ? blk64_shape_support(s) : blk64_backward_shape_support(s);
  }
  std::size_t workspace_bytes(const Shape& s, Op op) const override {
    return op == Op::backward ? backward_workspace_bytes_blk64(s) : 0;
  }
  // dQ partials are reduce-added in whatever order the CTAs finish.
  std::vector<std::string> nondeterministic_outputs() const override { return {"dq"}; }

  Status forward(const ForwardArgs& a) override { return launch_forward_blk64(a); }
  Status backward(const BackwardArgs& a) override { return launch_backward_blk64(a); }
  std::vector<std::string> compiled_images() const override { return {"sm_100a"}; }
  std::vector<KernelInfo> kernels() const override {
    auto all = forward_kernels_blk64();
    for (auto& k : backward_kernels_blk64()) all.push_back(std::move(k));
    return all;
  }
  bool probe_warp_masks() const override { return true; }
  std::vector<std::string> probe_points() const override {
    auto names = forward_probe_names();
    for (auto& n : backward_probe_names()) names.push_back(std::move(n));
    return names;
  }
};

class Sm100aBlk128Backend final : public Backend {
 public:
  std::string name() const override { return "sm100a-blk128"; }
  std::string description() const override {
    return "Blackwell tcgen05/TMEM forward, 128-token blocks, one CTA per q block (M = 128 MMAs) "
           "(UNVALIDATED: never run on a Blackwell GPU)";
  }
  Memory memory() const override { return Memory::device; }
  bool has_op(Op op) const override { return op == Op::forward; }

  Support supports(const DeviceInfo& dev, const Shape& s, Op op) const override {
    if (op != Op::forward) return Support::no(kNoBackward);
    if (!dev.present()) return Support::no("no CUDA device");
    if (dev.cc() != 100) return Support::no("needs compute capability 10.0 (sm_100a image); device is " + cc_text(dev));
    if (const Support shape = supports_shape(s, op); !shape.ok) return shape;
    if (const std::string problem = forward_blk128_image_problem(); !problem.empty()) return Support::no(problem);
    return Support::yes();
  }
  Support supports_shape(const Shape& s, Op op) const override {
    if (op != Op::forward) return Support::no(kNoBackward);
    return blk128_shape_support(s);
  }

  Status forward(const ForwardArgs& a) override { return launch_forward_blk128(a); }
  Status backward(const BackwardArgs&) override { return Status::failure(kNoBackward); }
  std::vector<std::string> compiled_images() const override { return {"sm_100a"}; }
  std::vector<KernelInfo> kernels() const override { return forward_kernels_blk128(); }
  // Same hand-offs and slots as the blk64 forward (one fwd::Params for both block sizes).
  std::vector<std::string> probe_points() const override { return forward_probe_names(); }
  bool probe_warp_masks() const override { return true; }

 private:
  static constexpr const char* kNoBackward = "sm100a-blk128 has no backward (issue 6 asks for a 128-token forward)";
};

Support blk64_common_shape_support(const Shape& s) {
  if (s.block != kBlock) return Support::no("needs BLK = 64, got " + std::to_string(s.block));
  if (s.head_dim != kHeadDim) return Support::no("needs D = 128, got " + std::to_string(s.head_dim));
  if (s.row_elems() >= (std::int64_t(1) << 31))
    return Support::no("needs B * H * S < 2^31 rows (32-bit TMA coordinates)");
  return Support::yes();
}

}  // namespace

Support blk64_shape_support(const Shape& s) {
  if (const Support common = blk64_common_shape_support(s); !common.ok) return common;
  if (s.num_blocks % 2 != 0)
    return Support::no("needs an even number of blocks (one CTA takes q blocks 2p, 2p+1), got nb = " +
                       std::to_string(s.num_blocks));
  return Support::yes();
}

Support blk64_backward_shape_support(const Shape& s) { return blk64_common_shape_support(s); }

Support blk128_shape_support(const Shape& s) {
  if (s.block != kBlock128) return Support::no("needs BLK = 128, got " + std::to_string(s.block));
  if (s.head_dim != kHeadDim) return Support::no("needs D = 128, got " + std::to_string(s.head_dim));
  if (s.row_elems() >= (std::int64_t(1) << 31))
    return Support::no("needs B * H * S < 2^31 rows (32-bit TMA coordinates)");
  return Support::yes();
}

}  // namespace vsa::sm100a

namespace vsa {
void register_sm100a_backends(Registry& registry) {
  registry.add(std::make_unique<sm100a::Sm100aBlk64Backend>());
  registry.add(std::make_unique<sm100a::Sm100aBlk128Backend>());
}
}  // namespace vsa
