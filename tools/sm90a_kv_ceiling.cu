// The data-movement floor of the sm90a forward (a tool, not a test: build/tools/sm90a_kv_ceiling,
// run by scripts/device/kv_ceiling.sh). For issue 22's top-k cases (B = 1, H = 8, D = 128, S =
// 4096 / 16384 / 65536 at 25% and 12.5%) it times kv_stream_kernel.cuh, which moves only the
// forward's K/V tiles (32 KB per pair) from L2 into shared memory, in several layouts (CTAs per
// SM x stages in flight per CTA), and the forward itself (the backend's own layout choice), in
// alternating batches so all see the same clocks; with plugins named on the command line, their
// forwards too (a peer's, e.g. TK's, against the same floor in the same launches). Each case runs
// on rows in ascending order (the harness's) and shuffled. Printed per layout: the time, the K/V
// bytes per second, and the forward TFLOPS that time would be (the ceiling for 32 KB per pair);
// then each forward and its time over the fastest layout's.
//
// Checked before a number is printed: each layout's pair count and a checksum of every pair's place
// and four words of its tiles against the host's, and two query blocks of the forward against fp64.
// One more row per case, "1x7 unchecked", times the deepest layout without the checksum, against
// its checked twin: what the check itself costs (its pair count is still checked). Two more,
// "pairs 1x7" and "pairs 2x3", move the same tiles for query blocks paired by list overlap
// (kv_pair_lists.hpp, FlashInfer's window of 16): each pair's union once, so fewer bytes, the floor
// of the one route past the floor the account leaves open; checked the same way.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "kv_pair_lists.hpp"
#include "kv_stream_kernel.cuh"  // and, through sm90a_common.cuh, the tensor-map encoder
#include "plugins/plugin_registry.hpp"
#include "sm90a_forward_driver.hpp"

