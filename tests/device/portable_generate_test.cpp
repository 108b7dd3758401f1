// kernels/common input generation and poisoning on the device: generate_bf16 must
// equal the host counter generator bit for bit (the CPU reference and the GPU
// backends see the same inputs only if it does).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "device_buffers.hpp"
#include "portable_problem.hpp"
#include "vsa/device_ops.hpp"

namespace vsa::test {
namespace {

class PortableGenerate : public DeviceTest {};

struct GenerateCase {
  std::uint64_t seed;
  TensorId tensor;
  float scale;
  std::int64_t count;
};

TEST_F(PortableGenerate, DeviceMatchesHostBitwise) {
  const GenerateCase cases[] = {
      {1, TensorId::q, 1.0f, 1},
      {42, TensorId::k, 4.0f, 1'000'003},
      {0xdeadbeefcafef00dull, TensorId::v, 16.0f, 262'147},
      {7, TensorId::d_out, 1.0f, 65'536},
      {7, TensorId::aux, 0.5f, 4'099},
  };
  for (const auto& c : cases) {
    DeviceBuffer<bf16_bits> dst{std::size_t(c.count)};
    ASSERT_TRUE(ok(device::generate_bf16(dst.get(), c.count, c.seed, c.tensor, c.scale, nullptr)));
    const auto got = dst.download();
    const auto want = generate_host(c.seed, c.tensor, c.count, c.scale);
    std::int64_t mismatches = 0, first = -1;
    for (std::int64_t i = 0; i < c.count; ++i)
      if (got[std::size_t(i)] != want[std::size_t(i)] && mismatches++ == 0) first = i;
    EXPECT_EQ(mismatches, 0) << "seed " << c.seed << " count " << c.count << ", first mismatch at " << first;
  }
}

TEST_F(PortableGenerate, StreamsDiffer) {
  // Q and K of one seed must not be the same stream (tensor id is part of the counter).
  const std::int64_t n = 4096;
  DeviceBuffer<bf16_bits> q(n), k(n);
  ASSERT_TRUE(ok(device::generate_bf16(q.get(), n, 5, TensorId::q, 1.0f, nullptr)));
  ASSERT_TRUE(ok(device::generate_bf16(k.get(), n, 5, TensorId::k, 1.0f, nullptr)));
  EXPECT_NE(q.download(), k.download());
}

TEST_F(PortableGenerate, PoisonWritesThePatternEverywhere) {
  const std::int64_t n = 300'001;
  DeviceBuffer<bf16_bits> b{std::size_t(n)};
  DeviceBuffer<float> f{std::size_t(n)};
  b.fill_bytes(0);
  f.fill_bytes(0);
  ASSERT_TRUE(ok(device::poison_bf16(b.get(), n, kPoisonBf16, nullptr)));
  ASSERT_TRUE(ok(device::poison_f32(f.get(), n, kPoisonF32, nullptr)));
  const auto hb = b.download();
  const auto hf = f.download();
  std::int64_t bad_b = 0, bad_f = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    bad_b += hb[std::size_t(i)] != kPoisonBf16;
    std::uint32_t bits;
    std::memcpy(&bits, &hf[std::size_t(i)], sizeof bits);
    bad_f += bits != kPoisonF32;
  }
  EXPECT_EQ(bad_b, 0);
  EXPECT_EQ(bad_f, 0);
}

}  // namespace
}  // namespace vsa::test
