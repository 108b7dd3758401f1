// Execution model, step 2: mbarrier, TMA, TMEM and tcgen05.mma against hand-computed values
// (kernels/sm100a/model/). The expected layouts are written out here from the ISA / CUDA
// guide formulas, not taken from the model's own helpers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "model/cta.hpp"
#include "model/descriptors.hpp"
#include "model/tensor_map_model.hpp"
#include "vsa/bf16.hpp"

namespace vsa::model {
namespace {

struct Rig {
  std::vector<unsigned char> smem = std::vector<unsigned char>(96 * 1024, 0);
  Scheduler sched;
  Cta cta;
  explicit Rig(int threads, std::uint64_t seed = 1)
      : sched(threads, ScheduleOptions{seed}), cta(sched, smem.data(), smem.size(), CtaPlace{0, 1, unsigned(threads)}) {
    set_current_cta(&cta);
  }
  ~Rig() { set_current_cta(nullptr); }
  template <class Body>
  std::string run(Body body) {
    try {
      sched.run([&](FiberThread& t) { body(t); });
    } catch (const ModelError& e) {
      return e.what();
    }
    return "";
  }
  // The 1024-aligned smem address at or above `addr`.
  static std::uint32_t at1024(std::uint32_t addr) { return (addr + 1023u) & ~1023u; }
  unsigned char* host(std::uint32_t addr) { return smem.data() + (addr - kSmemWindowBase); }
};

// ---- descriptors: hand-encoded values -----------------------------------------------------

TEST(ModelDescriptors, SharedMemoryDescriptorFields) {
  // start 0x1000, LBO 16, SBO 1024, fixed 0b001 at 46, swizzle 2 (128 B) at 61.
  const std::uint64_t d = 0x4000404000010100ull;
  const SmemDescriptor s = decode_smem_descriptor(d);
  EXPECT_EQ(s.start, 0x1000u);
  EXPECT_EQ(s.lbo, 16u);
  EXPECT_EQ(s.sbo, 1024u);
  EXPECT_EQ(s.swizzle, Swizzle::sw128);
  EXPECT_EQ(s.base_offset, 0);
  EXPECT_THROW((void)decode_smem_descriptor(d & ~(1ull << 46)), ModelError);  // version bits 0b000
  EXPECT_THROW((void)decode_smem_descriptor(d | (3ull << 61)), ModelError);   // mode 7: invalid
  EXPECT_THROW((void)decode_smem_descriptor(d | (1ull << 52)), ModelError);   // sm_103a only
  EXPECT_THROW((void)decode_smem_descriptor(d | (1ull << 14)), ModelError);   // reserved
}

TEST(ModelDescriptors, InstructionDescriptorF16) {
  // dtype F32 (bit 4), atype BF16 (bit 7), btype BF16 (bit 10), B MN-major (bit 16),
  // N = 128 (16 << 17), M = 64 (4 << 24).
  const std::uint32_t v = (1u << 4) | (1u << 7) | (1u << 10) | (1u << 16) | (16u << 17) | (4u << 24);
  const InstrDescriptor i = decode_instr_descriptor_f16(v);
  EXPECT_EQ(i.m, 64);
  EXPECT_EQ(i.n, 128);
  EXPECT_FALSE(i.a_mn_major);
  EXPECT_TRUE(i.b_mn_major);
  EXPECT_THROW((void)decode_instr_descriptor_f16(v | (1u << 23)), ModelError);                   // reserved
  EXPECT_THROW((void)decode_instr_descriptor_f16((v & ~(31u << 24)) | (2u << 24)), ModelError);  // M = 32
  EXPECT_THROW((void)decode_instr_descriptor_f16((v & ~(31u << 24)) | (8u << 24) | (1u << 17)),
               ModelError);                                                    // M 128, N 136
  EXPECT_THROW((void)decode_instr_descriptor_f16(v | (1u << 2)), ModelError);  // sparse
}

TEST(ModelDescriptors, CanonicalLayoutAddresses) {
  SmemDescriptor k{0x2000, 16, 1024, 0, false, Swizzle::sw128};
  // row 9, k 10: 128 + 1024 + 20 = 0x494 above 0x2000; chunk 1 ^ (bits 7-9 = 1) = 0.
  EXPECT_EQ(operand_element_address(k, false, 9, 10), 0x2484u);
  SmemDescriptor mn{0x4000, 8192, 1024, 0, false, Swizzle::sw128};
  // mn 70, k 9: 12 + 8192 + 128 + 1024 = 0x248C; chunk 0 ^ 1 = 1.
  EXPECT_EQ(operand_element_address(mn, true, 70, 9), 0x649Cu);
  EXPECT_EQ(d_row_lane(64, 16, 17), 49);  // Layout F: row 17 -> lane 32 + 16 + 1
  EXPECT_EQ(d_row_lane(64, 0, 63), 111);
  EXPECT_EQ(d_row_lane(128, 0, 77), 77);  // Layout D
  EXPECT_THROW((void)d_row_lane(64, 8, 0), ModelError);
}

// ---- mbarrier ----------------------------------------------------------------------------

TEST(ModelMbarrier, PhaseCompletesOnArrivalsAndTransactionBytes) {
  Rig rig(64);
  const std::uint32_t bar = kSmemWindowBase + 8;
  int consumer_saw_phase = -1;
  const std::string err = rig.run([&](FiberThread& t) {
    if (t.tid == 0) rig.cta.mbar_init(bar, 2);
    rig.cta.bar_sync(0, 64);
    if (t.tid == 1) {
      rig.cta.mbar_expect_tx(bar, 32);
      rig.cta.mbar_arrive(bar);
      rig.cta.mbar_complete_tx(bar, 16, rig.cta.races().thread_clock(t.tid));
    }
    if (t.tid == 2) {
      rig.cta.mbar_arrive(bar);
      rig.cta.mbar_complete_tx(bar, 16, rig.cta.races().thread_clock(t.tid));
    }
    if (t.tid == 33) {
      rig.cta.mbar_wait_parity(bar, 0);
      consumer_saw_phase = int(rig.cta.mbarrier(bar).phase);
      rig.cta.mbar_wait_parity(bar, 1);  // phase 1 has not completed: this waits forever
    }
  });
  EXPECT_EQ(consumer_saw_phase, 1);
  EXPECT_NE(err.find("deadlock"), std::string::npos) << err;
  EXPECT_NE(err.find("for parity 1 (completed phases 1, 2/2 arrivals pending"), std::string::npos) << err;
}

TEST(ModelMbarrier, ShortExpectTxNeverCompletesAndTheReportNamesTheBarrier) {
  Rig rig(32);
  const std::uint32_t bar = kSmemWindowBase + 64;
  rig.cta.name_barrier(bar, "q_full");
  const std::string err = rig.run([&](FiberThread& t) {
    if (t.tid == 0) {
      rig.cta.mbar_init(bar, 1);
      rig.cta.mbar_expect_tx(bar, 4096 + 16);
      rig.cta.mbar_arrive(bar);
      rig.cta.mbar_complete_tx(bar, 4096, rig.cta.races().thread_clock(t.tid));
    }
    rig.cta.warp_meet(0xffffffffu, "__syncwarp", 0, 0);
    rig.cta.mbar_wait_parity(bar, 0);
  });
  EXPECT_NE(err.find("waits on mbarrier q_full"), std::string::npos) << err;
  EXPECT_NE(err.find("tx-count 16"), std::string::npos) << err;
}

// ---- TMA ---------------------------------------------------------------------------------

TEST(ModelTma, Box2dLoadSwizzlesOnAbsoluteAddressAndZeroFillsOutOfBounds) {
  const int rows = 100, cols = 64;
  std::vector<std::uint16_t> g(std::size_t(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) g[std::size_t(r) * cols + std::size_t(c)] = std::uint16_t(1 + r * 64 + c);
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(cols) * 2};
  const cuuint32_t box[2] = {64, 32}, es[2] = {1, 1};
  ASSERT_EQ(encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, g.data(), dims, strides, box, es,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            CUDA_SUCCESS);
  Rig rig(32, 3);
  const std::uint32_t dst = Rig::at1024(kSmemWindowBase + 1024);
  const std::uint32_t bar = kSmemWindowBase + 16;
  const std::string err = rig.run([&](FiberThread& t) {
    if (t.tid == 0) {
      rig.cta.mbar_init(bar, 1);
      rig.cta.mbar_expect_tx(bar, 32 * 128);
      rig.cta.mbar_arrive(bar);
      rig.cta.tma_load_2d(dst, &map, 0, 80, bar);
      rig.cta.mbar_wait_parity(bar, 0);
    }
  });
  ASSERT_EQ(err, "");
  // Box row r, column c at r * 128 + ((c / 8) ^ (r % 8)) * 16 + (c % 8) * 2 (dst is 1024-aligned).
  int wrong = 0;
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 64; ++c) {
      std::uint16_t v;
      std::memcpy(&v, rig.host(dst + std::uint32_t(r * 128 + (((c / 8) ^ (r % 8)) * 16) + (c % 8) * 2)), 2);
      const std::uint16_t want = 80 + r < rows ? std::uint16_t(1 + (80 + r) * 64 + c) : 0;
      wrong += v != want;
    }
  EXPECT_EQ(wrong, 0);
}

// ---- TMEM ----------------------------------------------------------------------------------

TEST(ModelTmem, AllocationRules) {
  {
    Rig rig(32);
    const std::string err = rig.run([&](FiberThread&) { rig.cta.tmem_alloc(kSmemWindowBase + 0, 1024); });
    EXPECT_NE(err.find("power of two in [32, 512]"), std::string::npos) << err;
  }
  {
    Rig rig(32);
    const std::string err = rig.run([&](FiberThread&) {
      rig.cta.tmem_alloc(kSmemWindowBase + 0, 512);
      rig.cta.tmem_alloc(kSmemWindowBase + 4, 32);
    });
    EXPECT_NE(err.find("past the 512 columns"), std::string::npos) << err;
  }
  {
    Rig rig(64);
    const std::string err = rig.run([&](FiberThread& t) {
      if (t.warp == 0) rig.cta.tmem_alloc(kSmemWindowBase + 0, 64);
      rig.cta.bar_sync(0, 64);
      if (t.warp == 1) rig.cta.tmem_dealloc(0, 64);
    });
    EXPECT_NE(err.find("dealloc by warp 1 of TMEM allocated by warp 0"), std::string::npos) << err;
  }
  {
    // relinquish_alloc_permit is .sync.aligned: one lane alone waits for the rest of its warp.
    Rig rig(32);
    const std::string err = rig.run([&](FiberThread& t) {
      if (t.lane == 0) rig.cta.tmem_relinquish();
    });
    EXPECT_NE(err.find("deadlock"), std::string::npos) << err;
    EXPECT_NE(err.find("waits on tcgen05.relinquish_alloc_permit"), std::string::npos) << err;
  }
  {
    Rig rig(32);
    const std::string err = rig.run([&](FiberThread&) {
      rig.cta.tmem_relinquish();
      rig.cta.tmem_alloc(kSmemWindowBase + 0, 32);
    });
    EXPECT_NE(err.find("tcgen05.alloc after tcgen05.relinquish_alloc_permit"), std::string::npos) << err;
  }
}

TEST(ModelTmem, LaneQuarterRuleAndPoisonUntilWait) {
  Rig rig(64);
  std::uint32_t before = 0, after = 0;
  const std::string err = rig.run([&](FiberThread& t) {
    if (t.warp == 0) rig.cta.tmem_alloc(kSmemWindowBase + 0, 32);
    rig.cta.bar_sync(0, 64);
    if (t.warp == 1) {
      std::uint32_t r[32];
      for (int j = 0; j < 32; ++j) r[j] = 1000u * std::uint32_t(t.lane) + std::uint32_t(j);
      rig.cta.tmem_st_32x32b(r, 32, (32u << 16) | 0u);  // warp 1: lanes 32..63
      rig.cta.tmem_wait_st();
      std::uint32_t l[32];
      rig.cta.tmem_ld_32x32b(l, 32, (32u << 16) | 0u);
      if (t.lane == 3) before = l[5];
      rig.cta.tmem_wait_ld();
      if (t.lane == 3) after = l[5];
    }
    // The teardown as the kernels do it (9.7.16.6.3): the loads and stores fenced before the
    // sync, the dealloc after it.
    rig.cta.races().fence_before_thread_sync(t.tid);
    rig.cta.bar_sync(0, 64);
    rig.cta.races().fence_after_thread_sync(t.tid);
    if (t.warp == 0) rig.cta.tmem_dealloc(0, 32);
  });
  ASSERT_EQ(err, "");
  EXPECT_EQ(before, kPoison);
  EXPECT_EQ(after, 3005u);

  Rig bad(64);
  const std::string e2 = bad.run([&](FiberThread& t) {
    if (t.warp == 0) bad.cta.tmem_alloc(kSmemWindowBase + 0, 32);
    bad.cta.bar_sync(0, 64);
    if (t.warp == 1) {
      std::uint32_t l[32];
      bad.cta.tmem_ld_32x32b(l, 32, 0u);  // lanes 0..31 from warp 1
    }
  });
  EXPECT_NE(e2.find("may only reach lanes 32..63"), std::string::npos) << e2;
}

// ---- tcgen05.mma ---------------------------------------------------------------------------

// A [rows][64] bf16 tile as TMA's 128-byte swizzle writes it (CUDA guide pattern).
void put_tile(unsigned char* base, int r, int c, float v) {
  const std::uint16_t b = float_to_bf16(v);
  std::memcpy(base + r * 128 + (((c / 8) ^ (r % 8)) * 16) + (c % 8) * 2, &b, 2);
}

float run_mma_64x64(std::uint32_t b_sbo, bool b_mn_major, std::vector<float>& d_out, std::vector<float>& a_vals,
                    std::vector<float>& b_vals, std::string& err) {
  Rig rig(32);
  const std::uint32_t ta = Rig::at1024(kSmemWindowBase + 1024), tb = ta + 8192;
  a_vals.assign(64 * 16, 0);
  b_vals.assign(64 * 16, 0);
  for (int m = 0; m < 64; ++m)
    for (int k = 0; k < 16; ++k) {
      a_vals[std::size_t(m * 16 + k)] = float((m * 7 + k * 3) % 11) - 5.0f;
      put_tile(rig.host(ta), m, k, a_vals[std::size_t(m * 16 + k)]);
    }
  for (int n = 0; n < 64; ++n)
    for (int k = 0; k < 16; ++k) {
      b_vals[std::size_t(n * 16 + k)] = float((n * 5 + k) % 7) - 3.0f;
      if (b_mn_major)
        put_tile(rig.host(tb), k, n, b_vals[std::size_t(n * 16 + k)]);  // rows = k, columns = n
      else
        put_tile(rig.host(tb), n, k, b_vals[std::size_t(n * 16 + k)]);
    }
  const std::uint64_t fixed = (1ull << 46) | (2ull << 61);
  const std::uint64_t da = (ta >> 4) | (1ull << 16) | (std::uint64_t(1024 >> 4) << 32) | fixed;
  const std::uint64_t db = (tb >> 4) | (std::uint64_t(8192 >> 4) << 16) | (std::uint64_t(b_sbo >> 4) << 32) | fixed;
  const std::uint32_t idesc =
      (1u << 4) | (1u << 7) | (1u << 10) | (std::uint32_t(b_mn_major) << 16) | (8u << 17) | (4u << 24);
  const std::uint32_t bar = kSmemWindowBase + 8;
  d_out.assign(64 * 64, 0);
  err = rig.run([&](FiberThread& t) {
    rig.cta.tmem_alloc(kSmemWindowBase + 0, 64);
    if (t.lane == 0) {
      rig.cta.mbar_init(bar, 1);
      rig.cta.mma_f16_ss(16u << 16, da, db, idesc, false);  // D at lane 16 (Layout F, second half)
      rig.cta.mma_commit(bar);
    }
    rig.cta.warp_meet(0xffffffffu, "__syncwarp", 0, 0);
    rig.cta.mbar_wait_parity(bar, 0);
    rig.cta.tmem_dealloc(0, 64);
  });
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 64; ++n) {
      float v;
      std::memcpy(&v, &rig.cta.tmem_cell(32 * (m / 16) + 16 + m % 16, n), 4);
      d_out[std::size_t(m * 64 + n)] = v;
    }
  return 0;
}

