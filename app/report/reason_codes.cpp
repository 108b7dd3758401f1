#include "report/reason_codes.hpp"

#include <algorithm>

#include "model/exit_codes.hpp"

namespace vsa {
namespace {

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

// Before the general "needs": a reference that "needs a CUDA device" skips for want of one
// (case_runner.cpp), and a backend whose image the binary lacks (sm100a_backend.cpp) was
// left out of this build, whatever the wording around it.
std::string skip_code(const std::string& reason) {
  if (contains(reason, "no CUDA device") || contains(reason, "needs a CUDA device") ||
      contains(reason, "cudaGetDeviceCount") || contains(reason, "no GPU"))
    return kCodeNoDevice;
  if (contains(reason, "not compiled into this build") || contains(reason, "no loadable")) return kCodeNotBuilt;
  if (contains(reason, "needs") || contains(reason, "cannot run") || contains(reason, "unsupported"))
    return kCodeUnsupported;
  return kCodeSkipped;
}

}  // namespace

std::string reason_code(const BackendResult& b) {
  if (b.verdict == kPass) return kCodeOk;
  if (b.verdict == kFault) return kCodeFault;
  if (b.verdict == kHang) return kCodeHang;
  if (b.verdict == kSkip) return skip_code(b.reason);
  if (std::any_of(b.stability.begin(), b.stability.end(), [](const StabilityOutput& s) { return !s.pass; }))
    return kCodeUnstable;
  if (std::any_of(b.metrics.begin(), b.metrics.end(), [](const TensorMetrics& m) { return !m.pass; }))
    return kCodeMismatch;
  return kCodeCaseError;
}

std::string reason_code(const CaseResult& c) {
  if (c.backends.empty()) {
    if (c.verdict == kPass) return kCodeOk;
    if (c.verdict == kFault) return kCodeFault;
    if (c.verdict == kHang) return kCodeHang;
    if (c.verdict == kSkip) return skip_code(c.message);
    return kCodeCaseError;
  }
  const BackendResult* worst = &c.backends.front();
  for (const auto& b : c.backends)
    if (verdict_severity(b.verdict) > verdict_severity(worst->verdict)) worst = &b;
  if (worst->verdict == kPass && !c.message.empty()) return kCodeCaseError;
  return reason_code(*worst);
}

std::string run_reason_code(const Report& r) {
  if (r.cases.empty() && r.exit_code == kExitIncomplete) return kCodeGpuUnusable;
  return kCodeOk;
}

}  // namespace vsa
