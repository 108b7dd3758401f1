// The health gates of qualify (docs/qualify.md) through the real NVML layer
// (telemetry/nvml.cpp) on a fake libnvidia-ml: every gate FAILs on its planted
// fact, PASSes on a healthy GPU, and SKIPs with the reason where the fake lacks an
// entry point or answers NOT_SUPPORTED, never a pass, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "qualify/check_codes.hpp"
#include "qualify/health_gates.hpp"
#include "qualify/health_monitor.hpp"
#include "synthetic_reports.hpp"
#include "telemetry/nvml_api.hpp"

namespace vsa {
namespace {

namespace fake {
using namespace nvml_api;

// What the fake GPU reports; tests set these before building an Nvml.
struct State {
  unsigned corr_rows = 2, unc_rows = 0, remap_pending = 0, remap_failure = 0;
  nvmlReturn_t remap_status = NVML_SUCCESS;
  unsigned retired_sbe = 0, retired_dbe = 0;
  nvmlReturn_t retired_status = NVML_SUCCESS;
  nvmlEnableState_t retired_pending = NVML_FEATURE_DISABLED;
  unsigned long long ecc_corrected = 0, ecc_uncorrected = 0;
  unsigned pcie_gen = 5, pcie_gen_max = 5, pcie_width = 16, pcie_width_max = 16;
  nvmlReturn_t register_status = NVML_SUCCESS;
  std::mutex xid_mutex;                 // the test queues, the monitor's thread waits
  std::deque<unsigned long long> xids;  // delivered one per wait
  void queue_xid(unsigned long long xid) {
    std::lock_guard<std::mutex> lock(xid_mutex);
    xids.push_back(xid);
  }
  std::atomic<int> waits{0};
  int sets_open = 0;
  std::map<std::string, bool> hidden;        // symbols this "driver" lacks
  unsigned threshold[4] = {97, 92, 95, 87};  // shutdown, slowdown, memory max, GPU max (nvml_api order)
  nvmlReturn_t threshold_status = NVML_SUCCESS;
  unsigned long long thermal_violation_ns = 7'000'000'000ULL;
  unsigned memory_c = 71;
  nvmlReturn_t memory_field_status = NVML_SUCCESS;  // the field's own return, the call succeeds
  unsigned power_instant_mw = 512'340;
  nvmlReturn_t power_field_status = NVML_SUCCESS;
  // Kernel-busy percent, one reading per call (the last repeats); an idle GPU by default.
  std::vector<unsigned> busy = {0};
  std::size_t busy_reads = 0;
  std::vector<std::chrono::steady_clock::time_point> busy_read_at;  // when each reading was taken
  nvmlReturn_t busy_status = NVML_SUCCESS;
  std::size_t busy_fails_after = SIZE_MAX;  // reads before the call starts to fail
  nvmlEnableState_t persistence = NVML_FEATURE_ENABLED;
};
State* state = nullptr;
int device_tag = 0;
int set_tag = 0;
nvmlDevice_t the_device() { return reinterpret_cast<nvmlDevice_t>(&device_tag); }

nvmlReturn_t init() { return NVML_SUCCESS; }
nvmlReturn_t shutdown() { return NVML_SUCCESS; }
const char* error_string(nvmlReturn_t code) { return code == 3 ? "Not Supported" : "Unknown Error"; }
nvmlReturn_t by_pci(const char*, nvmlDevice_t* d) {
  *d = the_device();
  return NVML_SUCCESS;
}
nvmlReturn_t remapped(nvmlDevice_t, unsigned* c, unsigned* u, unsigned* p, unsigned* f) {
  if (state->remap_status != NVML_SUCCESS) return state->remap_status;
  *c = state->corr_rows;
  *u = state->unc_rows;
  *p = state->remap_pending;
  *f = state->remap_failure;
  return NVML_SUCCESS;
}
nvmlReturn_t retired(nvmlDevice_t, nvmlPageRetirementCause_t cause, unsigned* count, unsigned long long*) {
  if (state->retired_status != NVML_SUCCESS) return state->retired_status;
  *count = cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR ? state->retired_dbe : state->retired_sbe;
  return NVML_SUCCESS;
}
nvmlReturn_t retired_pending(nvmlDevice_t, nvmlEnableState_t* p) {
  if (state->retired_status != NVML_SUCCESS) return state->retired_status;
  *p = state->retired_pending;
  return NVML_SUCCESS;
}
nvmlReturn_t ecc(nvmlDevice_t, nvmlMemoryErrorType_t type, nvmlEccCounterType_t, unsigned long long* n) {
  *n = type == NVML_MEMORY_ERROR_TYPE_CORRECTED ? state->ecc_corrected : state->ecc_uncorrected;
  return NVML_SUCCESS;
}
nvmlReturn_t gen(nvmlDevice_t, unsigned* v) { return *v = state->pcie_gen, NVML_SUCCESS; }
nvmlReturn_t gen_max(nvmlDevice_t, unsigned* v) { return *v = state->pcie_gen_max, NVML_SUCCESS; }
nvmlReturn_t width(nvmlDevice_t, unsigned* v) { return *v = state->pcie_width, NVML_SUCCESS; }
nvmlReturn_t width_max(nvmlDevice_t, unsigned* v) { return *v = state->pcie_width_max, NVML_SUCCESS; }
nvmlReturn_t set_create(nvmlEventSet_t* s) {
  ++state->sets_open;
  *s = reinterpret_cast<nvmlEventSet_t>(&set_tag);
  return NVML_SUCCESS;
}
nvmlReturn_t set_free(nvmlEventSet_t) {
  --state->sets_open;
  return NVML_SUCCESS;
}
nvmlReturn_t register_events(nvmlDevice_t, unsigned long long types, nvmlEventSet_t) {
  if (types != nvmlEventTypeXidCriticalError) return 2;
  return state->register_status;
}
nvmlReturn_t set_wait(nvmlEventSet_t, nvmlEventData_t* data, unsigned timeout_ms) {
  ++state->waits;
  std::unique_lock<std::mutex> lock(state->xid_mutex);
  if (state->xids.empty()) {
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(timeout_ms, 5u)));
    return NVML_ERROR_TIMEOUT;
  }
  data->device = the_device();
  data->eventType = nvmlEventTypeXidCriticalError;
  data->eventData = state->xids.front();
  state->xids.pop_front();
  return NVML_SUCCESS;
}

nvmlReturn_t temperature_threshold(nvmlDevice_t, nvmlTemperatureThresholds_t which, unsigned* c) {
  if (state->threshold_status != NVML_SUCCESS) return state->threshold_status;
  if (which < 0 || which > 3) return 2;
  *c = state->threshold[which];
  return NVML_SUCCESS;
}
nvmlReturn_t violation(nvmlDevice_t, nvmlPerfPolicyType_t policy, nvmlViolationTime_t* t) {
  if (policy != NVML_PERF_POLICY_THERMAL) return 2;
  t->referenceTime = 1;
  t->violationTime = state->thermal_violation_ns;
  return NVML_SUCCESS;
}
nvmlReturn_t field_values(nvmlDevice_t, int count, nvmlFieldValue_t* values) {
  for (int i = 0; i < count; ++i) {
    values[i].nvmlReturn = 3;  // a field this fake does not know: Not Supported
    values[i].valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    if (values[i].fieldId == NVML_FI_DEV_MEMORY_TEMP) {
      values[i].nvmlReturn = state->memory_field_status;
      values[i].value.uiVal = state->memory_c;
    } else if (values[i].fieldId == NVML_FI_DEV_POWER_INSTANT) {
      values[i].nvmlReturn = state->power_field_status;
      values[i].value.uiVal = state->power_instant_mw;
    }
  }
  return NVML_SUCCESS;
}

nvmlReturn_t persistence(nvmlDevice_t, nvmlEnableState_t* mode) {
  *mode = state->persistence;
  return NVML_SUCCESS;
}
nvmlReturn_t utilization(nvmlDevice_t, nvmlUtilization_t* u) {
  if (state->busy_status != NVML_SUCCESS) return state->busy_status;
  if (state->busy_reads >= state->busy_fails_after) return 999;
  state->busy_read_at.push_back(std::chrono::steady_clock::now());
  u->gpu = state->busy[std::min(state->busy_reads++, state->busy.size() - 1)];
  u->memory = u->gpu;
  return NVML_SUCCESS;
}

void* lookup(const char* symbol) {
  const std::map<std::string, void*> table = {
      {"nvmlInit_v2", reinterpret_cast<void*>(&init)},
      {"nvmlShutdown", reinterpret_cast<void*>(&shutdown)},
      {"nvmlErrorString", reinterpret_cast<void*>(&error_string)},
      {"nvmlDeviceGetHandleByPciBusId_v2", reinterpret_cast<void*>(&by_pci)},
      {"nvmlDeviceGetRemappedRows", reinterpret_cast<void*>(&remapped)},
      {"nvmlDeviceGetRetiredPages", reinterpret_cast<void*>(&retired)},
      {"nvmlDeviceGetRetiredPagesPendingStatus", reinterpret_cast<void*>(&retired_pending)},
      {"nvmlDeviceGetTotalEccErrors", reinterpret_cast<void*>(&ecc)},
      {"nvmlDeviceGetCurrPcieLinkGeneration", reinterpret_cast<void*>(&gen)},
      {"nvmlDeviceGetMaxPcieLinkGeneration", reinterpret_cast<void*>(&gen_max)},
      {"nvmlDeviceGetCurrPcieLinkWidth", reinterpret_cast<void*>(&width)},
      {"nvmlDeviceGetMaxPcieLinkWidth", reinterpret_cast<void*>(&width_max)},
      {"nvmlEventSetCreate", reinterpret_cast<void*>(&set_create)},
      {"nvmlEventSetFree", reinterpret_cast<void*>(&set_free)},
      {"nvmlDeviceRegisterEvents", reinterpret_cast<void*>(&register_events)},
      {"nvmlEventSetWait_v2", reinterpret_cast<void*>(&set_wait)},
      {"nvmlDeviceGetTemperatureThreshold", reinterpret_cast<void*>(&temperature_threshold)},
      {"nvmlDeviceGetViolationStatus", reinterpret_cast<void*>(&violation)},
      {"nvmlDeviceGetFieldValues", reinterpret_cast<void*>(&field_values)},
      {"nvmlDeviceGetUtilizationRates", reinterpret_cast<void*>(&utilization)},
      {"nvmlDeviceGetPersistenceMode", reinterpret_cast<void*>(&persistence)},
  };
  if (state->hidden.count(symbol)) return nullptr;
  const auto it = table.find(symbol);
  return it == table.end() ? nullptr : it->second;
}
}  // namespace fake

