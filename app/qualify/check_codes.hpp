#pragma once
// Reason codes of the node checks (docs/reason-codes.md). PASS is VSA_OK (report/reason_codes.hpp).
namespace vsa {

inline constexpr const char* kCodeCheckOk = "VSA_OK";
inline constexpr const char* kCodeSlowNode = "VSA_E_SLOW_NODE";    // FAIL: TFLOPS below the GPU model's floor
inline constexpr const char* kCodeClockHold = "VSA_E_CLOCK_HOLD";  // FAIL: sustained mean SM clock below its floor
inline constexpr const char* kCodeNoFloor = "VSA_E_NO_FLOOR";      // SKIP: no floor for this GPU model / workload
inline constexpr const char* kCodeRowRemap = "VSA_E_ROW_REMAP";    // FAIL: a row remap is pending or has failed
inline constexpr const char* kCodeRetiredPages = "VSA_E_RETIRED_PAGES";    // FAIL: pages wait for retirement
inline constexpr const char* kCodeXid = "VSA_E_XID";                       // FAIL: a critical Xid during the run
inline constexpr const char* kCodePcieLink = "VSA_E_PCIE_LINK";            // FAIL: link below its max gen or width
inline constexpr const char* kCodeThrottled = "VSA_E_THROTTLED";           // FAIL: hardware/thermal slowdown under load
inline constexpr const char* kCodeEccGrowth = "VSA_E_ECC_GROWTH";          // FAIL: uncorrected ECC errors grew
inline constexpr const char* kCodeSharedGpu = "VSA_E_SHARED_GPU";          // FAIL: another process's CUDA context
inline constexpr const char* kCodeHealthUnknown = "VSA_E_HEALTH_UNKNOWN";  // SKIP: NVML cannot say here (named)

}  // namespace vsa
