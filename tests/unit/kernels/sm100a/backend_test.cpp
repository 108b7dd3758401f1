// The sm100a-blk64 backend's answers that need no GPU: which devices and shapes it
// refuses and why (forward and backward), its compiled images, its backward workspace, and
// that kernels() reports what is known without crashing where the sm_100a image cannot load
// (no device, or a device that is not CC 10.0).
#include <gtest/gtest.h>

#include <string>

#include "vsa/registry.hpp"

namespace vsa {
namespace {

#if defined(VSA_HAVE_SM100A)

class Sm100aBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    register_sm100a_backends(m_registry);
    m_backend = m_registry.find("sm100a-blk64");
    ASSERT_NE(m_backend, nullptr);
  }
  static Shape good_shape() {
    Shape s;
    s.batch = 2;
    s.heads = 3;
    s.num_blocks = 8;
    s.head_dim = 128;
    s.block = 64;
    s.max_kv = 4;
    return s;
  }
  static DeviceInfo device(int major, int minor) {
    DeviceInfo d;
    d.ordinal = 0;
    d.name = "fake";
    d.cc_major = major;
    d.cc_minor = minor;
    return d;
  }
  Registry m_registry;
  Backend* m_backend = nullptr;
};

TEST_F(Sm100aBackend, Blk64HasForwardAndBackward) {
  EXPECT_TRUE(m_backend->has_op(Op::forward));
  EXPECT_TRUE(m_backend->has_op(Op::backward));
  EXPECT_EQ(m_backend->compiled_images(), std::vector<std::string>{"sm_100a"});
  EXPECT_NE(m_backend->description().find("UNVALIDATED"), std::string::npos);
  EXPECT_EQ(m_backend->nondeterministic_outputs(), std::vector<std::string>{"dq"});
}

TEST_F(Sm100aBackend, RefusesEveryDeviceButCc100WithAReason) {
  for (Op op : {Op::forward, Op::backward}) {
    const Support h200 = m_backend->supports(device(9, 0), good_shape(), op);
    EXPECT_FALSE(h200.ok);
    EXPECT_EQ(h200.reason, "needs compute capability 10.0 (sm_100a image); device is 9.0");
    const Support b300 = m_backend->supports(device(10, 3), good_shape(), op);
    EXPECT_FALSE(b300.ok);
    EXPECT_NE(b300.reason.find("device is 10.3"), std::string::npos) << b300.reason;
    EXPECT_FALSE(m_backend->supports(DeviceInfo{}, good_shape(), op).ok);
  }
  // A CC 10.0 device that this process cannot load the image on (none here): says which kernel.
  const Support no_image = m_backend->supports(device(10, 0), good_shape(), Op::backward);
  EXPECT_FALSE(no_image.ok);
  EXPECT_NE(no_image.reason.find("backward kernel"), std::string::npos) << no_image.reason;
}

TEST_F(Sm100aBackend, ShapeReasons) {
  for (Op op : {Op::forward, Op::backward}) {
    EXPECT_TRUE(m_backend->supports_shape(good_shape(), op).ok);
    Shape s = good_shape();
    s.block = 128;
    EXPECT_EQ(m_backend->supports_shape(s, op).reason, "needs BLK = 64, got 128");
    s = good_shape();
    s.head_dim = 64;
    EXPECT_EQ(m_backend->supports_shape(s, op).reason, "needs D = 128, got 64");
  }
  Shape s = good_shape();
  s.num_blocks = 7;
  const Support odd = m_backend->supports_shape(s, Op::forward);
  EXPECT_FALSE(odd.ok);
  EXPECT_NE(odd.reason.find("nb = 7"), std::string::npos) << odd.reason;
  EXPECT_TRUE(m_backend->supports_shape(s, Op::backward).ok) << "the backward takes one kv block per CTA: any nb";
}

// Delta | fp32 dQ accumulator | (from 1024 kv items) the longest-first order, 256-byte aligned parts.
TEST_F(Sm100aBackend, BackwardWorkspace) {
  EXPECT_EQ(m_backend->workspace_bytes(good_shape(), Op::forward), 0u);
  const Shape s = good_shape();  // 2 x 3 x 8 = 48 kv items: natural order, no order buffer
  const std::size_t rows = std::size_t(s.row_elems());
  EXPECT_EQ(m_backend->workspace_bytes(s, Op::backward), rows * 4 + rows * 128 * 4);
  Shape big = good_shape();
  big.batch = 1;
  big.heads = 16;
  big.num_blocks = 64;  // 1024 kv items: ordered
  const std::size_t big_rows = std::size_t(big.row_elems());
  EXPECT_EQ(m_backend->workspace_bytes(big, Op::backward), big_rows * 4 + big_rows * 128 * 4 + 1024 * 4);
  big.num_blocks = 63;  // 1008 kv items: not ordered
  const std::size_t below_rows = std::size_t(big.row_elems());
  EXPECT_EQ(m_backend->workspace_bytes(big, Op::backward), below_rows * 4 + below_rows * 128 * 4);
}