namespace vsa::test::sm90a {
namespace {

namespace ceiling = vsa::sm90a::ceiling;

// Asking each CTA for 228 KB / n - 1 KB (tile_config.hpp's kSmemPerSm, kSmemReservedPerCta) pins
// n CTAs per SM: n fit, n + 1 do not. The occupancy API confirms it before a layout is timed.
using vsa::sm90a::fwd::kSmemPerSm;
constexpr std::size_t kReservedPerCta = vsa::sm90a::fwd::kSmemReservedPerCta;

struct Layout {
  int ctas_per_sm, stages;
  bool checked = true;
};
// 1 x 7 is the deepest single ring; 2 x 3 is the persistent forward's (two rings of three per
// SM); 4 x 1 is the four-CTA forward's (one K and one V tile per CTA); 3 x 2 between them.
// Last, 1 x 7 without the checksum (kv_stream_kernel.cuh): what the check costs where one lane
// issues every pair of an SM. Its tiles are not checked (only its pair count), so it is printed
// against its checked twin and never taken as the floor.
constexpr Layout kLayouts[] = {{1, 7}, {1, 4}, {2, 3}, {3, 2}, {4, 1}, {1, 7, false}};
constexpr const char* kUncheckedSuffix = " unchecked";
// The layouts that move the paired lists (the two fastest single layouts in runs 63-64), and the
// pairing's window.
constexpr Layout kPairLayouts[] = {{1, 7}, {2, 3}};
static_assert(kPairLayouts[0].checked && kPairLayouts[1].checked, "a paired row is printed as checked");
constexpr int kPairWindow = 16;

// The kernel a layout runs, for the runtime's attribute and occupancy calls (the launch itself
// names the instantiation, launch_stream).
const void* stream_kernel(bool checked) {
  return checked ? reinterpret_cast<const void*>(ceiling::kv_stream_kernel<true>)
                 : reinterpret_cast<const void*>(ceiling::kv_stream_kernel<false>);
}

void prepare_stream_kernel(bool checked) {
  check_cuda(cudaFuncSetAttribute(stream_kernel(checked), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(kSmemPerSm - kReservedPerCta)),
             "kv_stream_kernel shared memory");
  check_cuda(cudaFuncSetAttribute(stream_kernel(checked), cudaFuncAttributePreferredSharedMemoryCarveout,
                                  int(cudaSharedmemCarveoutMaxShared)),
             "kv_stream_kernel carveout");  // as the forward asks (fwd_launch.cuh)
}

// The 32-bit word of columns col and col + 1 of a [rows, 128] bf16 matrix's row.
std::uint32_t word_at(const std::vector<bf16_bits>& x, std::int64_t row, int col) {
  const std::size_t at = std::size_t(row * 128 + col);
  return std::uint32_t(x[at]) | std::uint32_t(x[at + 1]) << 16;
}

// What the checksum must tell apart, at compile time: two pairs' tiles swapped between their
// places, and a pair moved twice (an XOR of words would miss both). And the second-half word's
// offset is the 128-byte swizzle of row 63, column 64 (address bits 4-6 XOR bits 7-9).
static_assert(ceiling::pair_check(3, 0, 1, 2, 3, 4) + ceiling::pair_check(3, 1, 5, 6, 7, 8) !=
              ceiling::pair_check(3, 0, 5, 6, 7, 8) + ceiling::pair_check(3, 1, 1, 2, 3, 4));
static_assert(2 * ceiling::pair_check(3, 0, 1, 2, 3, 4) != 0u);
static_assert(ceiling::kLastWord * 4 == ((8192 + 63 * 128) ^ (((8192 + 63 * 128) >> 7 & 7) << 4)));

// The items a layout streams: the problem's rows, or its rows paired (kv_pair_lists.hpp).
struct ItemLists {
  const std::vector<std::int32_t>& idx;  // [items, max_kv]
  const std::vector<std::int32_t>& num;  // [items]
  int max_kv, items_per_head;
  std::uint32_t expected = 0;  // what every checked layout's checksum must be (set once per lists)
  double pairs = 0;            // the (item, entry) pairs every layout must move
};

// The checksum the kernel must produce: pair_check of every (item, entry) the lists select, in
// place (kv_stream_kernel.cuh reads row 0's columns 0-1 and row 63's columns 64-65 of each tile).
std::uint32_t expected_checksum(const FwdProblem& p, const ItemLists& l) {
  std::uint32_t sum = 0;
  for (std::size_t item = 0; item < l.num.size(); ++item) {
    const std::int64_t head_row = std::int64_t(item / std::size_t(l.items_per_head)) * p.shape.seq();
    for (int e = 0; e < l.num[item]; ++e) {
      const std::int64_t row = head_row + std::int64_t(l.idx[item * std::size_t(l.max_kv) + std::size_t(e)]) * 64;
      sum += ceiling::pair_check(int(item), e, word_at(p.k, row, 0), word_at(p.k, row + 63, 64), word_at(p.v, row, 0),
                                 word_at(p.v, row + 63, 64));
    }
  }
  return sum;
}
double pairs_in(const std::vector<std::int32_t>& num) {
  double n = 0;
  for (const std::int32_t c : num) n += c;
  return n;
}

Status launch_stream(bool checked, int grid, std::size_t smem, cudaStream_t stream, const CUtensorMap& tm_k,
                     const CUtensorMap& tm_v, const ceiling::StreamParams& params) {
  if (params.stages < 1 || params.stages > ceiling::kMaxStages)
    return Status::failure("stages must be 1.." + std::to_string(ceiling::kMaxStages));
  if (checked)
    ceiling::kv_stream_kernel<true><<<grid, 32, smem, stream>>>(tm_k, tm_v, params);
  else
    ceiling::kv_stream_kernel<false><<<grid, 32, smem, stream>>>(tm_k, tm_v, params);
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? Status::success() : Status::failure(cudaGetErrorString(e));
}

// The forwards of other kernels, timed beside ours: every backend of the plugins named on the
// command line that has a forward (e.g. peers/fastvideo_tk's TK kernel). The libraries outlive
// their backends (members go in reverse order).
struct Peers {
  std::vector<std::shared_ptr<const PluginLibrary>> libraries;
  Registry registry;
};

// One case on one row order: the problem on the device, and the launches timed in turn (the
// floor's layouts first, then our forward, then each peer's), each checked before it joins.
// Held in one place because the launches refer to its buffers until they are timed.
class CaseRun {
 public:
  CaseRun(Backend& backend, int seq, int per_row, bool ascending)
      : seq_(seq),
        per_row_(per_row),
        ascending_(ascending),
        backend_(backend),
        problem_(driver_problem(seq, per_row, ascending)),
        in_(problem_),
        forward_(backend, problem_, in_),
        where_("S " + std::to_string(seq) + " k " + std::to_string(per_row) + " " + rows_name(ascending)) {}

