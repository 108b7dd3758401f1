// kernels/common q2k -> k2q inversion on the device against the host reference
// (reference/inversion.cpp): identical arrays, bit for bit, on every run.
#include <gtest/gtest.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "device_buffers.hpp"
#include "event_timer.hpp"
#include "inversion.hpp"
#include "portable_problem.hpp"
#include "vsa/device_ops.hpp"

namespace vsa::test {
namespace {

class PortableInversion : public DeviceTest {};

struct InversionCase {
  int batch, heads, num_blocks, max_kv;
  bool zero_rows;
};

Shape index_shape(const InversionCase& c) {
  Shape s;
  s.batch = c.batch;
  s.heads = c.heads;
  s.num_blocks = c.num_blocks;
  s.max_kv = c.max_kv;
  return s;
}

// Runs the device inversion with the given max_q and returns (k2q_idx, k2q_num).
std::pair<std::vector<std::int32_t>, std::vector<std::int32_t>> invert_on_device(Shape s, int max_q,
                                                                                 const std::vector<std::int32_t>& idx,
                                                                                 const std::vector<std::int32_t>& num) {
  s.max_q = max_q;
  DeviceBuffer<std::int32_t> d_idx(idx), d_num(num);
  DeviceBuffer<std::int32_t> k2q_idx(std::size_t(s.k2q_idx_elems())), k2q_num(std::size_t(s.count_elems()));
  k2q_idx.fill_bytes(0x5a);  // stale contents that the kernel must overwrite, -1 fill included
  k2q_num.fill_bytes(0x5a);
  const auto status = device::invert_q2k(s, d_idx.get(), d_num.get(), k2q_idx.get(), k2q_num.get(), nullptr);
  if (!status.ok()) throw std::runtime_error(status.error);
  return {k2q_idx.download(), k2q_num.download()};
}

const InversionCase kCases[] = {
    {2, 3, 37, 9, true},        // odd nb: a partial last bitmap word
    {1, 2, 300, 40, true},      // bitmap rows of 10 words, ragged
    {1, 1, 2048, 2048, false},  // rows up to all 2048 blocks; 11 CTAs share one (b, h)
    {4, 16, 2048, 64, true},    // B*H = 64 at nb = 2048
    {3, 1, 1, 1, false},        // a single block
};

TEST_F(PortableInversion, MatchesHostReferenceBitwise) {
  for (const auto& c : kCases) {
    const Shape s = index_shape(c);
    std::vector<std::int32_t> idx, num;
    random_q2k(s, 1000 + std::uint64_t(c.num_blocks), c.zero_rows, idx, num);
    const auto ref = ref::invert_q2k(s, idx.data(), num.data());
    const auto [got_idx, got_num] = invert_on_device(s, ref.max_q, idx, num);
    EXPECT_EQ(got_num, ref.k2q_num) << "B*H=" << s.bh() << " nb=" << s.num_blocks;
    EXPECT_EQ(got_idx, ref.k2q_idx) << "B*H=" << s.bh() << " nb=" << s.num_blocks;
  }
}

TEST_F(PortableInversion, WiderRowsArePaddedWithMinusOne) {
  const Shape s = index_shape({2, 2, 45, 7, true});
  std::vector<std::int32_t> idx, num;
  random_q2k(s, 77, true, idx, num);
  const auto ref = ref::invert_q2k(s, idx.data(), num.data());
  const int wide = ref.max_q + 3;
  const auto [got_idx, got_num] = invert_on_device(s, wide, idx, num);
  ASSERT_EQ(got_num, ref.k2q_num);
  for (std::int64_t row = 0; row < s.count_elems(); ++row)
    for (int e = 0; e < wide; ++e) {
      const std::int32_t want = e < ref.max_q ? ref.k2q_idx[std::size_t(row * ref.max_q + e)] : -1;
      ASSERT_EQ(got_idx[std::size_t(row * wide + e)], want) << "row " << row << " entry " << e;
    }
}

TEST_F(PortableInversion, RowsLongerThanMaxQAreTruncatedInBounds) {
  const Shape s = index_shape({1, 1, 16, 16, false});
  std::vector<std::int32_t> idx, num;
  random_q2k(s, 5, false, idx, num);
  const auto ref = ref::invert_q2k(s, idx.data(), num.data());
  ASSERT_GT(ref.max_q, 2);
  const auto [got_idx, got_num] = invert_on_device(s, 2, idx, num);
  for (std::int64_t row = 0; row < s.count_elems(); ++row) {
    EXPECT_EQ(got_num[std::size_t(row)], std::min(2, ref.k2q_num[std::size_t(row)]));
    for (int e = 0; e < got_num[std::size_t(row)]; ++e)
      EXPECT_EQ(got_idx[std::size_t(row * 2 + e)], ref.k2q_idx[std::size_t(row * ref.max_q + e)]);
  }
}

TEST_F(PortableInversion, MaxK2qLenCountsRows) {
  for (const auto& c : kCases) {
    const Shape s = index_shape(c);
    std::vector<std::int32_t> idx, num;
    random_q2k(s, 2000 + std::uint64_t(c.num_blocks), c.zero_rows, idx, num);
    const auto ref = ref::invert_q2k(s, idx.data(), num.data());
    DeviceBuffer<std::int32_t> d_idx(idx), d_num(num), counts(std::size_t(s.count_elems())), longest(1);
    ASSERT_TRUE(ok(device::max_k2q_len(s, d_idx.get(), d_num.get(), counts.get(), longest.get(), nullptr)));
    EXPECT_EQ(counts.download(), ref.k2q_num);
    EXPECT_EQ(std::max(1, longest.download()[0]), ref.max_q);  // the reference never sizes a row below 1
  }
}

TEST_F(PortableInversion, TimingAtTheLargestRequiredShape) {
  // Not a pass/fail bound: records how long the inversion takes at nb = 2048, B*H = 64.
  const Shape s = index_shape({4, 16, 2048, 256, false});
  std::vector<std::int32_t> idx, num;
  random_q2k(s, 9, false, idx, num);
  const auto ref = ref::invert_q2k(s, idx.data(), num.data());
  Shape run = s;
  run.max_q = ref.max_q;
  DeviceBuffer<std::int32_t> d_idx(idx), d_num(num), k2q_idx(std::size_t(run.k2q_idx_elems())),
      k2q_num(std::size_t(run.count_elems()));
  ASSERT_TRUE(ok(device::invert_q2k(run, d_idx.get(), d_num.get(), k2q_idx.get(), k2q_num.get(), nullptr)));
  synchronize();
  constexpr int kIterations = 20;
  EventTimer timer;
  const float ms = timer.time_ms(nullptr, [&] {
    for (int i = 0; i < kIterations; ++i)
      if (const Status st = device::invert_q2k(run, d_idx.get(), d_num.get(), k2q_idx.get(), k2q_num.get(), nullptr);
          !st.ok())
        throw std::runtime_error(st.error);
  });
  EXPECT_EQ(k2q_idx.download(), ref.k2q_idx);
  RecordProperty("invert_q2k_ms", std::to_string(ms / kIterations));
  std::cout << "[ timing   ] invert_q2k B*H=64 nb=2048 max_kv=256 max_q=" << ref.max_q << ": " << ms / kIterations
            << " ms per call (mean of " << kIterations << ")\n";
}

}  // namespace
}  // namespace vsa::test
