// The shared kernels of kernels/common that the sm100a backward uses, run on any GPU
// (they are built for sm_80/90/100; issue 18, finding 7): the longest-first work order
// (order_by_count), the Delta preprocess and the dQ postprocess, each against a host
// computation. Delta and the postprocess are compared bit for bit with a host emulation of
// the kernel's own arithmetic (same fmaf order and butterfly, same rounding), and Delta also
// with an fp64 dot product.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "backward_common.hpp"
#include "device_buffers.hpp"
#include "order_by_count.hpp"
#include "portable_problem.hpp"
#include "vsa/device_ops.hpp"

namespace vsa::test {
namespace {

class CommonKernels : public DeviceTest {};

// ---- order_by_count ----------------------------------------------------------------------

// What order_by_count_desc promises (order_by_count.hpp): ids by descending clamped count
// (one bin for every count >= 4095), equal bins in natural order between chunks of 1024 ids.
// Within a chunk the order of ties is free, so the check compares each position's
// (bin, chunk) key with that of a stable host sort, and that the result is a permutation.
constexpr int kChunk = 1024;
constexpr int kTopBin = 4095;

int bin_of(int count, int max_count) { return std::clamp(count, 0, std::min(std::max(max_count, 0), kTopBin)); }

void expect_longest_first(const std::vector<std::int32_t>& counts, int max_count, const std::string& what) {
  const int n = int(counts.size());
  DeviceBuffer<std::int32_t> d_counts(counts), d_order(counts.size());
  d_order.fill_bytes(0xff);
  ASSERT_TRUE(ok(device::order_by_count_desc(d_counts.get(), n, max_count, d_order.get(), nullptr))) << what;
  const std::vector<std::int32_t> got = d_order.download();

  std::vector<std::int32_t> sorted = got;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int32_t> ids(static_cast<std::size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  ASSERT_EQ(sorted, ids) << what << ": not a permutation of the item ids";

  auto key = [&](std::int32_t id) { return std::pair{-bin_of(counts[std::size_t(id)], max_count), id / kChunk}; };
  std::vector<std::int32_t> want = ids;
  std::stable_sort(want.begin(), want.end(), [&](std::int32_t a, std::int32_t b) { return key(a) < key(b); });
  for (int k = 0; k < n; ++k)
    ASSERT_EQ(key(got[std::size_t(k)]), key(want[std::size_t(k)]))
        << what << ": position " << k << " holds id " << got[std::size_t(k)] << " (count "
        << counts[std::size_t(got[std::size_t(k)])] << "), a stable longest-first sort has id " << want[std::size_t(k)]
        << " (count " << counts[std::size_t(want[std::size_t(k)])] << ")";
}

std::vector<std::int32_t> drawn_counts(int n, int below, std::uint64_t seed) {
  IndexStream draw(seed);
  std::vector<std::int32_t> c(static_cast<std::size_t>(n));
  for (auto& x : c) x = draw.below(below);
  return c;
}

TEST_F(CommonKernels, OrderByCountSmallAndChunkEdges) {
  expect_longest_first({7}, 8, "one item");
  expect_longest_first({0, 0, 0}, 4, "all zero");
  expect_longest_first({1, 3, 2, 3, 0, 1}, 3, "ties");
  for (int n : {1023, 1024, 1025})  // one chunk, exactly one, one item into the second
    expect_longest_first(drawn_counts(n, 6, std::uint64_t(n)), 5, "n = " + std::to_string(n));
}

// The >= 1024-item path the sm100a backward takes (B*H*nb kv items): many chunks, the
// register-cached chunks (8 x 1024) and the uncached tail, heavy ties, zero counts.
TEST_F(CommonKernels, OrderByCountManyChunksWithTiesAndZeros) {
  std::vector<std::int32_t> counts = drawn_counts(10000, 4, 11);  // counts 0..3: mostly ties
  for (std::size_t i = 0; i < counts.size(); i += 7) counts[i] = 0;
  expect_longest_first(counts, 3, "10000 items, counts 0..3");
  expect_longest_first(drawn_counts(20000, 200, 12), 199, "20000 items, counts 0..199");
}

// Counts outside [0, max_count] are clamped; counts of 4095 and above share the top bin.
TEST_F(CommonKernels, OrderByCountClampsCounts) {
  std::vector<std::int32_t> counts = drawn_counts(3000, 10, 13);
  counts[5] = -4;     // bin 0
  counts[2100] = 50;  // above max_count 9: bin 9
  expect_longest_first(counts, 9, "clamped to [0, 9]");
  std::vector<std::int32_t> big = drawn_counts(3000, 9000, 14);
  big[0] = 4095;
  big[1] = 8000;
  big[2] = 4094;
  expect_longest_first(big, 9000, "top bin shared by counts >= 4095");
}

// ---- Delta preprocess --------------------------------------------------------------------

struct RowShape {
  int batch, heads, num_blocks, head_dim, block;
};

Shape shape_of(const RowShape& r) {
  Shape s;
  s.batch = r.batch;
  s.heads = r.heads;
  s.num_blocks = r.num_blocks;
  s.head_dim = r.head_dim;
  s.block = r.block;
  return s;
}

// The kernel's arithmetic on the host: lane l sums d = l, l + 32, ... with fmaf, then an
// xor butterfly (16, 8, 4, 2, 1) in which each lane adds its partner's partial.
float emulated_delta(const bf16_bits* o, const bf16_bits* d_o, int head_dim) {
  float lane[32];
  for (int l = 0; l < 32; ++l) {
    float acc = 0.0f;
    for (int d = l; d < head_dim; d += 32) acc = std::fmaf(bf16_to_float(o[d]), bf16_to_float(d_o[d]), acc);
    lane[l] = acc;
  }
  for (int m = 16; m > 0; m /= 2) {
    float next[32];
    for (int l = 0; l < 32; ++l) next[l] = lane[l] + lane[l ^ m];
    std::copy(next, next + 32, lane);
  }
  return lane[0];
}

void expect_delta(const RowShape& r, float scale) {
  const Shape s = shape_of(r);
  const std::string what = "B" + std::to_string(r.batch) + " H" + std::to_string(r.heads) + " nb" +
                           std::to_string(r.num_blocks) + " D" + std::to_string(r.head_dim) + " blk" +
                           std::to_string(r.block);
  const auto o = generate_host(21, TensorId::q, s.tensor_elems(), scale);
  const auto d_o = generate_host(21, TensorId::d_out, s.tensor_elems(), scale);
  DeviceBuffer<bf16_bits> d_out_o(o), d_out_do(d_o);
  DeviceBuffer<float> delta(std::size_t(s.row_elems()));
  ASSERT_TRUE(ok(device::poison_f32(delta.get(), std::int64_t(delta.size()), kPoisonF32, nullptr)));
  ASSERT_TRUE(ok(device::compute_delta(s, d_out_o.get(), d_out_do.get(), delta.get(), nullptr))) << what;
  const std::vector<float> got = delta.download();

  std::int64_t bit_mismatches = 0, first_bad = -1;
  for (std::int64_t row = 0; row < s.row_elems(); ++row) {
    const bf16_bits* orow = o.data() + row * s.head_dim;
    const bf16_bits* drow = d_o.data() + row * s.head_dim;
    const float want = emulated_delta(orow, drow, s.head_dim);
    const float g = got[std::size_t(row)];
    std::uint32_t gb, wb;
    std::memcpy(&gb, &g, 4);
    std::memcpy(&wb, &want, 4);
    if (gb != wb && bit_mismatches++ == 0) first_bad = row;
    double exact = 0, magnitude = 0;
    for (int d = 0; d < s.head_dim; ++d) {
      const double t = double(bf16_to_float(orow[d])) * bf16_to_float(drow[d]);
      exact += t;
      magnitude += std::abs(t);
    }
    if (!(std::abs(g - exact) <= 1e-5 * magnitude + 1e-30)) {
      ADD_FAILURE() << what << ": row " << row << " Delta " << g << ", fp64 " << exact;
      return;
    }
  }
  EXPECT_EQ(bit_mismatches, 0) << what << ": rows that differ from the host emulation, first row " << first_bad;
}

// Ragged head sizes (not multiples of 32, fewer than 32), B > 1, odd block sizes, and more
// rows than one pass of the capped grid (65536 CTAs x 8 rows), so the row loop strides.
TEST_F(CommonKernels, DeltaMatchesTheHostBitForBit) {
  for (const RowShape& r : {RowShape{1, 1, 2, 128, 64}, RowShape{2, 3, 5, 80, 64}, RowShape{1, 2, 3, 48, 48},
                            RowShape{1, 1, 3, 1, 64}, RowShape{2, 1, 7, 256, 64}, RowShape{1, 1, 4, 33, 17}})
    expect_delta(r, 4.0f);
  expect_delta({1, 9, 1024, 8, 64}, 1.0f);  // 589824 rows
}

TEST_F(CommonKernels, DeltaIsBitwiseReproducible) {
  const Shape s = shape_of({2, 4, 16, 128, 64});
  DeviceBuffer<bf16_bits> o(generate_host(3, TensorId::q, s.tensor_elems(), 16.0f)),
      d_o(generate_host(3, TensorId::d_out, s.tensor_elems(), 16.0f));
  DeviceBuffer<float> a(std::size_t(s.row_elems())), b(std::size_t(s.row_elems()));
  ASSERT_TRUE(ok(device::compute_delta(s, o.get(), d_o.get(), a.get(), nullptr)));
  ASSERT_TRUE(ok(device::compute_delta(s, o.get(), d_o.get(), b.get(), nullptr)));
  const auto ha = a.download(), hb = b.download();
  EXPECT_EQ(0, std::memcmp(ha.data(), hb.data(), ha.size() * sizeof(float)));
}

// ---- dQ postprocess ----------------------------------------------------------------------

void expect_postprocess(const RowShape& r, float scale) {
  const Shape s = shape_of(r);
  const std::int64_t n = s.tensor_elems();
  std::vector<float> accum(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    accum[std::size_t(i)] = counter_uniform(31, TensorId::aux, std::uint64_t(i)) * 64.0f;
  accum[0] = 0.0f;
  accum[std::size_t(n - 1)] = -0.0f;
  DeviceBuffer<float> d_accum(accum);
  DeviceBuffer<bf16_bits> dq(static_cast<std::size_t>(n));
  ASSERT_TRUE(ok(device::poison_bf16(dq.get(), n, kPoisonBf16, nullptr)));
  ASSERT_TRUE(ok(device::postprocess_dq(s, d_accum.get(), scale, dq.get(), nullptr)));
  const std::vector<bf16_bits> got = dq.download();
  std::int64_t mismatches = 0, first_bad = -1;
  for (std::int64_t i = 0; i < n; ++i)
    if (got[std::size_t(i)] != float_to_bf16(accum[std::size_t(i)] * scale) && mismatches++ == 0) first_bad = i;
  EXPECT_EQ(mismatches, 0) << "elements that differ from bf16(accum * scale), first " << first_bad << " of " << n;
}

// Ragged sizes (a partial last CTA) and more elements than one pass of the capped grid
// (65536 x 256), so the grid-stride loop runs a second lap.
TEST_F(CommonKernels, PostprocessDqMatchesTheHostBitForBit) {
  expect_postprocess({1, 1, 2, 128, 64}, 0.08838834764831845f);
  expect_postprocess({2, 3, 5, 80, 64}, 0.125f);
  expect_postprocess({1, 1, 3, 33, 17}, 1.0f);
  expect_postprocess({1, 2, 1300, 128, 64}, 0.08838834764831845f);  // 21.3M elements
}

}  // namespace
}  // namespace vsa::test
