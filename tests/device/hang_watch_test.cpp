// Located hangs (issue 18, finding 5) on a GPU, through the harness's case runner (what a
// worker does): a wait that outlasts hang_watch_ms ends the backend FAULT with a message
// that names the CTA, warp, role, barrier, slot, parity, step and item.
//
// Each run happens in a child process (a gtest death test, "threadsafe" style: the child
// re-executes this binary), because the watched kernel traps and a trap ends the CUDA
// context of the process that launched it.
//
// The stalls are real ones, planted in real code:
//   selftest-deadlock  row_handshake never arrives on row_done for a q block with 0 entries
//                      (a true deadlock: the consumer warp would spin forever)
//   sm90a forward      a release probe (fwd.release_kv) holds every consumer 3 s before it
//                      hands its first K stage back, so the producer's wait for that stage,
//                      one lap around the ring, outlasts a 1 s watch
//   sm90a forward,     the same probe holds warps 1-3 of each one-warp-group CTA, so thread 0's
//   four CTAs          wait to refill the first K tile outlasts the watch
//   sm90a-det backward a release probe (bwd.release_q) holds the kv items, so a q item's
//                      consumer waits for its first tile past the watch
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "device_buffers.hpp"
#include "engine/case_runner.hpp"
#include "scoped_env.hpp"
#include "engine/devices.hpp"
#include "suite/suite.hpp"
#include "vsa/registry.hpp"

