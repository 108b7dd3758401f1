// The sm100a-blk64 backend's answers that need no GPU: which devices and shapes it
// refuses and why, its compiled images, and that kernels() reports what is known without
// crashing where the sm_100a image cannot load (no device, or a device that is not CC 10.0).
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

TEST_F(Sm100aBackend, OnlyBlk64ForwardIsRegistered) {
  EXPECT_EQ(m_registry.find("sm100a-blk128"), nullptr) << "blk128 is not written: it must not be registered";
  EXPECT_TRUE(m_backend->has_op(Op::forward));
  EXPECT_FALSE(m_backend->has_op(Op::backward));
  EXPECT_EQ(m_backend->compiled_images(), std::vector<std::string>{"sm_100a"});
  EXPECT_NE(m_backend->description().find("UNVALIDATED"), std::string::npos);
}

TEST_F(Sm100aBackend, RefusesEveryDeviceButCc100WithAReason) {
  const Support h200 = m_backend->supports(device(9, 0), good_shape(), Op::forward);
  EXPECT_FALSE(h200.ok);
  EXPECT_EQ(h200.reason, "needs compute capability 10.0 (sm_100a image); device is 9.0");
  const Support b300 = m_backend->supports(device(10, 3), good_shape(), Op::forward);
  EXPECT_FALSE(b300.ok);
  EXPECT_NE(b300.reason.find("device is 10.3"), std::string::npos) << b300.reason;
  EXPECT_FALSE(m_backend->supports(DeviceInfo{}, good_shape(), Op::forward).ok);
  EXPECT_FALSE(m_backend->supports(device(10, 0), good_shape(), Op::backward).ok);
}

TEST_F(Sm100aBackend, ShapeReasons) {
  EXPECT_TRUE(m_backend->supports_shape(good_shape(), Op::forward).ok);
  Shape s = good_shape();
  s.block = 128;
  EXPECT_EQ(m_backend->supports_shape(s, Op::forward).reason, "needs BLK = 64, got 128");
  s = good_shape();
  s.head_dim = 64;
  EXPECT_EQ(m_backend->supports_shape(s, Op::forward).reason, "needs D = 128, got 64");
  s = good_shape();
  s.num_blocks = 7;
  const Support odd = m_backend->supports_shape(s, Op::forward);
  EXPECT_FALSE(odd.ok);
  EXPECT_NE(odd.reason.find("nb = 7"), std::string::npos) << odd.reason;
  EXPECT_FALSE(m_backend->supports_shape(good_shape(), Op::backward).ok);
}

// On this machine the image cannot load (no Blackwell): entries keep their names and hot
// flags, resources stay 0, and no CUDA error leaks into what follows.
TEST_F(Sm100aBackend, KernelsListWithoutALoadableImage) {
  const auto kernels = m_backend->kernels();
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "sm100a.fwd_blk64");
  EXPECT_TRUE(kernels[0].hot);
  EXPECT_EQ(kernels[1].name, "sm100a.fwd_blk64_probe");
  EXPECT_FALSE(kernels[1].hot);
  EXPECT_EQ(m_backend->probe_points().size(), 5u);
}

#else

TEST(Sm100aBackend, NotBuilt) { GTEST_SKIP() << "built without the sm100a kernels (VSA_BUILD_SM100A=OFF)"; }

#endif

}  // namespace
}  // namespace vsa