// On this machine the image cannot load (no Blackwell): entries keep their names and hot
// flags, resources stay 0, and no CUDA error leaks into what follows.
TEST_F(Sm100aBackend, KernelsListWithoutALoadableImage) {
  const auto kernels = m_backend->kernels();
  std::vector<std::string> names;
  int hot = 0;
  for (const auto& k : kernels) {
    names.push_back(k.name);
    hot += k.hot;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"sm100a.fwd_blk64", "sm100a.fwd_blk64_probe", "common.compute_delta",
                                             "common.order_by_count", "sm100a.bwd_blk64", "sm100a.bwd_blk64_probe",
                                             "common.postprocess_dq"}));
  EXPECT_EQ(hot, 2);
  EXPECT_TRUE(kernels[0].hot);
  EXPECT_TRUE(kernels[4].hot);
  // Release-side probes, then the read-side ones (issue 18, finding 4); the backward's
  // names start at ProbeDelays slot kFirstBwdProbeSlot = 8.
  EXPECT_EQ(m_backend->probe_points(),
            (std::vector<std::string>{"fwd.release_s", "fwd.release_p", "fwd.issue_pv", "fwd.refill_kv", "fwd.epilogue",
                                      "fwd.read_s", "fwd.read_o", "fwd.read_k", "bwd.release", "bwd.hand_over",
                                      "bwd.store", "bwd.read_st", "bwd.read_dq", "bwd.read_dkdv", "bwd.read_stat"}));
  EXPECT_TRUE(m_backend->probe_warp_masks());
}

// sm100a-blk128: the 128-token forward only; refuses the backward with a reason.
TEST_F(Sm100aBackend, Blk128IsAForwardOnlyBackend) {
  Backend* blk128 = m_registry.find("sm100a-blk128");
  ASSERT_NE(blk128, nullptr);
  EXPECT_TRUE(blk128->has_op(Op::forward));
  EXPECT_FALSE(blk128->has_op(Op::backward));
  EXPECT_NE(blk128->description().find("UNVALIDATED"), std::string::npos);
  EXPECT_EQ(blk128->compiled_images(), std::vector<std::string>{"sm_100a"});
  Shape s = good_shape();
  s.block = 128;
  s.num_blocks = 7;  // any nb: one CTA per q block
  EXPECT_TRUE(blk128->supports_shape(s, Op::forward).ok);
  const Support bwd = blk128->supports_shape(s, Op::backward);
  EXPECT_FALSE(bwd.ok);
  EXPECT_NE(bwd.reason.find("no backward"), std::string::npos) << bwd.reason;
  EXPECT_EQ(blk128->supports_shape(good_shape(), Op::forward).reason, "needs BLK = 128, got 64");
  s.head_dim = 64;
  EXPECT_EQ(blk128->supports_shape(s, Op::forward).reason, "needs D = 128, got 64");
  s.head_dim = 128;
  EXPECT_EQ(blk128->supports(device(9, 0), s, Op::forward).reason,
            "needs compute capability 10.0 (sm_100a image); device is 9.0");
  const Support no_image = blk128->supports(device(10, 0), s, Op::forward);
  EXPECT_FALSE(no_image.ok);
  EXPECT_NE(no_image.reason.find("blk128 forward kernel"), std::string::npos) << no_image.reason;
  const auto kernels = blk128->kernels();
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "sm100a.fwd_blk128");
  EXPECT_TRUE(kernels[0].hot);
  EXPECT_EQ(kernels[1].name, "sm100a.fwd_blk128_probe");
  EXPECT_EQ(blk128->probe_points().size(), 8u);
}

#else

TEST(Sm100aBackend, NotBuilt) { GTEST_SKIP() << "built without the sm100a kernels (VSA_BUILD_SM100A=OFF)"; }

#endif

}  // namespace
}  // namespace vsa
