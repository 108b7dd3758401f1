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
#include "model/tensor_map_model.hpp"

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

}  // namespace
}  // namespace vsa::test
