// Execution model, step 1: fibers, the scheduler, CTA / named barriers, warp collectives and
// deadlock reports (kernels/sm100a/model/scheduler.hpp, cta.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "model/cta.hpp"

namespace vsa::model {
namespace {

// Runs `body` on `threads` fibers of one model CTA with `seed`; returns the error text ("" ok).
template <class Body>
std::string run_cta(int threads, std::uint64_t seed, Body body, std::vector<unsigned char>* smem_out = nullptr) {
  std::vector<unsigned char> smem(64 * 1024);
  Scheduler sched(threads, ScheduleOptions{seed});
  sched.set_role_of([](int warp) { return warp == 0 ? std::string("alpha") : std::string("beta"); });
  Cta cta(sched, smem.data(), smem.size(), CtaPlace{0, 1, unsigned(threads)});
  set_current_cta(&cta);
  std::string error;
  try {
    sched.run([&](FiberThread& t) { body(cta, t); });
  } catch (const ModelError& e) {
    error = e.what();
  }
  set_current_cta(nullptr);
  if (smem_out) *smem_out = smem;
  return error;
}

TEST(ModelScheduler, BarrierOrdersEveryThreadsWritesBeforeAnyRead) {
  for (std::uint64_t seed : {0ull, 1ull, 7ull, 123ull}) {
    std::vector<int> slot(64, -1);
    int wrong = 0;
    const std::string err = run_cta(64, seed, [&](Cta& cta, FiberThread& t) {
      slot[std::size_t(t.tid)] = t.tid;
      cta.bar_sync(0, 64);
      for (int i = 0; i < 64; ++i) wrong += slot[std::size_t(i)] != i;
    });
    EXPECT_EQ(err, "") << "seed " << seed;
    EXPECT_EQ(wrong, 0) << "seed " << seed;
  }
}

// __syncthreads reached from different role branches counts per thread across the CTA.
TEST(ModelScheduler, CtaBarrierCountsThreadsFromDifferentBranches) {
  int after = 0;
  const std::string err = run_cta(64, 5, [&](Cta& cta, FiberThread& t) {
    if (t.warp == 0) {
      cta.scheduler().yield();
      cta.bar_sync(0, 64);
    } else {
      cta.bar_sync(0, 64);
    }
    ++after;
  });
  EXPECT_EQ(err, "");
  EXPECT_EQ(after, 64);
}

TEST(ModelScheduler, NamedBarrierWithTooFewThreadsIsADeadlockNamingEachWaiter) {
  const std::string err = run_cta(64, 3, [&](Cta& cta, FiberThread& t) {
    if (t.warp == 0) cta.bar_sync(1, 64);  // warp 1 never arrives
  });
  EXPECT_NE(err.find("deadlock"), std::string::npos) << err;
  EXPECT_NE(err.find("alpha warp 0 lanes 0..31 (32) waits on bar.sync 1 (32 of 64 threads arrived)"), std::string::npos)
      << err;
}

TEST(ModelScheduler, ShuffleAndVoteMeetAsAWarp) {
  std::vector<int> got(64), any(64);
  const std::string err = run_cta(64, 9, [&](Cta& cta, FiberThread& t) {
    const WarpCollective& w = cta.warp_meet(0xffffffffu, "__shfl_sync", 0, std::uint32_t(100 * t.warp + t.lane));
    got[std::size_t(t.tid)] = int(w.result[(t.lane + 1) % 32]);
    const WarpCollective& v = cta.warp_meet(0xffffffffu, "__any_sync", 0, t.tid == 40 ? 1u : 0u);
    int a = 0;
    for (int i = 0; i < 32; ++i) a |= int(v.result[i]);
    any[std::size_t(t.tid)] = a;
  });
  ASSERT_EQ(err, "");
  for (int tid = 0; tid < 64; ++tid) {
    EXPECT_EQ(got[std::size_t(tid)], 100 * (tid / 32) + (tid % 32 + 1) % 32);
    EXPECT_EQ(any[std::size_t(tid)], tid >= 32 ? 1 : 0);
  }
}

TEST(ModelScheduler, LanesAtDifferentCollectivesAreADivergenceError) {
  const std::string err = run_cta(32, 2, [&](Cta& cta, FiberThread& t) {
    if (t.lane < 16)
      cta.warp_meet(0xffffffffu, "__syncwarp", 0, 0);
    else
      cta.warp_meet(0xffffffffu, "tcgen05.wait::ld", 0, 0);
  });
  EXPECT_NE(err.find("diverged at a warp-synchronous instruction"), std::string::npos) << err;
}

TEST(ModelScheduler, MissingLaneAtSyncwarpIsADeadlock) {
  const std::string err = run_cta(32, 4, [&](Cta& cta, FiberThread& t) {
    if (t.lane != 31) cta.warp_meet(0xffffffffu, "__syncwarp", 0, 0);
  });
  EXPECT_NE(err.find("deadlock"), std::string::npos) << err;
  EXPECT_NE(err.find("waits on __syncwarp (warp rendezvous)"), std::string::npos) << err;
}

// Different seeds interleave differently (the schedule is the seed's), one seed twice alike.
TEST(ModelScheduler, SeedsPickTheInterleaving) {
  auto order = [](std::uint64_t seed) {
    std::vector<int> seen;
    (void)run_cta(64, seed, [&](Cta& cta, FiberThread& t) {
      for (int i = 0; i < 3; ++i) {
        seen.push_back(t.tid);
        cta.scheduler().yield();
      }
    });
    return seen;
  };
  EXPECT_EQ(order(11), order(11));
  EXPECT_NE(order(11), order(12));
}

}  // namespace
}  // namespace vsa::model
