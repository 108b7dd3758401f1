#pragma once
// Stable reason codes next to the free-text reasons (docs/reason-codes.md): what
// monitoring and CI match on, while the text stays free to improve. Derived from a
// result's structured fields (verdict, metrics, stability) first, from the reason's
// wording only to tell SKIP causes apart.
#include <string>

#include "model/case_result.hpp"
#include "report/report.hpp"

namespace vsa {

inline constexpr const char* kCodeOk = "VSA_OK";
inline constexpr const char* kCodeNoDevice = "VSA_E_NO_DEVICE";       // SKIP: no CUDA device / CUDA cannot start
inline constexpr const char* kCodeNotBuilt = "VSA_E_NOT_BUILT";       // SKIP: backend left out of this build
inline constexpr const char* kCodeUnsupported = "VSA_E_UNSUPPORTED";  // SKIP: this GPU or shape cannot run it
inline constexpr const char* kCodeSkipped = "VSA_E_SKIPPED";          // SKIP: another stated reason
inline constexpr const char* kCodeMismatch = "VSA_E_MISMATCH";        // FAIL: outputs differ from the reference
inline constexpr const char* kCodeUnstable = "VSA_E_UNSTABLE";        // FAIL: run-to-run outputs differ
inline constexpr const char* kCodeCaseError = "VSA_E_CASE_ERROR";     // FAIL: the case could not be set up or run
inline constexpr const char* kCodeFault = "VSA_E_FAULT";              // FAULT: crash, illegal address, sticky error
inline constexpr const char* kCodeHang = "VSA_E_HANG";                // HANG: no answer within timeout_s
inline constexpr const char* kCodeGpuUnusable =
    "VSA_E_GPU_UNUSABLE";  // run refused: GPUs present or asked for, CUDA cannot use them

[[nodiscard]] std::string reason_code(const BackendResult& result);
// A case that ran no backend (its message says why), or the case's worst backend.
[[nodiscard]] std::string reason_code(const CaseResult& result);
// For a report without cases: a refused run (fail-closed), else VSA_OK.
[[nodiscard]] std::string run_reason_code(const Report& report);

}  // namespace vsa