TEST(ModelMma, M64ProductThroughBothMajornessesLandsInLayoutF) {
  for (bool mn : {false, true}) {
    std::vector<float> d, a, b;
    std::string err;
    run_mma_64x64(1024, mn, d, a, b, err);
    ASSERT_EQ(err, "") << (mn ? "MN-major B" : "K-major B");
    int wrong = 0;
    for (int m = 0; m < 64; ++m)
      for (int n = 0; n < 64; ++n) {
        float want = 0;
        for (int k = 0; k < 16; ++k) want += a[std::size_t(m * 16 + k)] * b[std::size_t(n * 16 + k)];
        wrong += d[std::size_t(m * 64 + n)] != want;
      }
    EXPECT_EQ(wrong, 0) << (mn ? "MN-major B" : "K-major B");
  }
}

TEST(ModelMma, WrongStrideByteOffsetReadsOtherElements) {
  std::vector<float> d, a, b;
  std::string err;
  run_mma_64x64(512, false, d, a, b, err);
  ASSERT_EQ(err, "");
  int wrong = 0;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 64; ++n) {
      float want = 0;
      for (int k = 0; k < 16; ++k) want += a[std::size_t(m * 16 + k)] * b[std::size_t(n * 16 + k)];
      wrong += d[std::size_t(m * 64 + n)] != want;
    }
  EXPECT_GT(wrong, 1000);
}

}  // namespace
}  // namespace vsa::model