  [[nodiscard]] cudaStream_t stream() const { return forward_.stream; }

  // Each layout of kLayouts on the problem's rows, then each of kPairLayouts on its rows paired by
  // overlap, once it is resident as asked and moved exactly its lists' pairs and (all but the
  // unchecked twin) the right tiles to the right places.
  void add_layouts(int sms) {
    tools::require(launches_.empty(), where_ + ": layouts are added once, first");  // pair buffers stay put
    CUtensorMap tm_k{}, tm_v{};
    const auto rows = std::uint64_t(problem_.shape.row_elems());
    tools::require(device::make_tensor_map_bf16_sw128(&tm_k, in_.k.get(), rows, 128, 64, 64), "K tensor map");
    tools::require(device::make_tensor_map_bf16_sw128(&tm_v, in_.v.get(), rows, 128, 64, 64), "V tensor map");
    const Shape& shape = problem_.shape;
    tools::require(2 * shape.max_kv < 4096 && shape.count_elems() < (1 << 19),
                   where_ + ": too large for the pair tags");
    ItemLists singles{problem_.q2k_idx, problem_.q2k_num, shape.max_kv, shape.num_blocks};
    singles.expected = expected_checksum(problem_, singles);
    singles.pairs = pairs_in(singles.num);
    for (const Layout l : kLayouts) add_stream(sms, l, singles, in_.q2k_idx.get(), in_.q2k_num.get(), tm_k, tm_v, "");
    n_layouts_ = launches_.size();

    paired_ = tools::pair_by_overlap(problem_.q2k_idx, problem_.q2k_num, int(shape.count_elems() / shape.num_blocks),
                                     shape.num_blocks, shape.max_kv, shape.num_blocks, kPairWindow);
    tools::require(paired_.error.empty(), where_ + ": " + paired_.error);
    pair_idx_ = DeviceBuffer<std::int32_t>(paired_.idx);
    pair_num_ = DeviceBuffer<std::int32_t>(paired_.num);
    ItemLists pairs{paired_.idx, paired_.num, paired_.max_kv, paired_.items_per_head};
    pairs.expected = expected_checksum(problem_, pairs);
    pairs.pairs = pairs_in(pairs.num);
    for (const Layout l : kPairLayouts)
      add_stream(sms, l, pairs, pair_idx_.get(), pair_num_.get(), tm_k, tm_v, "pairs ");
  }

  // Our forward, checked against fp64 (O and lse) first.
  void add_forward() {
    tools::require(backend_.forward(forward_.args), where_ + ": forward");
    check_cuda(cudaStreamSynchronize(stream()), "forward run");
    const std::string bad = first_last_items_error(problem_, forward_);
    tools::require(bad.empty(), where_ + " " + bad);
    add(
        "forward", [this] { return backend_.forward(forward_.args); }, Row::kForward, pairs_of(problem_));
  }

