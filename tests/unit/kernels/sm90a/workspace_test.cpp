// The sm90a backends' backward workspace, which needs no GPU to ask for. The deterministic
// mode keeps one 8 KiB dS^T tile per selected block pair and processes heads in chunks
// whose tiles fit its budget (kernels/sm90a/bwd_launch.cu): the workspace must hold one
// chunk's tiles, never all of a large problem's, and never less than one head's.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "vsa/registry.hpp"

namespace vsa {
namespace {

#if defined(VSA_HAVE_SM90A)

constexpr std::size_t kTileBytes = 64 * 64 * 2;
constexpr std::size_t kBudget = std::size_t(8) << 30;  // bwd_launch.cu, kDsTileBudget

Backend& backend(const char* name) {
  static Registry registry = [] {
    Registry r;
    register_sm90a_backends(r);
    return r;
  }();
  Backend* b = registry.find(name);
  if (b == nullptr) throw std::logic_error("sm90a backends are not registered");
  return *b;
}

// B = 1, H = 8, D = 128, 25% top-k at sequence length `seq` (max_q a little above the mean).
Shape topk_shape(int seq) {
  Shape s;
  s.batch = 1;
  s.heads = 8;
  s.num_blocks = seq / 64;
  s.max_kv = s.num_blocks / 4;
  s.max_q = s.max_kv + s.max_kv / 4;
  return s;
}

std::size_t tiles_of(const Shape& s, std::int64_t heads) {
  return std::size_t(heads) * std::size_t(s.num_blocks) * std::size_t(s.max_kv) * kTileBytes;
}

TEST(Sm90aWorkspace, DeterministicHoldsEveryHeadWhenAllFit) {
  const Shape s = topk_shape(4096);  // Q + dO 2 MiB a head: all 8 heads in one chunk
  const std::size_t det = backend("sm90a-det").workspace_bytes(s, Op::backward);
  EXPECT_GE(det, tiles_of(s, s.bh()));
  EXPECT_LT(det, tiles_of(s, s.bh()) + (std::size_t(64) << 20)) << "tiles plus Delta, maps and flags";
}

// Chunks also keep the kv items' Q and dO within half of L2 (50 MiB on sm_90 parts): the
// longest-first order then never spreads over more heads than L2 holds (kernels/sm90a/notes/runs.md run 17).
TEST(Sm90aWorkspace, DeterministicChunksHeadsWhoseInputsFitHalfOfL2) {
  const Shape s = topk_shape(16384);  // Q + dO 8 MiB a head: 3 heads; all tiles (1 GiB) fit the budget
  ASSERT_LT(tiles_of(s, s.bh()), kBudget);
  const std::size_t det = backend("sm90a-det").workspace_bytes(s, Op::backward);
  EXPECT_GE(det, tiles_of(s, 3));
  EXPECT_LT(det, tiles_of(s, 4));
}

TEST(Sm90aWorkspace, DeterministicChunksOneHeadAtLargeS) {
  const Shape s = topk_shape(65536);  // 2 GiB of tiles per head (budget: 4), Q + dO 32 MiB (L2: 1)
  ASSERT_GT(tiles_of(s, s.bh()), kBudget);
  const std::size_t det = backend("sm90a-det").workspace_bytes(s, Op::backward);
  EXPECT_GE(det, tiles_of(s, 1));
  EXPECT_LT(det, tiles_of(s, 2));
}

TEST(Sm90aWorkspace, DeterministicTakesOneHeadEvenAboveTheBudget) {
  Shape s = topk_shape(131072);  // 8 GiB of tiles per head: the budget exactly
  s.max_kv += 8;                 // a little above it
  ASSERT_GT(tiles_of(s, 1), kBudget);
  const std::size_t det = backend("sm90a-det").workspace_bytes(s, Op::backward);
  EXPECT_GE(det, tiles_of(s, 1));
  EXPECT_LT(det, tiles_of(s, 2));
}

TEST(Sm90aWorkspace, AtomicModeNeedsItsFp32DqTilesOnly) {
  const Shape s = topk_shape(65536);
  const std::size_t atomic = backend("sm90a").workspace_bytes(s, Op::backward);
  EXPECT_GE(atomic, std::size_t(s.tensor_elems()) * sizeof(float));
  EXPECT_LT(atomic, std::size_t(s.tensor_elems()) * sizeof(float) + (std::size_t(16) << 20));
}

#else

TEST(Sm90aWorkspace, SkippedWithoutTheFamily) { GTEST_SKIP() << "built without VSA_BUILD_SM90A"; }

#endif

}  // namespace
}  // namespace vsa
