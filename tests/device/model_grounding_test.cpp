// Grounds the execution model's TMA on hardware: the same 2-D box (128-byte swizzle, rows
// past the tensor zero-filled) loaded by the GPU's copy engine and by the model must leave
// the same bytes in shared memory. Hopper (sm_90a) and Blackwell (sm_100a) share this TMA.
// Skips without a GPU, and on GPUs older than compute capability 9.0.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "device_buffers.hpp"
#include "model/cta.hpp"
#include "model/grounding/tma_probe.hpp"
#include "model/grounding/wgmma_probe.hpp"
#include "model/tensor_map_model.hpp"
#include "vsa/bf16.hpp"

namespace vsa::test {
namespace {

// The model's load of the same box into a 1024-aligned box of a model CTA's shared memory.
std::vector<unsigned char> model_box(const std::vector<std::uint16_t>& matrix, std::uint64_t rows, std::uint64_t cols,
                                     std::uint32_t box_rows, int x, int y) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {cols * 2};
  const cuuint32_t box[2] = {64, box_rows}, es[2] = {1, 1};
  EXPECT_EQ(model::encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<std::uint16_t*>(matrix.data()),
                                dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            CUDA_SUCCESS);
  std::vector<unsigned char> smem(64 * 1024, 0);
  model::Scheduler sched(32, model::ScheduleOptions{1});
  model::Cta cta(sched, smem.data(), smem.size(), model::CtaPlace{0, 1, 32});
  model::set_current_cta(&cta);
  const std::uint32_t dst = (model::kSmemWindowBase + 1024 + 1023) & ~1023u, bar = model::kSmemWindowBase + 8;
  const std::uint32_t bytes = box_rows * 128;
  sched.run([&](model::FiberThread& t) {
    if (t.tid != 0) return;
    cta.mbar_init(bar, 1);
    cta.mbar_expect_tx(bar, bytes);
    cta.mbar_arrive(bar);
    cta.tma_load_2d(dst, &map, x, y, bar);
    cta.mbar_wait_parity(bar, 0);
  });
  model::set_current_cta(nullptr);
  const unsigned char* p = smem.data() + (dst - model::kSmemWindowBase);
  return {p, p + bytes};
}

class ModelGrounding : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    if (prop.major < 9) GTEST_SKIP() << "TMA needs compute capability 9.0 or newer, device is " << prop.major;
  }
};

TEST_F(ModelGrounding, TmaBoxBytesMatchTheModel) {
  const std::uint64_t rows = 100, cols = 128;
  std::vector<std::uint16_t> matrix(rows * cols);
  for (std::size_t i = 0; i < matrix.size(); ++i) matrix[i] = std::uint16_t(1 + i);  // every element distinct
  DeviceBuffer<std::uint16_t> dev(matrix);
  struct Box {
    std::uint32_t rows;
    int x, y;
  };
  for (const Box b : {Box{64, 0, 0}, Box{64, 64, 0}, Box{64, 0, 48}, Box{64, 64, 80}, Box{128, 0, 0}}) {
    std::vector<unsigned char> real;
    ASSERT_TRUE(ok(model::grounding::tma_box_on_device(dev.get(), rows, cols, b.rows, b.x, b.y, real)));
    const std::vector<unsigned char> modelled = model_box(matrix, rows, cols, b.rows, b.x, b.y);
    ASSERT_EQ(real.size(), modelled.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < real.size(); ++i) differ += real[i] != modelled[i];
    EXPECT_EQ(differ, 0u) << "box " << b.rows << " rows at (" << b.x << ", " << b.y << ")";
  }
}

// A [rows][64] bf16 tile at `base` as TMA's 128-byte swizzle lays it out (the CUDA guide's
// pattern), the layout the sm100a kernels' operands have.
void put(std::vector<unsigned char>& image, std::uint32_t base, int r, int c, float v) {
  const std::uint16_t b = float_to_bf16(v);
  std::memcpy(image.data() + base + std::uint32_t(r * 128 + (((c / 8) ^ (r % 8)) * 16) + (c % 8) * 2), &b, 2);
}