  // Each peer on its own outputs and workspace, launched on the timed stream; checked on O (its
  // lse may be in another form) before it is timed. One that cannot run the case is said.
  void add_peers(const Registry& registry) {
    for (const auto& peer : registry.all()) {
      const Support shape_ok = peer->supports_shape(problem_.shape, Op::forward);
      if (!peer->has_op(Op::forward) || peer->memory() != Memory::device || !shape_ok.ok) {
        std::printf("%s: %s not timed (%s)\n", where_.c_str(), peer->name().c_str(),
                    shape_ok.ok ? "no device forward" : shape_ok.reason.c_str());
        continue;
      }
      DriverForward& run = *peer_runs_.emplace_back(std::make_unique<DriverForward>(*peer, problem_, in_));
      run.args.stream = stream();
      tools::require(peer->forward(run.args), where_ + ": " + peer->name() + " forward");
      check_cuda(cudaStreamSynchronize(stream()), "peer forward run");
      const std::string bad = first_last_items_error(problem_, run, false);
      tools::require(bad.empty(), where_ + " " + peer->name() + " " + bad);
      add(
          peer->name(), [&run, &peer] { return peer->forward(run.args); }, Row::kForward, pairs_of(problem_));
    }
  }

  // Times every launch in turn and prints a row each; a forward's row and a paired layout's also
  // give the time over the fastest checked single layout's (a paired one its pairs over the
  // case's too), the unchecked twin's its time over its checked twin's.
  void time_and_print() const {
    // Unchecked rows find their twin in kLayouts by index: add_layouts added every one, in order.
    tools::require(n_layouts_ == std::size(kLayouts), where_ + ": not every layout was added");
    const std::vector<std::vector<float>> ms = time_launches_in_turn(launches_, stream());
    const auto median_s = [&](std::size_t l) { return ms[l][ms[l].size() / 2] * 1e-3; };
    const auto ratio = [](double x) {  // rounded to two decimals (notes quote these)
      char text[16];
      std::snprintf(text, sizeof text, "%.2f", x);
      return std::string(text);
    };
    const double pairs = pairs_of(problem_);
    const double density = double(per_row_) / (seq_ / 64);
    double best_s = 0;
    for (std::size_t l = 0; l < n_layouts_; ++l)
      if (kinds_[l] == Row::kLayout && (best_s == 0 || median_s(l) < best_s)) best_s = median_s(l);
    for (std::size_t l = 0; l < launches_.size(); ++l) {
      const double s = median_s(l);
      std::string over;
      if (kinds_[l] == Row::kForward || kinds_[l] == Row::kPaired) {
        over = "  (" + ratio(s / best_s) + "x the fastest layout";
        if (kinds_[l] == Row::kPaired) over += "; " + ratio(row_pairs_[l] / pairs) + "x its pairs";
        over += ")";
      } else if (kinds_[l] == Row::kUnchecked) {
        const std::size_t twin = checked_twin(l);
        over = "  (" + ratio(s / median_s(twin)) + "x " + names_[twin] + ")";
      }
      // Bytes per second from the pairs the row moved; TFLOPS from the problem's (what a forward
      // that took that time would reach).
      std::printf("%-6d %6.1f%% %-8s %-18s %10.0f %8.1f %8.2f %8.1f%s\n", seq_, 100 * density, rows_name(ascending_),
                  names_[l].c_str(), row_pairs_[l], s * 1e6, row_pairs_[l] * ceiling::kPairBytes / s / 1e12,
                  forward_tflops(pairs, s), over.c_str());
    }
  }

 private:
  // The checked layout of the same shape as unchecked layout l.
  static std::size_t checked_twin(std::size_t l) {
    for (std::size_t t = 0; t < std::size(kLayouts); ++t)
      if (kLayouts[t].checked && kLayouts[t].ctas_per_sm == kLayouts[l].ctas_per_sm &&
          kLayouts[t].stages == kLayouts[l].stages)
        return t;
    return l;
  }
  enum class Row { kLayout, kUnchecked, kPaired, kForward };

