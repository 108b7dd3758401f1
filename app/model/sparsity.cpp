#include "model/sparsity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "inversion.hpp"
#include "vsa/counter_rng.hpp"

namespace vsa {
namespace {

constexpr int kCube = 4;  // a 64-token block is a 4x4x4 cube of the latent

// Deterministic uniform integer in [0, n) from (seed, stream, counter).
int pick(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter, int n) {
  return int(counter_hash(seed, TensorId::aux, (stream << 32) ^ counter) % std::uint64_t(n));
}

// In 64 bits where a sum or product of latent sizes could pass INT_MAX (fuzz review, 2026-12-07:
// a latent near INT_MAX wrapped here, and the error named a wrong cube count).
int cubes(int tokens) { return int((std::int64_t(tokens) + kCube - 1) / kCube); }

std::array<int, 3> cube_coord(int block, const std::array<int, 3>& latent) {
  const std::int64_t ch = cubes(latent[1]), cw = cubes(latent[2]);
  return {int(block / (ch * cw)), int((block / cw) % ch), int(block % cw)};
}

std::vector<int> video_neighbours(int qb, const PatternSpec& p) {
  const auto c = cube_coord(qb, p.latent);
  const std::array<int, 3> n{cubes(p.latent[0]), cubes(p.latent[1]), cubes(p.latent[2])};
  // A window wider than the grid is the grid: clamped first, as c + window overflowed for a window
  // near INT_MAX and those rows selected nothing, a case that checked nothing and passed.
  const std::array<int, 3> r{std::min(p.window[0], n[0]), std::min(p.window[1], n[1]), std::min(p.window[2], n[2])};
  std::vector<int> ids;
  for (int t = std::max(0, c[0] - r[0]); t <= std::min(n[0] - 1, c[0] + r[0]); ++t)
    for (int h = std::max(0, c[1] - r[1]); h <= std::min(n[1] - 1, c[1] + r[1]); ++h)
      for (int w = std::max(0, c[2] - r[2]); w <= std::min(n[2] - 1, c[2] + r[2]); ++w)
        ids.push_back((t * n[1] + h) * n[2] + w);
  return ids;
}

std::vector<int> row_selection(const Shape& s, const PatternSpec& p, std::uint64_t seed, std::int64_t bh, int qb) {
  const int nb = s.num_blocks;
  const std::uint64_t stream = std::uint64_t(bh) * std::uint64_t(nb) + std::uint64_t(qb);
  if (p.zero_rows > 0 && double(pick(seed, stream, 0xfffffffeull, 1 << 20)) < p.zero_rows * double(1 << 20)) return {};
  const int k = std::clamp(int(std::lround(p.density * nb)), 1, nb);
  if (p.kind == "topk") return random_subset(nb, k, seed, stream);
  if (p.kind == "ragged")
    return random_subset(nb, std::min(nb, pick(seed, stream, 0xffffffffull, 2 * k + 1)), seed, stream);
  if (p.kind == "dense") return random_subset(nb, nb, seed, stream);
  if (p.kind == "video") return video_neighbours(qb, p);
  if (p.kind == "explicit") return p.rows[std::size_t(qb)];
  throw std::invalid_argument("pattern.kind: unknown kind '" + p.kind + "'");
}

void check_pattern(const Shape& s, const PatternSpec& p) {
  if (p.kind == "topk" || p.kind == "ragged") {
    if (!(p.density > 0.0 && p.density <= 1.0))
      throw std::invalid_argument("pattern.density: must be in (0, 1], got " + std::to_string(p.density));
  }
  if (!(p.zero_rows >= 0.0 && p.zero_rows <= 1.0))
    throw std::invalid_argument("pattern.zero_rows: must be in [0, 1], got " + std::to_string(p.zero_rows));
  if (p.kind == "video") {
    if (s.block != 64) throw std::invalid_argument("pattern.kind: video cubes are 4x4x4 = 64 tokens; BLK must be 64");
    // A negative radius selects no cube at all: every case would pass, having checked nothing.
    for (const int w : p.window)
      if (w < 0)
        throw std::invalid_argument("pattern.window: must be >= 0 cubes along each of t, h, w, got [" +
                                    std::to_string(p.window[0]) + ", " + std::to_string(p.window[1]) + ", " +
                                    std::to_string(p.window[2]) + "]");
    if (video_num_blocks(p.latent) != s.num_blocks)
      throw std::invalid_argument("pattern.latent: gives " + std::to_string(video_num_blocks(p.latent)) +
                                  " blocks but S / BLK = " + std::to_string(s.num_blocks));
  }
  if (p.kind == "explicit") {
    if (int(p.rows.size()) != s.num_blocks)
      throw std::invalid_argument("pattern.rows: needs one list per q block (" + std::to_string(s.num_blocks) +
                                  "), got " + std::to_string(p.rows.size()));
    for (std::size_t i = 0; i < p.rows.size() && p.check_ranges; ++i) {
      std::vector<int> row = p.rows[i];
      for (std::size_t j = 0; j < row.size(); ++j)
        if (row[j] < 0 || row[j] >= s.num_blocks)
          throw std::invalid_argument("pattern.rows[" + std::to_string(i) + "][" + std::to_string(j) + "]: kv block " +
                                      std::to_string(row[j]) + " out of range [0, " + std::to_string(s.num_blocks) +
                                      ")");
      std::sort(row.begin(), row.end());
      if (std::adjacent_find(row.begin(), row.end()) != row.end())
        throw std::invalid_argument("pattern.rows[" + std::to_string(i) + "]: ids must be distinct");
    }
  }
}

std::vector<std::int32_t> make_vbs(const Shape& s, const PatternSpec& p, const VbsSpec& v, std::uint64_t seed) {
  std::vector<std::int32_t> vbs(std::size_t(s.num_blocks), s.block);
  if (v.kind == "full") return vbs;
  if (v.kind == "random") {
    for (int b = 0; b < s.num_blocks; ++b) vbs[std::size_t(b)] = 1 + pick(seed, 0xabcdefull, std::uint64_t(b), s.block);
    return vbs;
  }
  if (v.kind == "video-tail") {
    if (p.kind != "video") throw std::invalid_argument("vbs.kind: video-tail needs pattern.kind = video (the latent)");
    for (int b = 0; b < s.num_blocks; ++b) {
      const auto c = cube_coord(b, p.latent);
      int n = 1;
      for (int a = 0; a < 3; ++a) n *= std::min(kCube, p.latent[std::size_t(a)] - kCube * c[std::size_t(a)]);
      vbs[std::size_t(b)] = n;
    }
    return vbs;
  }
  if (v.kind == "explicit") {
    if (int(v.values.size()) != s.num_blocks)
      throw std::invalid_argument("vbs.values: needs one value per block (" + std::to_string(s.num_blocks) + "), got " +
                                  std::to_string(v.values.size()));
    for (std::size_t b = 0; b < v.values.size(); ++b) {
      if (v.values[b] < 1 || v.values[b] > s.block)
        throw std::invalid_argument("vbs.values[" + std::to_string(b) + "]: must be in [1, " + std::to_string(s.block) +
                                    "], got " + std::to_string(v.values[b]));
      vbs[b] = v.values[b];
    }
    return vbs;
  }
  throw std::invalid_argument("vbs.kind: unknown kind '" + v.kind + "' (full, random, video-tail, explicit)");
}

}  // namespace

std::vector<int> random_subset(int nb, int k, std::uint64_t seed, std::uint64_t stream) {
  std::vector<int> ids(static_cast<std::size_t>(nb));
  std::iota(ids.begin(), ids.end(), 0);
  for (int i = 0; i < k; ++i)
    std::swap(ids[std::size_t(i)], ids[std::size_t(i + pick(seed, stream, std::uint64_t(i), nb - i))]);
  // A copy of the first k, not resize(k): that keeps the capacity of nb, and a case stores one
  // subset per row (nb^2 ints: 6.4 GB at S = 2,560,000 for 16 ids a row).
  return std::vector<int>(ids.begin(), ids.begin() + k);
}

std::int64_t video_num_blocks(const std::array<int, 3>& latent) {
  for (int x : latent)
    if (x <= 0) return 0;
  // Each factor is below 2^29, so two fit in 64 bits; the third may not (7.3e18 wrapped and passed
  // as a latent of 2 blocks): saturated, so the check against num_blocks refuses it.
  const std::int64_t depth = cubes(latent[0]), plane = std::int64_t(cubes(latent[1])) * cubes(latent[2]);
  if (plane > std::numeric_limits<std::int64_t>::max() / depth) return std::numeric_limits<std::int64_t>::max();
  return plane * depth;
}

BlockMap make_block_map(const Shape& shape, const PatternSpec& pattern, const VbsSpec& vbs_spec, std::uint64_t seed) {
  check_pattern(shape, pattern);
  BlockMap map;
  map.shape = shape;
  const int nb = shape.num_blocks;
  std::vector<std::vector<int>> rows(std::size_t(shape.count_elems()));
  int max_kv = 1;
  for (std::int64_t bh = 0; bh < shape.bh(); ++bh)
    for (int qb = 0; qb < nb; ++qb) {
      auto row = row_selection(shape, pattern, seed, bh, qb);
      if (pattern.sorted) {
        std::sort(row.begin(), row.end());
      } else {
        // Reverse-ish shuffle so kernels cannot lean on ascending order.
        for (std::size_t i = row.size(); i > 1; --i)
          std::swap(row[i - 1], row[std::size_t(pick(seed, 0x5eedull + std::uint64_t(bh * nb + qb), i, int(i)))]);
      }
      max_kv = std::max(max_kv, int(row.size()));
      rows[std::size_t(bh * nb + qb)] = std::move(row);
    }
  map.shape.max_kv = max_kv;
  map.q2k_idx.assign(std::size_t(map.shape.q2k_idx_elems()), -1);
  map.q2k_num.assign(std::size_t(shape.count_elems()), 0);
  std::vector<bool> selected(std::size_t(nb), false);  // one row's marks, cleared after it: O(pairs) in all
  for (std::size_t r = 0; r < rows.size(); ++r) {
    map.q2k_num[r] = std::int32_t(rows[r].size());
    map.pairs += std::int64_t(rows[r].size());
    const auto row_start = map.q2k_idx.begin() + std::ptrdiff_t(r * std::size_t(max_kv));
    std::copy(rows[r].begin(), rows[r].end(), row_start);
    // The padding after a row's count "may be anything" (docs/spec.md): it gets block ids the row
    // did not select, so a kernel that reads one entry too many attends to a real block and
    // gives a wrong answer, where a -1 would read as "no block" and often pass (review of
    // 2026-12-06: an off-by-one loop bound in the sm100a forward passed on the model).
    for (const int kv : rows[r])
      if (kv >= 0 && kv < nb) selected[std::size_t(kv)] = true;  // "validate": false lets bad ids through
    int next = 0;
    for (std::size_t j = rows[r].size(); j < std::size_t(max_kv); ++j) {
      while (next < nb && selected[std::size_t(next)]) ++next;
      *(row_start + std::ptrdiff_t(j)) = next < nb ? next++ : -1;  // fewer unselected blocks than padding
    }
    for (const int kv : rows[r])
      if (kv >= 0 && kv < nb) selected[std::size_t(kv)] = false;
  }
  map.vbs = make_vbs(shape, pattern, vbs_spec, seed);
  auto inverted = ref::invert_q2k(map.shape, map.q2k_idx.data(), map.q2k_num.data());
  map.shape.max_q = inverted.max_q;
  map.k2q_idx = std::move(inverted.k2q_idx);
  map.k2q_num = std::move(inverted.k2q_num);
  return map;
}

}  // namespace vsa
