#pragma once
// Hardware grounding of the model's TMA (tests/device/model_grounding_test.cpp): one real
// cp.async.bulk.tensor 2-D load with 128-byte swizzle (Hopper and Blackwell share it) into a
// 1024-byte-aligned shared-memory box, whose raw bytes come back for a byte-for-byte
// comparison with the model's load of the same box.
#include <cstdint>
#include <vector>

#include "vsa/backend.hpp"

namespace vsa::model::grounding {

// `matrix`: device memory, row-major bf16 [rows, cols]; the box is box_rows x 64 columns at
// column x, row y (rows past `rows` are the tensor's out-of-bounds fill).
Status tma_box_on_device(const void* matrix, std::uint64_t rows, std::uint64_t cols, std::uint32_t box_rows, int x,
                         int y, std::vector<unsigned char>& smem_bytes);

}  // namespace vsa::model::grounding
