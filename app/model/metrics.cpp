#include "model/metrics.hpp"

#include <cmath>
#include <sstream>

#include "util/json_path_error.hpp"
#include "vsa/device_ops.hpp"

namespace vsa {
namespace {

struct Accumulator {
  double max_ref = 0, max_err = 0, err2 = 0, ref2 = 0, got2 = 0;
  std::int64_t nan = 0, inf_mismatch = 0, unwritten = 0;

  void add(double got, double ref) {
    if (std::isnan(got)) {
      ++nan;
      return;
    }
    if (std::isinf(got) || std::isinf(ref)) {
      if (got != ref) ++inf_mismatch;
      return;
    }
    const double e = std::abs(got - ref);
    max_ref = std::max(max_ref, std::abs(ref));
    max_err = std::max(max_err, e);
    err2 += e * e;
    ref2 += ref * ref;
    got2 += got * got;
  }

  TensorMetrics finish(const std::string& tensor, std::int64_t count, const Tolerance& tol) const {
    TensorMetrics m;
    m.tensor = tensor;
    m.elements = count;
    m.max_abs_err = max_err;
    // An all-zero reference (e.g. every row empty) must be matched exactly.
    m.rel_max = max_ref > 0 ? max_err / max_ref : (max_err > 0 ? INFINITY : 0.0);
    m.rel_l2 = ref2 > 0 ? std::sqrt(err2 / ref2) : (err2 > 0 ? INFINITY : 0.0);
    m.norm_ratio = ref2 > 0 ? std::sqrt(got2 / ref2) : (got2 > 0 ? INFINITY : 1.0);
    m.nan_count = nan;
    m.inf_mismatch = inf_mismatch;
    m.unwritten = unwritten;
    std::ostringstream why;
    if (unwritten > 0)
      why << unwritten << " elements never written";
    else if (nan > 0)
      why << nan << " NaN";
    else if (inf_mismatch > 0)
      why << inf_mismatch << " infinities where the reference differs";
    else if (!(m.rel_max <= tol.rel_max))
      why << "rel_max " << m.rel_max << " > " << tol.rel_max;
    else if (!(m.rel_l2 <= tol.rel_l2))
      why << "rel_l2 " << m.rel_l2 << " > " << tol.rel_l2;
    m.why = why.str();
    m.pass = m.why.empty();
    return m;
  }
};

}  // namespace

double ratio_from_json(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = j.at(key);
  return v.is_null() ? INFINITY : v.get<double>();
}

void to_json(nlohmann::json& j, const TensorMetrics& m) {
  j = {{"tensor", m.tensor},
       {"elements", m.elements},
       {"rel_max", m.rel_max},
       {"rel_l2", m.rel_l2},
       {"norm_ratio", m.norm_ratio},
       {"max_abs_err", m.max_abs_err},
       {"nan_count", m.nan_count},
       {"inf_mismatch", m.inf_mismatch},
       {"unwritten", m.unwritten},
       {"pass", m.pass},
       {"why", m.why}};
}

void from_json(const nlohmann::json& j, TensorMetrics& m) {
  read_field(j, "tensor", m.tensor);
  read_field(j, "elements", m.elements);
  m.rel_max = at_path(".rel_max", [&] { return ratio_from_json(j, "rel_max"); });
  m.rel_l2 = at_path(".rel_l2", [&] { return ratio_from_json(j, "rel_l2"); });
  m.norm_ratio = at_path(".norm_ratio", [&] { return ratio_from_json(j, "norm_ratio"); });
  m.max_abs_err = at_path(".max_abs_err", [&] { return ratio_from_json(j, "max_abs_err"); });
  read_field(j, "nan_count", m.nan_count);
  read_field(j, "inf_mismatch", m.inf_mismatch);
  read_field(j, "unwritten", m.unwritten);
  read_field(j, "pass", m.pass);
  read_field(j, "why", m.why);
}

TensorMetrics compare_bf16(const std::string& tensor, const bf16_bits* got, const bf16_bits* ref, std::int64_t count,
                           const Tolerance& tol) {
  Accumulator acc;
  for (std::int64_t i = 0; i < count; ++i) {
    if (got[i] == kPoisonBf16) {
      ++acc.unwritten;
      continue;
    }
    acc.add(bf16_to_float(got[i]), bf16_to_float(ref[i]));
  }
  return acc.finish(tensor, count, tol);
}

TensorMetrics compare_f32(const std::string& tensor, const float* got, const float* ref, std::int64_t count,
                          const Tolerance& tol) {
  Accumulator acc;
  for (std::int64_t i = 0; i < count; ++i) {
    if (is_poison_f32(got[i])) {
      ++acc.unwritten;
      continue;
    }
    acc.add(got[i], ref[i]);
  }
  return acc.finish(tensor, count, tol);
}

}  // namespace vsa
