#pragma once
// Block-sparsity patterns: which kv blocks each q block selects (q2k), and how
// many valid tokens each block holds (vbs). Generated on the host from the
// case's seed with the counter hash, so a case is reproducible anywhere.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "vsa/shape.hpp"

namespace vsa {

struct PatternSpec {
  // topk: k = max(1, round(density * nb)) distinct random kv blocks per q block.
  // ragged: per-row count uniform in [0, 2k] (clipped to nb): counts differ row to row.
  // dense: every kv block. video: the cubes within `window` of the q block's cube in a
  // T x H x W latent tiled by 4x4x4 cubes. explicit: `rows`, one list per q block.
  std::string kind = "topk";
  double density = 0.25;
  double zero_rows = 0.0;              // fraction of q rows forced to count 0 (any kind)
  bool sorted = true;                  // ascending ids as FastVideo gives; false shuffles each row
  std::array<int, 3> latent{0, 0, 0};  // video: latent T, H, W in tokens
  std::array<int, 3> window{1, 1, 1};  // video: radius in cubes along t, h, w
  std::vector<std::vector<int>> rows;  // explicit: same for every (b, h)
  // false lets out-of-range explicit ids through, to reproduce an illegal-address
  // fault on purpose (case field "validate": false).
  bool check_ranges = true;
};

struct VbsSpec {
  // full: every block has BLK valid tokens. random: uniform in [1, BLK].
  // video-tail: from the video latent (edge cubes of a latent that is not a
  // multiple of 4 are partly padding). explicit: `values`, one per block.
  std::string kind = "full";
  std::vector<int> values;
};

struct BlockMap {
  Shape shape;  // max_kv and max_q filled in
  std::vector<std::int32_t> q2k_idx, q2k_num, k2q_idx, k2q_num, vbs;
  std::int64_t pairs = 0;  // sum of q2k_num: the FLOP count's unit (docs/spec.md)
};

// Number of blocks a video latent gives (4x4x4 cubes), for S derivation and checks; 64-bit, as
// three ints' product of cubes overflows an int (2564 x 26801668 x 4 wrapped to 1 block).
[[nodiscard]] std::int64_t video_num_blocks(const std::array<int, 3>& latent);

// A deterministic random k-subset of [0, nb) (partial Fisher-Yates on (seed, stream)): the ids of
// one top-k row. Holds k ids, no more: make_block_map keeps one per row until it packs them.
[[nodiscard]] std::vector<int> random_subset(int nb, int k, std::uint64_t seed, std::uint64_t stream);

// Builds q2k, vbs and the deterministic k2q. Throws std::invalid_argument naming
// the bad parameter when the pattern cannot apply to the shape.
[[nodiscard]] BlockMap make_block_map(const Shape& shape, const PatternSpec& pattern, const VbsSpec& vbs,
                                      std::uint64_t seed);

}  // namespace vsa
