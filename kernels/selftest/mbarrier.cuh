#pragma once
// The few mbarrier operations the planted kernels need, in the sm_80 forms (the
// selftest kernels are built for sm_80, sm_90 and sm_100 alike).
#include <cstdint>

namespace vsa::selftest {

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
}

__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile(
      "{\n"
      ".reg .b64 state;\n"
      "mbarrier.arrive.shared.b64 state, [%0];\n"
      "}" ::"r"(shared_address(bar))
      : "memory");
}

// True once the phase with this parity has completed.
__device__ __forceinline__ bool mbarrier_test_wait(std::uint64_t* bar, unsigned parity) {
  unsigned done = 0;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}"
      : "=r"(done)
      : "r"(shared_address(bar)), "r"(parity)
      : "memory");
  return done != 0;
}

}  // namespace vsa::selftest