// A run of the monitor on the fake GPU: `during` changes the fake between the snapshots.
template <typename During>
HealthRecord monitored_run(fake::State& s, During&& during) {
  fake::state = &s;
  const Nvml nvml(fake::lookup, "fake-nvml");
  EXPECT_TRUE(nvml.available()) << nvml.error();
  const auto device = nvml.device_by_pci_bus_id("00000000:19:00.0");
  EXPECT_TRUE(device.has_value());
  HealthMonitor monitor(nvml, device, "", std::chrono::milliseconds(5), std::chrono::milliseconds(2));
  monitor.start();
  during();
  // Let the monitor wait at least twice, so a queued event is seen by the thread.
  const int seen = s.waits.load();
  for (int i = 0; i < 400 && s.waits.load() < seen + 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  HealthRecord r = monitor.stop();
  EXPECT_EQ(s.sets_open, 0) << "the event set is freed";
  return r;
}
HealthRecord monitored_run(fake::State& s) {
  return monitored_run(s, [] {});
}

const NodeCheck& check_of(const std::vector<NodeCheck>& checks, const std::string& kind) {
  for (const auto& c : checks)
    if (c.kind == kind) return c;
  static NodeCheck none;
  ADD_FAILURE() << "no check " << kind;
  return none;
}

// One sustained pass with these clock-event reasons, on a GPU the worker had to itself (its
// samples list one process with a compute context).
Report report_with_sustained(const std::vector<std::string>& reasons) {
  return testing::sustained_report(nlohmann::json::array(
      {{{"pass", 0},
        {"during", {{"reasons", reasons}, {"compute_processes", {{"min", 1}, {"mean", 1}, {"max", 1}}}}}}}));
}

TEST(HealthGates, HealthyGpuPassesEveryGate) {
  fake::State s;
  const HealthRecord r = monitored_run(s);
  const auto checks = health_checks(r, report_with_sustained({"sw_power_cap"}));
  ASSERT_EQ(checks.size(), 7u);
  for (const auto& c : checks) {
    EXPECT_EQ(c.verdict, kPass) << c.name << ": " << c.reason;
    EXPECT_EQ(c.code, kCodeCheckOk) << c.name;
  }
  EXPECT_TRUE(r.xid_watched);
  EXPECT_GE(r.pcie_samples, 1);
}

// health.exclusive (report/shared_gpu.hpp): a timing beside another process's CUDA context
// fails the node, naming it; a report whose samples never list the processes cannot say.
TEST(HealthGates, AnotherProcessOnTheGpuFailsExclusive) {
  fake::State s;
  const HealthRecord r = monitored_run(s);
  Report shared = testing::sustained_report(nlohmann::json::array(
      {{{"pass", 0}, {"before", {{"compute_pids", {4711, 4802}}}}, {"after", {{"compute_pids", {4711, 4802}}}}}}));
  auto c = check_of(health_checks(r, shared), "exclusive");
  EXPECT_EQ(c.verdict, kFail);
  EXPECT_EQ(c.code, kCodeSharedGpu);
  EXPECT_NE(c.reason.find("1 of 1 timings ran beside another process's CUDA context"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("pids seen: 4711, 4802"), std::string::npos) << c.reason;
  EXPECT_EQ(c.value["pids"], nlohmann::json({4711, 4802}));
  EXPECT_EQ(check_of(health_checks(r, report_with_sustained({"sw_power_cap"})), "exclusive").verdict, kPass);
  const Report unlisted =
      testing::sustained_report(nlohmann::json::array({{{"pass", 0}, {"during", {{"reasons", {"sw_power_cap"}}}}}}));
  c = check_of(health_checks(r, unlisted), "exclusive");
  EXPECT_EQ(c.verdict, kSkip);
  EXPECT_EQ(c.code, kCodeHealthUnknown);
}

// A neighbour NVML does not list (another container's pid namespace) shows in the kernel time the
// GPU had before the first case (qualify/idle_utilization.hpp): still busy after the settle
// periods fails the node; busy that ends (a job that just finished) does not.
TEST(HealthGates, AGpuBusyBeforeTheFirstCaseFailsExclusive) {
  fake::State s;
  s.busy = {41, 38, 40, 39};
  HealthRecord r = monitored_run(s);
  EXPECT_EQ(r.idle.busy_percent, (std::vector<unsigned>{41, 38, 40, 39}));  // three settle periods, then stop
  auto c = check_of(health_checks(r, report_with_sustained({"sw_power_cap"})), "exclusive");
  EXPECT_EQ(c.verdict, kFail);
  EXPECT_EQ(c.code, kCodeSharedGpu);
  EXPECT_NE(c.reason.find("the GPU was busy before this run launched any kernel: 41%, 38%, 40%, 39% over"),
            std::string::npos)
      << c.reason;
  EXPECT_EQ(c.value["shared"], 0);  // the process list saw no one: only the idle reading shows the neighbour
  EXPECT_EQ(c.value["idle_persistence_mode"], true);
  EXPECT_EQ(to_json(r)["idle_before"]["busy_percent"], nlohmann::json({41, 38, 40, 39}));

  fake::State ended;
  ended.busy = {63, 0};
  r = monitored_run(ended);
  EXPECT_EQ(r.idle.busy_percent, (std::vector<unsigned>{63, 0}));
  c = check_of(health_checks(r, report_with_sustained({"sw_power_cap"})), "exclusive");
  EXPECT_EQ(c.verdict, kPass) << c.reason;
  EXPECT_NE(c.reason.find("before its first case the GPU ran no one's work (63%, 0% over"), std::string::npos)
      << c.reason;

  // Without persistence mode the driver may just have brought the GPU up (ECC scrubbing): busy
  // readings then show nothing either way.
  fake::State fresh;
  fresh.busy = {90};
  fresh.persistence = nvml_api::NVML_FEATURE_DISABLED;
  r = monitored_run(fresh);
  c = check_of(health_checks(r, report_with_sustained({"sw_power_cap"})), "exclusive");
  EXPECT_EQ(c.verdict, kSkip) << c.reason;
  EXPECT_NE(c.reason.find("with persistence mode off: the driver may just have brought the GPU up"), std::string::npos)
      << c.reason;

  // A reading that fails after a busy one has not shown the GPU settled: not judged busy.
  fake::State broken;
  broken.busy = {55};
  broken.busy_fails_after = 1;
  r = monitored_run(broken);
  EXPECT_EQ(r.idle.busy_percent, (std::vector<unsigned>{55}));
  EXPECT_FALSE(r.idle.why.empty());
  EXPECT_FALSE(r.idle.busy());
  c = check_of(health_checks(r, report_with_sustained({"sw_power_cap"})), "exclusive");
  EXPECT_EQ(c.verdict, kPass) << c.reason;
  EXPECT_NE(c.reason.find("whether an unlisted process ran before the first case is unknown"), std::string::npos)
      << c.reason;

  fake::State mig;
  mig.busy_status = 3;  // not supported (a MIG-enabled GPU)
  r = monitored_run(mig);
  EXPECT_TRUE(r.idle.busy_percent.empty());
  c = check_of(health_checks(r, report_with_sustained({"sw_power_cap"})), "exclusive");
  EXPECT_EQ(c.verdict, kPass) << c.reason;
  EXPECT_NE(c.reason.find("whether an unlisted process ran before the first case is unknown "
                          "(nvmlDeviceGetUtilizationRates: Not Supported (3))"),
            std::string::npos)
      << c.reason;

  fake::State old_driver;  // no nvmlDeviceGetUtilizationRates at all
  old_driver.hidden["nvmlDeviceGetUtilizationRates"] = true;
  r = monitored_run(old_driver);
  EXPECT_NE(r.idle.why.find("nvmlDeviceGetUtilizationRates is missing"), std::string::npos) << r.idle.why;
  EXPECT_EQ(check_of(health_checks(r, report_with_sustained({"sw_power_cap"})), "exclusive").verdict, kPass);
}

// A neighbour that came during the run and stayed, unlisted, shows in the reading after the last
// worker ended: FAIL. One that left, or a worker killed for a HANG (its kernel is the driver's to
// end), does not fail the node; the reason says what each reading showed.
TEST(HealthGates, AGpuBusyAfterTheLastWorkerFailsExclusive) {
  fake::State s;
  s.busy = {0, 47, 45, 46, 44};  // idle before the first case; busy after the run
  HealthRecord r = monitored_run(s);
  EXPECT_EQ(r.idle.busy_percent, (std::vector<unsigned>{0}));
  EXPECT_EQ(r.idle_after.busy_percent, (std::vector<unsigned>{47, 45, 46, 44}));
  auto c = check_of(health_checks(r, report_with_sustained({"sw_power_cap"})), "exclusive");
  EXPECT_EQ(c.verdict, kFail);
  EXPECT_EQ(c.code, kCodeSharedGpu);
  EXPECT_NE(c.reason.find("the GPU was busy after this run's last worker had ended: 47%, 45%, 46%, 44% over"),
            std::string::npos)
      << c.reason;
  EXPECT_EQ(c.value["idle_after_busy_percent"], nlohmann::json({47, 45, 46, 44}));
  EXPECT_EQ(to_json(r)["idle_after"]["busy_percent"], nlohmann::json({47, 45, 46, 44}));

  Report hung = report_with_sustained({"sw_power_cap"});
  CaseResult stuck;
  stuck.name = "stuck";
  stuck.verdict = kHang;
  hung.cases.push_back(stuck);
  c = check_of(health_checks(r, hung), "exclusive");
  EXPECT_EQ(c.verdict, kSkip) << c.reason;  // neither shown nor ruled out
  EXPECT_NE(c.reason.find("busy after the last worker ended (47%, 45%, 46%, 44% over"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("and a case HANGed: its killed worker's kernel may run"), std::string::npos) << c.reason;

  fake::State left;
  left.busy = {0, 30, 0};  // the tail of work that ended
  r = monitored_run(left);
  c = check_of(health_checks(r, report_with_sustained({"sw_power_cap"})), "exclusive");
  EXPECT_EQ(c.verdict, kPass) << c.reason;
  EXPECT_NE(c.reason.find("before its first case the GPU ran no one's work (0% in one reading of NVML's last sample"),
            std::string::npos)
      << c.reason;
  EXPECT_NE(c.reason.find("after its last worker ended the GPU ran no one's work (30%, 0% over"), std::string::npos)
      << c.reason;

  fake::State fresh;  // without persistence mode busy is not judged either way
  fresh.busy = {0, 80};
  fresh.persistence = nvml_api::NVML_FEATURE_DISABLED;
  r = monitored_run(fresh);
  c = check_of(health_checks(r, report_with_sustained({"sw_power_cap"})), "exclusive");
  EXPECT_EQ(c.verdict, kSkip) << c.reason;
  EXPECT_NE(c.reason.find("busy after the last worker ended (80%, 80%, 80%, 80% over"), std::string::npos) << c.reason;
}

// The reading after the run starts one settle period after the workers ended, so its first
// window (NVML's sample period, at most 1 s) holds none of the run's own kernels.
TEST(HealthGates, TheReadingAfterTheRunWaitsOneSettlePeriodPastTheWorkers) {
  fake::State s;
  fake::state = &s;
  const Nvml nvml(fake::lookup, "fake-nvml");
  const auto device = nvml.device_by_pci_bus_id("00000000:19:00.0");
  ASSERT_TRUE(device.has_value());
  const auto settle = std::chrono::milliseconds(60);
  HealthMonitor monitor(nvml, device, "", std::chrono::milliseconds(5), settle);
  monitor.start();
  ASSERT_EQ(s.busy_read_at.size(), 1U);  // before: at once
  const auto workers_ended = std::chrono::steady_clock::now();
  const HealthRecord r = monitor.stop(workers_ended);
  ASSERT_EQ(s.busy_read_at.size(), 2U);
  EXPECT_GE(s.busy_read_at[1], workers_ended + settle);
  EXPECT_EQ(r.idle_after.busy_percent, (std::vector<unsigned>{0}));
}

// Under MIG the lists come from the worker's instance (telemetry/nvml_cuda.hpp): where it could not
// be found the SKIP says why, and a PASS names the instance, not the GPU.
TEST(HealthGates, ExclusiveUnderMigSaysWhyItSkipsAndWhatPassed) {
  fake::State s;
  const HealthRecord r = monitored_run(s);
  const std::string why = "MIG is on and NVML has no MIG device MIG-0 (nvmlDeviceGetHandleByUUID)";
  Report unresolved = testing::sustained_report(nlohmann::json::array(
      {{{"pass", 0}, {"before", {{"compute_pids", nullptr}, {"compute_pids_why", why}}}, {"after", nullptr}}}));
  unresolved.device = {{"mig_enabled", true}};
  auto c = check_of(health_checks(r, unresolved), "exclusive");
  EXPECT_EQ(c.verdict, kSkip);
  EXPECT_NE(c.reason.find(why), std::string::npos) << c.reason;
  Report alone = report_with_sustained({"sw_power_cap"});
  alone.device = {{"mig_enabled", true}};
  c = check_of(health_checks(r, alone), "exclusive");
  EXPECT_EQ(c.verdict, kPass);
  EXPECT_NE(c.reason.find("on this MIG instance"), std::string::npos) << c.reason;
  alone.device = {{"mig_enabled", false}};
  EXPECT_NE(check_of(health_checks(r, alone), "exclusive").reason.find("on this GPU"), std::string::npos);
}

TEST(HealthGates, PendingOrFailedRowRemapFails) {
  fake::State s;
  s.remap_pending = 1;
  auto c = check_of(health_checks(monitored_run(s), {}), "remapped_rows");
  EXPECT_EQ(c.verdict, kFail);
  EXPECT_EQ(c.code, kCodeRowRemap);
  EXPECT_NE(c.reason.find("pending"), std::string::npos) << c.reason;
  fake::State f;
  f.remap_failure = 1;
  c = check_of(health_checks(monitored_run(f), {}), "remapped_rows");
  EXPECT_EQ(c.verdict, kFail);
  EXPECT_NE(c.reason.find("failed"), std::string::npos) << c.reason;
}

TEST(HealthGates, PendingPageRetirementFails) {
  fake::State s;
  s.retired_pending = nvml_api::NVML_FEATURE_ENABLED;
  s.retired_dbe = 3;
  const auto c = check_of(health_checks(monitored_run(s), {}), "retired_pages");
  EXPECT_EQ(c.verdict, kFail);
  EXPECT_EQ(c.code, kCodeRetiredPages);
  EXPECT_NE(c.reason.find("3 double-bit"), std::string::npos) << c.reason;
}

TEST(HealthGates, XidDuringTheRunFails) {
  fake::State s;
  const HealthRecord r = monitored_run(s, [&] { s.queue_xid(79); });
  const auto c = check_of(health_checks(r, {}), "xid");
  EXPECT_EQ(c.verdict, kFail) << c.reason;
  EXPECT_EQ(c.code, kCodeXid);
  EXPECT_NE(c.reason.find("Xid 79"), std::string::npos) << c.reason;
}

TEST(HealthGates, DownTrainedPcieLinkFails) {
  fake::State s;
  s.pcie_gen = 4;  // a Gen5 slot running at Gen4 all along
  auto c = check_of(health_checks(monitored_run(s), {}), "pcie_link");
  EXPECT_EQ(c.verdict, kFail);
  EXPECT_EQ(c.code, kCodePcieLink);
  EXPECT_NE(c.reason.find("Gen4 x16"), std::string::npos) << c.reason;
  fake::State w;
  w.pcie_width = 8;
  c = check_of(health_checks(monitored_run(w), {}), "pcie_link");
  EXPECT_EQ(c.verdict, kFail) << c.reason;
}

TEST(HealthGates, UncorrectedEccGrowthDuringTheRunFails) {
  fake::State s;
  s.ecc_uncorrected = 1;  // an old error is not this run's: only growth fails
  fake::State grew;
  grew.ecc_uncorrected = 1;
  EXPECT_EQ(check_of(health_checks(monitored_run(s), {}), "ecc_growth").verdict, kPass);
  const HealthRecord r = monitored_run(grew, [&] { grew.ecc_uncorrected = 3; });
  const auto c = check_of(health_checks(r, {}), "ecc_growth");
  EXPECT_EQ(c.verdict, kFail);
  EXPECT_EQ(c.code, kCodeEccGrowth);
  EXPECT_NE(c.reason.find("1 -> 3"), std::string::npos) << c.reason;
}

TEST(HealthGates, HardwareOrThermalSlowdownInSustainedPassFails) {
  fake::State s;
  const HealthRecord r = monitored_run(s);
  for (const std::string reason : {"hw_slowdown", "sw_thermal", "hw_thermal", "hw_power_brake"}) {
    const auto c = check_of(health_checks(r, report_with_sustained({"sw_power_cap", reason})), "throttle");
    EXPECT_EQ(c.verdict, kFail) << reason;
    EXPECT_EQ(c.code, kCodeThrottled);
    EXPECT_NE(c.reason.find(reason), std::string::npos) << c.reason;
  }
  // No sustained case, or no reasons sampled: a stated SKIP.
  EXPECT_EQ(check_of(health_checks(r, {}), "throttle").verdict, kSkip);
  Report unsampled = report_with_sustained({});
  unsampled.cases[0].backends[0].timings[0].clocks = nlohmann::json::array({{{"pass", 0}}});
  EXPECT_EQ(check_of(health_checks(r, unsampled), "throttle").verdict, kSkip);
}

TEST(HealthGates, MissingEntryPointsAndNotSupportedAreStatedSkips) {
  fake::State s;
  for (const char* symbol : {"nvmlDeviceGetRemappedRows", "nvmlDeviceRegisterEvents",
                             "nvmlDeviceGetMaxPcieLinkGeneration", "nvmlDeviceGetTotalEccErrors"})
    s.hidden[symbol] = true;
  s.retired_status = nvml_api::NVML_ERROR_NOT_SUPPORTED;  // Ampere and newer remap rows instead
  const auto checks = health_checks(monitored_run(s), {});
  for (const char* kind : {"remapped_rows", "retired_pages", "xid", "pcie_link", "ecc_growth"}) {
    const auto& c = check_of(checks, kind);
    EXPECT_EQ(c.verdict, kSkip) << kind;
    EXPECT_EQ(c.code, kCodeHealthUnknown) << kind;
  }
  EXPECT_NE(check_of(checks, "remapped_rows").reason.find("nvmlDeviceGetRemappedRows is missing"), std::string::npos);
  EXPECT_NE(check_of(checks, "retired_pages").reason.find("Not Supported (3)"), std::string::npos)
      << check_of(checks, "retired_pages").reason;
  EXPECT_NE(check_of(checks, "xid").reason.find("nvmlDeviceRegisterEvents is missing"), std::string::npos);
  // Registration NOT_SUPPORTED (Windows, some vGPUs): the set is freed and the gate SKIPs.
  fake::State n;
  n.register_status = nvml_api::NVML_ERROR_NOT_SUPPORTED;
  const auto c = check_of(health_checks(monitored_run(n), {}), "xid");
  EXPECT_EQ(c.verdict, kSkip);
  EXPECT_NE(c.reason.find("Not Supported"), std::string::npos) << c.reason;
}

// The power drawn now, beside NVML's one-second mean: milliwatts as watts, in every sample, and
// a stated reason where the driver does not have the field.
TEST(HealthGates, InstantPowerIsReadThroughTheNvmlLayer) {
  fake::State s;
  fake::state = &s;
  const Nvml nvml(fake::lookup, "fake-nvml");
  const NvmlDevice device{fake::the_device()};
  EXPECT_DOUBLE_EQ(*nvml.power_instant_w(device).value, 512.34);
  EXPECT_DOUBLE_EQ(*nvml.sample(NvmlSampleTarget::whole(device)).power_instant_w, 512.34);
  EXPECT_DOUBLE_EQ(nlohmann::json(nvml.sample(NvmlSampleTarget::whole(device)))["power_instant_w"].get<double>(),
                   512.34);
  s.power_field_status = nvml_api::NVML_ERROR_NOT_SUPPORTED;
  EXPECT_EQ(nvml.power_instant_w(device).why, "nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT): Not Supported (3)");
  EXPECT_FALSE(nvml.sample(NvmlSampleTarget::whole(device)).power_instant_w);
  EXPECT_TRUE(nlohmann::json(nvml.sample(NvmlSampleTarget::whole(device)))["power_instant_w"].is_null());
  fake::state = nullptr;
}

TEST(HealthGates, ThermalEvidenceIsReadThroughTheNvmlLayer) {
  fake::State s;
  HealthRecord r = monitored_run(s);
  EXPECT_EQ(*r.before.temperature_gpu_max_c.value, 87u);
  EXPECT_EQ(*r.before.temperature_memory_max_c.value, 95u);
  EXPECT_EQ(*r.before.temperature_slowdown_c.value, 92u);
  EXPECT_EQ(*r.before.temperature_shutdown_c.value, 97u);
  EXPECT_EQ(*r.before.thermal_violation_ns.value, 7'000'000'000ULL);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["before"]["temperature_memory_max_c"], 95);
  fake::state = &s;
  const Nvml nvml(fake::lookup, "fake-nvml");
  const NvmlDevice device{fake::the_device()};
  EXPECT_EQ(*nvml.memory_temperature(device).value, 71u);
  EXPECT_EQ(*nvml.sample(NvmlSampleTarget::whole(device)).memory_temperature_c, 71u);
  EXPECT_EQ(*nvml.sample(NvmlSampleTarget::whole(device)).thermal_violation_ns, 7'000'000'000ULL);
  // Each piece missing or unsupported is a stated reason, never a number.
  s.memory_field_status = nvml_api::NVML_ERROR_NOT_SUPPORTED;
  EXPECT_EQ(nvml.memory_temperature(device).why,
            "nvmlDeviceGetFieldValues(NVML_FI_DEV_MEMORY_TEMP): Not Supported (3)");
  EXPECT_FALSE(nvml.sample(NvmlSampleTarget::whole(device)).memory_temperature_c);
  s.threshold_status = nvml_api::NVML_ERROR_NOT_SUPPORTED;
  EXPECT_EQ(nvml.temperature_threshold(device, TemperatureThreshold::gpu_max).why,
            "nvmlDeviceGetTemperatureThreshold: Not Supported (3)");
  fake::State hidden;
  for (const char* symbol :
       {"nvmlDeviceGetTemperatureThreshold", "nvmlDeviceGetViolationStatus", "nvmlDeviceGetFieldValues"})
    hidden.hidden[symbol] = true;
  r = monitored_run(hidden);
  EXPECT_EQ(r.before.thermal_violation_ns.why, "nvmlDeviceGetViolationStatus is missing from this NVML");
  EXPECT_EQ(r.before.temperature_gpu_max_c.why, "nvmlDeviceGetTemperatureThreshold is missing from this NVML");
  EXPECT_EQ(to_json(r)["before"]["temperature_gpu_max_c"]["unavailable"],
            "nvmlDeviceGetTemperatureThreshold is missing from this NVML");
}

TEST(HealthGates, NoNvmlDeviceSkipsEveryNvmlGate) {
  fake::State s;
  fake::state = &s;
  const Nvml nvml(fake::lookup, "fake-nvml");
  HealthMonitor monitor(nvml, std::nullopt, "NVML has no device at PCI 0000:99:00.0");
  monitor.start();
  const HealthRecord r = monitor.stop();
  const auto checks = health_checks(r, {});
  for (const auto& c : checks) EXPECT_EQ(c.verdict, kSkip) << c.name;
  EXPECT_NE(checks.front().reason.find("0000:99:00.0"), std::string::npos);
  EXPECT_FALSE(to_json(r)["monitored"].get<bool>());
}

}  // namespace
}  // namespace vsa