  // One layout on one set of lists: resident as asked, then checked (pair count; checksum unless
  // unchecked), then added.
  void add_stream(int sms, const Layout l, const ItemLists& lists, const std::int32_t* idx, const std::int32_t* num,
                  const CUtensorMap& tm_k, const CUtensorMap& tm_v, const std::string& prefix) {
    const std::size_t smem = kSmemPerSm / std::size_t(l.ctas_per_sm) - kReservedPerCta;
    const std::string name =
        prefix + std::to_string(l.ctas_per_sm) + "x" + std::to_string(l.stages) + (l.checked ? "" : kUncheckedSuffix);
    const std::string at = where_ + " layout " + name;
    tools::require(ceiling::stream_smem_bytes(l.stages) <= smem, at + ": does not fit its shared memory");
    int resident = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, stream_kernel(l.checked), 32, smem),
               "occupancy");
    tools::require(resident == l.ctas_per_sm,
                   at + ": " + std::to_string(resident) + " CTAs per SM, not " + std::to_string(l.ctas_per_sm));
    ceiling::StreamParams sp{};
    sp.q2k_idx = idx;
    sp.q2k_num = num;
    sp.n_items = int(lists.num.size());
    sp.num_blocks = problem_.shape.num_blocks;
    sp.items_per_head = lists.items_per_head;
    sp.max_kv = lists.max_kv;
    sp.stages = l.stages;
    sp.checksum = checksum_.get();
    sp.pairs_moved = moved_.get();
    const int grid = sms * l.ctas_per_sm;
    const bool checked = l.checked;
    const cudaStream_t stream = this->stream();
    auto launch = [=] { return launch_stream(checked, grid, smem, stream, tm_k, tm_v, sp); };
    checksum_.fill_bytes(0);
    moved_.fill_bytes(0);
    tools::require(launch(), at);
    check_cuda(cudaStreamSynchronize(stream), "stream run");
    const unsigned long long moved = moved_.download()[0];
    tools::require(double(moved) == lists.pairs, at + ": moved " + std::to_string(moved) + " pairs");
    tools::require(!l.checked || checksum_.download()[0] == lists.expected, at + ": wrong tiles moved");
    add(name, launch, prefix.empty() ? (l.checked ? Row::kLayout : Row::kUnchecked) : Row::kPaired, lists.pairs);
  }
  void add(std::string name, std::function<Status()> launch, Row kind, double pairs) {
    names_.push_back(std::move(name));
    launches_.push_back(std::move(launch));
    kinds_.push_back(kind);
    row_pairs_.push_back(pairs);
  }

  int seq_, per_row_;
  bool ascending_;
  Backend& backend_;
  FwdProblem problem_;
  FwdDeviceInputs in_;
  DriverForward forward_;
  std::string where_;
  tools::PairedLists paired_;
  DeviceBuffer<std::int32_t> pair_idx_, pair_num_;
  DeviceBuffer<std::uint32_t> checksum_{1};
  DeviceBuffer<unsigned long long> moved_{1};
  std::vector<std::unique_ptr<DriverForward>> peer_runs_;
  std::vector<std::function<Status()>> launches_;
  std::vector<std::string> names_;
  std::vector<Row> kinds_;
  std::vector<double> row_pairs_;  // the pairs a row moves (paired rows: the unions')
  std::size_t n_layouts_ = 0;
};

void run(const std::vector<std::string>& plugin_paths) {
  Backend& backend = sm90a_backend_or_skip();
  Peers peers;
  peers.libraries = add_plugins(peers.registry, plugin_paths);
  const int sms = sm_count();
  for (const bool checked : {true, false}) prepare_stream_kernel(checked);

  std::printf("%-6s %7s %-8s %-18s %10s %8s %8s %8s\n", "S", "density", "rows", "layout", "pairs", "us", "TB/s",
              "TFLOPS");
  struct Case {
    int seq, per_row;
  };
  for (Case c : {Case{4096, 16}, Case{4096, 8}, Case{16384, 64}, Case{16384, 32}, Case{65536, 256}, Case{65536, 128}})
    for (const bool ascending : {true, false}) {
      CaseRun run(backend, c.seq, c.per_row, ascending);
      run.add_layouts(sms);
      run.add_forward();
      run.add_peers(peers.registry);
      run.time_and_print();
    }
}

}  // namespace
}  // namespace vsa::test::sm90a

// sm90a_kv_ceiling [PLUGIN.so ...]: plugins whose forwards are timed beside ours.
int main(int argc, char** argv) {
  const std::vector<std::string> plugins(argv + 1, argv + argc);
  return vsa::tools::run_driver([&] { vsa::test::sm90a::run(plugins); });
}
