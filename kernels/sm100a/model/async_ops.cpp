// The asynchronous agents of the model CTA: the tensor core (tcgen05.mma, tcgen05.commit)
// and the bulk-copy engine (cp.async.bulk.tensor, cp.async.bulk, cp.reduce.async.bulk).
// Issue validates and queues; the work itself happens when the scheduler completes the op.
#include <algorithm>
#include <cstring>
#include <sstream>

#include "cta.hpp"
#include "descriptors.hpp"
#include "tensor_map_model.hpp"
#include "vsa/bf16.hpp"

namespace vsa::model {

namespace {
float bf16_to_float(std::uint16_t b) {
  const std::uint32_t u = std::uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
// tcgen05 ops of one issuing thread complete in issue order (9.7.16.6 "pipelined"
// instructions): one order key per thread.
int tensor_pipe(int tid) { return 1000 + tid; }
}  // namespace

// ---- tcgen05.mma.cta_group::1.kind::f16 (9.7.16.10.9) ----------------------------------------

void Cta::mma_f16_ss(std::uint32_t d_tmem, std::uint64_t a_desc, std::uint64_t b_desc, std::uint32_t idesc,
                     bool accumulate) {
  const InstrDescriptor id = decode_instr_descriptor_f16(idesc);
  const SmemDescriptor a = decode_smem_descriptor(a_desc);
  const SmemDescriptor b = decode_smem_descriptor(b_desc);
  const int lane_base = int(d_tmem >> 16);
  const int col = int(d_tmem & 0xFFFFu);
  // Layout D / F bounds and the operands' shared-memory footprint, checked at issue so the
  // error names the issuing thread.
  const int last_lane = d_row_lane(id.m, lane_base, id.m - 1);
  (void)last_lane;
  for (int w = 0; w < id.m / 32 || (id.m == 64 && w < 4); ++w) {
    const int rows = id.m == 128 ? 32 : 16;
    const int lane0 = id.m == 128 ? 32 * w : 32 * w + lane_base;
    check_tmem_range(lane0, rows, col, id.n, "tcgen05.mma D");
  }
  for (int mn = 0; mn < std::max(id.m, id.n); ++mn)
    for (int k = 0; k < 16; ++k) {
      if (mn < id.m) (void)smem_at(operand_element_address(a, id.a_mn_major, mn, k), 2, "tcgen05.mma A operand");
      if (mn < id.n) (void)smem_at(operand_element_address(b, id.b_mn_major, mn, k), 2, "tcgen05.mma B operand");
    }
  std::ostringstream what;
  what << "tcgen05.mma M" << id.m << " N" << id.n << " D lane " << lane_base << " col " << col << " A{" << describe(a)
       << (id.a_mn_major ? " MN" : " K") << "} B{" << describe(b) << (id.b_mn_major ? " MN" : " K") << "}";
  const int tid = me().tid;
  const char* op = me().op;
  // Tensor Memory under the tcgen05 view (the fences); the shared-memory operands under the
  // thread's generic view as well (race_detector.hpp says why). One tensor-pipe epoch for both.
  const VectorClock vc = m_race.issue_tensor(tid);
  VectorClock smem_vc = vc;
  join(smem_vc, m_race.thread_clock(tid));
  m_sched.post({tensor_pipe(tid),
                [this, id, a, b, lane_base, col, accumulate, tid, vc, smem_vc, op] {
                  const std::uint32_t agent = m_race.tensor_agent(tid);
                  float av[128][16], bv[256][16];
                  for (int mn = 0; mn < std::max(id.m, id.n); ++mn)
                    for (int k = 0; k < 16; ++k) {
                      std::uint16_t x;
                      if (mn < id.m) {
                        const std::uint32_t ea = operand_element_address(a, id.a_mn_major, mn, k);
                        std::memcpy(&x, smem_at(ea, 2, "A"), 2);
                        m_race.access(Space::smem, ea, 2, false, Access::mma_read_a, tid, agent, smem_vc, op);
                        av[mn][k] = bf16_to_float(x);
                      }
                      if (mn < id.n) {
                        const std::uint32_t eb = operand_element_address(b, id.b_mn_major, mn, k);
                        std::memcpy(&x, smem_at(eb, 2, "B"), 2);
                        m_race.access(Space::smem, eb, 2, false, Access::mma_read_b, tid, agent, smem_vc, op);
                        bv[mn][k] = bf16_to_float(x);
                      }
                    }
                  for (int r = 0; r < id.m; ++r) {
                    const int lane = d_row_lane(id.m, lane_base, r);
                    m_race.access(Space::tmem, std::uint32_t(lane * kTmemColumns + col), std::uint32_t(id.n), true,
                                  Access::mma_write_d, tid, agent, vc, op);
                    for (int n = 0; n < id.n; ++n) {
                      std::uint32_t& cell = tmem_cell(lane, col + n);
                      float acc = 0.0f;
                      if (accumulate) std::memcpy(&acc, &cell, 4);
                      for (int k = 0; k < 16; ++k) acc += av[r][k] * bv[n][k];
                      std::memcpy(&cell, &acc, 4);
                    }
                  }
                },
                what.str()});
  m_sched.yield();
}

// 9.7.16.12 tcgen05.commit.cta_group::1.mbarrier::arrive::one: one arrival on the mbarrier
// once every earlier async tcgen05 op of this thread has completed.
void Cta::mma_commit(std::uint32_t bar_addr) {
  (void)mbar(bar_addr, "tcgen05.commit");
  const VectorClock vc = m_race.issue_tensor(me().tid);
  m_sched.post({tensor_pipe(me().tid), [this, bar_addr, vc] { mbar_arrive(bar_addr, 1, &vc); },
                "tcgen05.commit -> " + barrier_name(bar_addr)});
  m_sched.yield();
}

// ---- bulk copies (9.7.9.25) ------------------------------------------------------------------

std::uint64_t Cta::post_bulk(std::function<void(const VectorClock&)> work, std::string what) {
  const std::uint64_t id = m_next_bulk++;
  const int tid = me().tid;
  m_bulk_running.push_back(id);
  m_bulk[std::size_t(tid)].uncommitted_ids.push_back(id);
  VectorClock vc = m_race.issue(tid, m_race.copy_agent(tid));
  m_sched.post({-1,
                [this, id, work = std::move(work), vc = std::move(vc)] {
                  work(vc);
                  m_bulk_done[id] = vc;
                  m_bulk_running.erase(std::find(m_bulk_running.begin(), m_bulk_running.end(), id));
                },
                std::move(what)});
  m_sched.yield();
  return id;
}

namespace {
const unsigned char* global_element(const TensorMapRecord& m, std::uint64_t x, std::uint64_t y) {
  return static_cast<const unsigned char*>(m.base) + y * m.stride[0] + x * m.elem_bytes;
}
bool in_bounds(const TensorMapRecord& m, long long x, long long y) {
  return x >= 0 && y >= 0 && std::uint64_t(x) < m.dims[0] && std::uint64_t(y) < m.dims[1];
}
// Shared-memory address of box element (row r, column c): rows of box[0] elements back to
// back, then the map's swizzle on the absolute address (CUDA programming guide, "TMA
// swizzle"; the same XOR as the MMA's canonical layouts).
std::uint32_t box_address(const TensorMapRecord& m, std::uint32_t dst, std::uint32_t r, std::uint32_t c) {
  const std::uint32_t a = dst + (r * m.box[0] + c) * m.elem_bytes;
  return m.swizzle == CU_TENSOR_MAP_SWIZZLE_128B ? swizzle128(a) : a;
}
std::uint32_t box_bytes(const TensorMapRecord& m) { return m.box[0] * m.box[1] * m.elem_bytes; }
void check_box_dst(const TensorMapRecord& m, std::uint32_t addr, const char* what) {
  // 9.7.9.25.5.1: the shared-memory box address is 128-byte aligned; with SWIZZLE_128B the
  // pattern repeats every 1024 bytes and the model requires the box to start on one.
  const std::uint32_t need = m.swizzle == CU_TENSOR_MAP_SWIZZLE_128B ? 1024 : 128;
  if (addr % need != 0)
    throw ModelError(std::string(what) + ": shared-memory box address 0x" +
                     [&] {
                       std::ostringstream os;
                       os << std::hex << addr;
                       return os.str();
                     }() +
                     " not " + std::to_string(need) + "-byte aligned");
}
}  // namespace

// cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: the box
// at (x, y) into shared memory; elements outside the tensor are zero (OOB fill NONE fills
// zeros); the whole box's bytes complete the transaction count of `bar`.
void Cta::tma_load_2d(std::uint32_t dst, const void* map, int x, int y, std::uint32_t bar) {
  const TensorMapRecord m = tensor_map_record(map);
  check_box_dst(m, dst, "cp.async.bulk.tensor load");
  (void)smem_at(dst, box_bytes(m), "cp.async.bulk.tensor load");
  (void)mbar(bar, "cp.async.bulk.tensor load");
  const int tid = me().tid;
  const char* op = me().op;
  post_bulk_untracked(
      [this, m, dst, x, y, bar, tid, op](const VectorClock& vc) {
        m_race.access(Space::smem, dst, box_bytes(m), true, Access::tma_load, tid, m_race.copy_agent(tid), vc, op);
        for (std::uint32_t r = 0; r < m.box[1]; ++r)
          for (std::uint32_t c = 0; c < m.box[0]; ++c) {
            unsigned char* s = smem_at(box_address(m, dst, r, c), m.elem_bytes, "TMA load");
            const long long gx = (long long)x + c, gy = (long long)y + r;
            if (in_bounds(m, gx, gy))
              std::memcpy(s, global_element(m, std::uint64_t(gx), std::uint64_t(gy)), m.elem_bytes);
            else
              std::memset(s, 0, m.elem_bytes);
          }
        mbar_complete_tx(bar, box_bytes(m), vc);
      },
      "cp.async.bulk.tensor.2d load -> " + barrier_name(bar));
}

// cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group: elements outside the tensor
// are not written.
void Cta::tma_store_2d(const void* map, int x, int y, std::uint32_t src) {
  const TensorMapRecord m = tensor_map_record(map);
  check_box_dst(m, src, "cp.async.bulk.tensor store");
  (void)smem_at(src, box_bytes(m), "cp.async.bulk.tensor store");
  const int tid = me().tid;
  const char* op = me().op;
  post_bulk(
      [this, m, src, x, y, tid, op](const VectorClock& vc) {
        m_race.access(Space::smem, src, box_bytes(m), false, Access::tma_store, tid, m_race.copy_agent(tid), vc, op);
        for (std::uint32_t r = 0; r < m.box[1]; ++r)
          for (std::uint32_t c = 0; c < m.box[0]; ++c) {
            const long long gx = (long long)x + c, gy = (long long)y + r;
            if (!in_bounds(m, gx, gy)) continue;
            const unsigned char* s = smem_at(box_address(m, src, r, c), m.elem_bytes, "TMA store");
            std::memcpy(const_cast<unsigned char*>(global_element(m, std::uint64_t(gx), std::uint64_t(gy))), s,
                        m.elem_bytes);
          }
      },
      "cp.async.bulk.tensor.2d store");
}

// 9.7.9.25.4.1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes: size a
// multiple of 16, both addresses 16-byte aligned.
void Cta::bulk_load(std::uint32_t dst, const void* src, std::uint32_t bytes, std::uint32_t bar) {
  if (bytes % 16 != 0 || dst % 16 != 0 || reinterpret_cast<std::uintptr_t>(src) % 16 != 0)
    throw ModelError("cp.async.bulk: size " + std::to_string(bytes) + " and both addresses must be multiples of 16");
  (void)smem_at(dst, bytes, "cp.async.bulk");
  (void)mbar(bar, "cp.async.bulk");
  const int tid = me().tid;
  const char* op = me().op;
  post_bulk_untracked(
      [this, dst, src, bytes, bar, tid, op](const VectorClock& vc) {
        m_race.access(Space::smem, dst, bytes, true, Access::bulk_load, tid, m_race.copy_agent(tid), vc, op);
        std::memcpy(smem_at(dst, bytes, "cp.async.bulk"), src, bytes);
        mbar_complete_tx(bar, bytes, vc);
      },
      "cp.async.bulk load -> " + barrier_name(bar));
}

// 9.7.9.25.4.2 cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32.
void Cta::bulk_reduce_add_f32(float* dst, std::uint32_t src, std::uint32_t bytes) {
  if (bytes % 16 != 0 || src % 16 != 0 || reinterpret_cast<std::uintptr_t>(dst) % 16 != 0)
    throw ModelError("cp.reduce.async.bulk: size " + std::to_string(bytes) +
                     " and both addresses must be multiples of 16");
  (void)smem_at(src, bytes, "cp.reduce.async.bulk");
  const int tid = me().tid;
  const char* op = me().op;
  post_bulk(
      [this, dst, src, bytes, tid, op](const VectorClock& vc) {
        m_race.access(Space::smem, src, bytes, false, Access::bulk_reduce, tid, m_race.copy_agent(tid), vc, op);
        const unsigned char* s = smem_at(src, bytes, "cp.reduce.async.bulk");
        for (std::uint32_t i = 0; i < bytes / 4; ++i) {
          float v;
          std::memcpy(&v, s + 4 * i, 4);
          dst[i] += v;
        }
      },
      "cp.reduce.async.bulk.add.f32");
}

// 9.7.9.25.4.x cp.async.bulk.commit_group: this thread's uncommitted bulk ops become a group.
void Cta::bulk_commit() {
  BulkGroups& g = m_bulk[std::size_t(me().tid)];
  g.committed_ids.insert(g.committed_ids.end(), g.uncommitted_ids.begin(), g.uncommitted_ids.end());
  g.uncommitted_ids.clear();
  m_sched.yield();
}

// cp.async.bulk.wait_group(.read) 0: every committed group of this thread has completed
// (.read: finished reading its source; the model completes reads and writes together).
void Cta::bulk_wait(bool read_only) {
  BulkGroups& g = m_bulk[std::size_t(me().tid)];
  std::vector<std::uint64_t> ids = g.committed_ids;
  g.committed_ids.clear();
  auto* running = &m_bulk_running;
  const std::string what = std::string("cp.async.bulk.wait_group") + (read_only ? ".read" : "") + " 0 (" +
                           std::to_string(ids.size()) + " bulk op(s))";
  m_sched.block([what] { return what; },
                [running, ids] {
                  for (std::uint64_t id : ids)
                    if (std::find(running->begin(), running->end(), id) != running->end()) return false;
                  return true;
                });
  for (std::uint64_t id : ids) {  // acquire the waited copies
    auto it = m_bulk_done.find(id);
    if (it != m_bulk_done.end()) {
      join(m_race.thread_clock(me().tid), it->second);
      m_bulk_done.erase(it);
    }
  }
}

void Cta::post_bulk_untracked(std::function<void(const VectorClock&)> work, std::string what) {
  VectorClock vc = m_race.issue(me().tid, m_race.copy_agent(me().tid));
  m_sched.post({-1, [work = std::move(work), vc = std::move(vc)] { work(vc); }, std::move(what)});
  m_sched.yield();
}

}  // namespace vsa::model
