#pragma once
// Output comparison per docs/spec.md, "How correctness is judged".
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "model/case_spec.hpp"
#include "vsa/bf16.hpp"

namespace vsa {

struct TensorMetrics {
  std::string tensor;  // "o", "lse", "dq", "dk", "dv"
  std::int64_t elements = 0;
  double rel_max = 0;     // max|got - ref| / max|ref|
  double rel_l2 = 0;      // ||got - ref|| / ||ref||
  double norm_ratio = 1;  // ||got|| / ||ref||
  double max_abs_err = 0;
  std::int64_t nan_count = 0;     // NaN in got (poison excluded)
  std::int64_t inf_mismatch = 0;  // infinite in one of got/ref but not equal
  std::int64_t unwritten = 0;     // still holding the poison sentinel
  bool pass = false;
  std::string why;  // first failed criterion, empty on pass
};
// The ratios are infinite against an all-zero reference. JSON has no infinity: they are
// written as null (nlohmann's form of a non-finite number; docs/report-schema.md) and a
// null ratio reads back as +infinity, so a worker's result or a report that holds one
// stays readable (issue 20: a null here threw in the parent and aborted the run).
void to_json(nlohmann::json& j, const TensorMetrics& m);
void from_json(const nlohmann::json& j, TensorMetrics& m);
// A ratio field (>= 0) of `j`: its number, or +infinity where it is null.
[[nodiscard]] double ratio_from_json(const nlohmann::json& j, const char* key);

[[nodiscard]] TensorMetrics compare_bf16(const std::string& tensor, const bf16_bits* got, const bf16_bits* ref,
                                         std::int64_t count, const Tolerance& tol);
// For lse: -inf == -inf is a match (empty rows), NaN never is.
[[nodiscard]] TensorMetrics compare_f32(const std::string& tensor, const float* got, const float* ref,
                                        std::int64_t count, const Tolerance& tol);

}  // namespace vsa
