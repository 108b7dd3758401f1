#pragma once
// Host entry points of the planted-fault kernels (vsa-bench selftest). Each kernel
// carries one deliberate bug from docs/spec.md's list; the backends in
// planted_backends.cpp put them on top of a correct cuda-ref forward, so the only
// thing wrong with a backend's output is its planted bug.
#include <cstdint>

#include "vsa/backend.hpp"

namespace vsa::selftest {

// Writes one element far past `out` (1 TiB beyond it): an illegal address, a sticky
// error that ends the context (docs/spec.md bug class 4).
Status launch_out_of_bounds_write(bf16_bits* out, void* stream);

// One CTA per (b, h, q block) runs a producer -> consumer hand-off on an mbarrier:
// the producer arrives on "row done" after the last entry of the q block's list, so
// a row with q2k_num == 0 never arrives and the consumer waits forever (bug class 7),
// or, with `watch` on, until the watch expires and the kernel traps with its record.
Status launch_row_handshake(const Shape& shape, const std::int32_t* q2k_num, const HangWatch& watch, void* stream);

// Copies src -> dst through a shared-memory stage shared by a producer and a consumer
// warp. Tiles are handed out by an atomic counter (`counter`, one int, zeroed here).
// Planted: the consumer releases the stage before it reads it; the producer then
// needs an atomic and a global load before it overwrites the stage, which hides the
// bug (bug classes 1 and 2). `delay_ns` > 0 sleeps between the release and the read
// (delay probe "selftest.overlap"), and the consumer copies another tile's data.
Status launch_early_release_copy(const bf16_bits* src, bf16_bits* dst, std::int64_t count, int* counter,
                                 std::uint32_t delay_ns, void* stream);

// Writes a NaN (0x7fc0, not the poison pattern) into out[index].
Status launch_write_nan(bf16_bits* out, std::int64_t index, void* stream);

// KernelInfo of the planted kernels (cudaFuncGetAttributes; needs a device).
[[nodiscard]] KernelInfo out_of_bounds_kernel_info();
[[nodiscard]] KernelInfo row_handshake_kernel_info();
[[nodiscard]] KernelInfo early_release_copy_kernel_info();
[[nodiscard]] KernelInfo write_nan_kernel_info();

}  // namespace vsa::selftest