namespace vsa::test {
namespace {

using nlohmann::json;

// Child side: runs the case on device 0, prints "VERDICT: reason" of `backend` to stderr
// and exits 0 when the verdict is `want` (the parent matches the text).
[[noreturn]] void run_case_and_exit(const json& c, const std::string& backend, const std::string& want) {
  const Registry registry = make_registry();
  const DeviceQuery query = query_devices();
  WorkerContext ctx;
  ctx.registry = &registry;
  if (!query.devices.empty()) ctx.device = query.devices.front();
  const CaseOutcome outcome = run_case(case_from_json(c, "hang_watch_test", "$"), ctx);
  const json result = outcome.result;
  for (const auto& b : result.at("backends"))
    if (b.at("backend") == backend) {
      const std::string verdict = b.at("verdict");
      std::fprintf(stderr, "%s: %s\n", verdict.c_str(), b.at("reason").get<std::string>().c_str());
      std::fflush(stderr);
      std::_Exit(verdict == want ? 0 : 1);
    }
  std::fprintf(stderr, "no result for %s\n", backend.c_str());
  std::_Exit(2);
}

// A forward case on one backend, reference cpu-naive (small), checked once.
json case_on(const std::string& backend, int d, int s, const json& pattern, std::uint32_t watch_ms) {
  json c = {{"name", "hang-watch"},
            {"mode", "check"},
            {"op", "fwd"},
            {"B", 1},
            {"H", 1},
            {"S", s},
            {"D", d},
            {"blk", 64},
            {"seed", 5},
            {"reference", "cpu-naive"},
            {"pattern", pattern},
            {"backends", json::array({backend})},
            {"timeout_s", 60}};
  if (watch_ms > 0) c["hang_watch_ms"] = watch_ms;
  return c;
}

// Every q block selects every kv block: items longer than any ring.
json dense_rows(int nb) {
  json rows = json::array();
  for (int i = 0; i < nb; ++i) {
    json row = json::array();
    for (int j = 0; j < nb; ++j) row.push_back(j);
    rows.push_back(row);
  }
  return {{"kind", "explicit"}, {"rows", rows}};
}

class HangWatch : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

// q block 1 has no entries: its CTA's consumer (warp 1) waits on row_done at step 0 forever.
TEST_F(HangWatch, SelftestDeadlockEndsFaultNamingRowDone) {
#if !defined(VSA_HAVE_SELFTEST_KERNELS)
  GTEST_SKIP() << "built without the selftest kernels";
#endif
  const json c = case_on("selftest-deadlock", 64, 128, json::parse(R"({"kind": "explicit", "rows": [[1], []]})"), 500);
  EXPECT_EXIT(run_case_and_exit(c, "selftest-deadlock", "FAULT"), ::testing::ExitedWithCode(0),
              "FAULT: hang: cta 1 warp 1 \\(consumer\\) waited on row_done\\[0\\] parity 0 at step 0 for "
              "[5-9][0-9][0-9] ms \\(selftest\\.row_handshake, item 1\\)");
}

// Good code stays quiet: no zero-count row, so every hand-off completes under the watch.
TEST_F(HangWatch, SelftestDeadlockWithoutEmptyRowsPasses) {
#if !defined(VSA_HAVE_SELFTEST_KERNELS)
  GTEST_SKIP() << "built without the selftest kernels";
#endif
  const json c =
      case_on("selftest-deadlock", 64, 128, json::parse(R"({"kind": "explicit", "rows": [[1], [0, 1]]})"), 500);
  EXPECT_EXIT(run_case_and_exit(c, "selftest-deadlock", "PASS"), ::testing::ExitedWithCode(0), "PASS: ");
}

// Whether this build and device 0 run the sm90a kernels.
#if defined(VSA_HAVE_SM90A)
constexpr bool kHaveSm90a = true;
bool sm90_device() {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  return prop.major == 9 && prop.minor == 0;
}
#else
constexpr bool kHaveSm90a = false;
bool sm90_device() { return false; }
#endif

#define VSA_REQUIRE_SM90A()                                                                   \
  do {                                                                                        \
    if (!kHaveSm90a) GTEST_SKIP() << "built without the sm90a kernels (VSA_BUILD_SM90A=OFF)"; \
    if (!sm90_device()) GTEST_SKIP() << "sm90a kernels need compute capability 9.0";          \
  } while (0)

// The sm90a forward on S = 512, 8 dense blocks (one item per query block, 8 items), with the
// release probe at 3 s under a 1 s watch: the case ends FAULT, and the hang record names `wait`
// (which CTA, warp, role, barrier, parity and step), then the watch's time and the item.
void expect_forward_stall(const std::string& wait) {
  json c = case_on("sm90a", 128, 512, dense_rows(8), 1000);
  c["probes"] = {{"fwd.release_kv", 3000000000u}};
  EXPECT_EXIT(run_case_and_exit(c, "sm90a", "FAULT"), ::testing::ExitedWithCode(0),
              "FAULT: hang: " + wait + " for 1[0-9][0-9][0-9] ms \\(sm90a\\.forward, item [0-7]\\)");
}

// Forward, persistent layout, 3-stage K/V ring, K handed back right after Q K^T: the first
// consumer sleeps before releasing k_empty[0]; the producer, 3 stages ahead, waits for it at kv
// step 3. The layout is forced: at this size the rule picks the four-CTA layout
// (kernels/sm90a/fwd_layout.hpp), which has its own test below.
TEST_F(HangWatch, Sm90aForwardStallEndsFaultNamingKEmpty) {
  VSA_REQUIRE_SM90A();
  const ScopedEnv persistent("VSA_SM90A_FWD_FOUR_CTAS", "0");
  expect_forward_stall("cta [0-9]+ warp [01] \\(producer\\) waited on k_empty\\[0\\] parity 0 at step 3");
}

// Forward, four-CTA layout (fwd_cta4_kernel.cuh), forced: the release probe holds warps 1-3 3 s
// before they hand the first K tile back; warp 0 hands it back at once and its thread 0, which
// loads the next K into that tile, waits for them on k_empty past the 1 s watch.
TEST_F(HangWatch, Sm90aFourCtaStallEndsFaultNamingKEmpty) {
  VSA_REQUIRE_SM90A();
  const ScopedEnv four("VSA_SM90A_FWD_FOUR_CTAS", "1");
  expect_forward_stall("cta [0-7] warp 0 \\(cta4\\) waited on k_empty\\[0\\] parity 0 at step 0");
}

// sm90a-det backward: a q item's producer waits (unwatched: it runs on 24 registers) until
// the kv items it reads have published their dS tiles; with every kv consumer held 3 s
// before its first stage release, the q item's consumer waits on full[0] for its first
// entry past the 1 s watch.
TEST_F(HangWatch, Sm90aDetBackwardStallEndsFaultNamingFull) {
  VSA_REQUIRE_SM90A();
  json c = case_on("sm90a-det", 128, 512, dense_rows(8), 1000);
  c["op"] = "bwd";
  c["probes"] = {{"bwd.release_q", 3000000000u}};
  EXPECT_EXIT(run_case_and_exit(c, "sm90a-det", "FAULT"), ::testing::ExitedWithCode(0),
              "FAULT: hang: cta [0-9]+ warp ([4-9]|1[01]) \\(consumer\\) waited on full\\[0\\] parity 0 at step 0 "
              "for 1[0-9][0-9][0-9] ms \\(sm90a-det\\.backward, item [0-9]+\\)");
}

// Good code stays quiet: the watched variant with no delay passes both ops.
TEST_F(HangWatch, Sm90aWatchedVariantPasses) {
  VSA_REQUIRE_SM90A();
  for (const char* backend : {"sm90a", "sm90a-det"}) {
    json c = case_on(backend, 128, 512, dense_rows(8), 1000);
    c["op"] = "both";
    EXPECT_EXIT(run_case_and_exit(c, backend, "PASS"), ::testing::ExitedWithCode(0), "PASS: ") << backend;
  }
}

}  // namespace
}  // namespace vsa::test