// The model's tcgen05.mma (M = 64, N = 128, one K = 16 slice) on the same image and operands.
std::vector<float> model_mma(const std::vector<unsigned char>& image, const model::grounding::WgmmaOperands& o) {
  std::vector<unsigned char> smem(image.size() + 4096, 0);
  model::Scheduler sched(32, model::ScheduleOptions{1});
  model::Cta cta(sched, smem.data(), smem.size(), model::CtaPlace{0, 1, 32});
  model::set_current_cta(&cta);
  const std::uint32_t at = (model::kSmemWindowBase + 1024 + 1023) & ~1023u, bar = model::kSmemWindowBase + 8;
  std::memcpy(smem.data() + (at - model::kSmemWindowBase), image.data(), image.size());
  auto desc = [](std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo) {
    return std::uint64_t(addr >> 4) | (std::uint64_t(lbo >> 4) << 16) | (std::uint64_t(sbo >> 4) << 32) |
           (std::uint64_t(1) << 46) | (std::uint64_t(2) << 61);
  };
  const std::uint32_t idesc =
      (1u << 4) | (1u << 7) | (1u << 10) | (std::uint32_t(o.b_mn_major) << 16) | (16u << 17) | (4u << 24);
  sched.run([&](model::FiberThread& t) {
    cta.tmem_alloc(model::kSmemWindowBase + 0, 128);
    if (t.lane == 0) {
      cta.mbar_init(bar, 1);
      cta.mma_f16_ss(0, desc(at + o.a_offset, 16, o.a_sbo), desc(at + o.b_offset, o.b_lbo, o.b_sbo), idesc, false);
      cta.mma_commit(bar);
    }
    cta.warp_meet(0xffffffffu, "__syncwarp", 0, 0);
    cta.mbar_wait_parity(bar, 0);
  });
  std::vector<float> d(64 * 128);
  for (int r = 0; r < 64; ++r)
    for (int n = 0; n < 128; ++n)
      std::memcpy(&d[std::size_t(r * 128 + n)], &cta.tmem_cell(32 * (r / 16) + r % 16, n), 4);
  model::set_current_cta(nullptr);
  return d;
}

// A [64 m][64 k] at 0, B K-major [128 n][64 k] at 8192, B MN-major [half][64 k][64 n] at
// 24576 (halves 8192 apart): distinct small integers, so every product is exact.
float a_at(int m, int k) { return float((m * 7 + k * 3) % 11) - 5.0f; }
float bk_at(int n, int k) { return float((n * 5 + k) % 7) - 3.0f; }
float bmn_at(int k, int n) { return float((k * 3 + n % 64 + 5 * (n / 64)) % 9) - 4.0f; }
std::vector<unsigned char> operand_image() {
  std::vector<unsigned char> image(40 * 1024, 0);
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 64; ++c) put(image, 0, r, c, a_at(r, c));
  for (int r = 0; r < 128; ++r)
    for (int c = 0; c < 64; ++c) put(image, 8192, r, c, bk_at(r, c));
  for (int h = 0; h < 2; ++h)
    for (int r = 0; r < 64; ++r)
      for (int c = 0; c < 64; ++c) put(image, 24576 + 8192u * std::uint32_t(h), r, c, bmn_at(r, 64 * h + c));
  return image;
}
const model::grounding::WgmmaOperands kKMajor{32, 1024, 8192 + 32, 16, 1024, false};       // K slice 1: +32 bytes
const model::grounding::WgmmaOperands kMnMajor{32, 1024, 24576 + 2048, 8192, 1024, true};  // K rows 16..31

// The model half of the comparison, checked here on any machine: its product of the image is
// the direct one (K slice 1 = columns 16..31 of A and K-major B, rows 16..31 of MN-major B).
TEST(ModelGroundingHost, ModelMmaOfTheImageIsTheDirectProduct) {
  const std::vector<unsigned char> image = operand_image();
  for (const auto& o : {kKMajor, kMnMajor}) {
    const std::vector<float> d = model_mma(image, o);
    std::size_t differ = 0;
    for (int m = 0; m < 64; ++m)
      for (int n = 0; n < 128; ++n) {
        float want = 0;
        for (int k = 0; k < 16; ++k) want += a_at(m, 16 + k) * (o.b_mn_major ? bmn_at(16 + k, n) : bk_at(n, 16 + k));
        differ += d[std::size_t(m * 128 + n)] != want;
      }
    EXPECT_EQ(differ, 0u) << (o.b_mn_major ? "MN-major B" : "K-major B");
  }
}

// Hopper's wgmma reads the canonical K-major and MN-major 128-byte-swizzle layouts the same way
// tcgen05.mma does; on the same bytes, with the kernels' strides and the 32-byte k-step inside
// a swizzle atom, the model's product must equal the hardware's (small integers: exact).
TEST_F(ModelGrounding, WgmmaCanonicalLayoutsMatchTheModel) {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  if (prop.major != 9) GTEST_SKIP() << "wgmma needs compute capability 9.0 (sm_90a), device is " << prop.major;
  const std::vector<unsigned char> image = operand_image();
  for (const auto& o : {kKMajor, kMnMajor}) {
    std::vector<float> real;
    ASSERT_TRUE(ok(model::grounding::wgmma_on_device(image, o, real)));
    const std::vector<float> modelled = model_mma(image, o);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < real.size(); ++i) differ += real[i] != modelled[i];
    EXPECT_EQ(differ, 0u) << (o.b_mn_major ? "MN-major B" : "K-major B") << ", first: real " << real[0] << " model "
                          << modelled[0];
  }
}

}  // namespace
}  // namespace vsa::test
