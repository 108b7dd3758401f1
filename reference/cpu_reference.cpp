// Entry points of the CPU reference: check the arguments, pick the scalar type,
// run the loops of cpu_forward.cpp / cpu_backward.cpp.
#include "cpu_reference.hpp"

#include <Eigen/Core>
#include <mutex>
#include <type_traits>

#include "cpu_kernels.hpp"
#include "problem_checks.hpp"

namespace vsa::ref {
namespace detail {

void pin_eigen_blocking() {
  // Typical server values. Eigen otherwise reads them from cpuid, and its depth
  // blocking (hence the order of a product's partial sums) would follow the host:
  // 32 KiB and 48 KiB L1 give different bits for the same inputs.
  constexpr std::ptrdiff_t kL1 = 32 * 1024;
  constexpr std::ptrdiff_t kL2 = 1024 * 1024;
  constexpr std::ptrdiff_t kL3 = 8 * 1024 * 1024;
  static std::once_flag once;
  std::call_once(once, [] { Eigen::setCpuCacheSizes(kL1, kL2, kL3); });
}

}  // namespace detail

template <typename In, typename Out, typename Stat>
Status forward(const ForwardTensors<In, Out, Stat>& t, const Options& options) {
  if (auto st =
          check_problem(t.shape, t.selection, {{t.q, "q"}, {t.k, "k"}, {t.v, "v"}, {t.out, "out"}, {t.lse, "lse"}});
      !st.ok())
    return st;
  detail::pin_eigen_blocking();
  if constexpr (std::is_same_v<In, double>)  // fp64 tensors: always fp64 (cpu_reference.hpp)
    return detail::run_forward<double>(t, options.threads);
  else
    return options.precision == Precision::fp64 ? detail::run_forward<double>(t, options.threads)
                                                : detail::run_forward<float>(t, options.threads);
}

template <typename In, typename Out, typename Stat>
Status backward(const BackwardTensors<In, Out, Stat>& t, const Options& options) {
  if (auto st = check_problem(t.shape, t.selection,
                              {{t.q, "q"},
                               {t.k, "k"},
                               {t.v, "v"},
                               {t.out, "out"},
                               {t.d_out, "d_out"},
                               {t.lse, "lse"},
                               {t.dq, "dq"},
                               {t.dk, "dk"},
                               {t.dv, "dv"}});
      !st.ok())
    return st;
  detail::pin_eigen_blocking();
  if constexpr (std::is_same_v<In, double>)  // fp64 tensors: always fp64 (cpu_reference.hpp)
    return detail::run_backward<double>(t, options.threads);
  else
    return options.precision == Precision::fp64 ? detail::run_backward<double>(t, options.threads)
                                                : detail::run_backward<float>(t, options.threads);
}

template Status forward(const Bf16Forward&, const Options&);
template Status forward(const UnroundedForward&, const Options&);
template Status forward(const Fp64Forward&, const Options&);
template Status backward(const Bf16Backward&, const Options&);
template Status backward(const UnroundedBackward&, const Options&);
template Status backward(const Fp64Backward&, const Options&);

Bf16Forward tensors_of(const ForwardArgs& a) {
  return {a.shape, {a.q2k_idx, a.q2k_num, a.vbs}, a.q, a.k, a.v, a.out, a.lse};
}

Bf16Backward tensors_of(const BackwardArgs& a) {
  return {a.shape, {a.q2k_idx, a.q2k_num, a.vbs}, a.q, a.k, a.v, a.out, a.d_out, a.lse, a.dq, a.dk, a.dv};
}

}  // namespace vsa::ref
