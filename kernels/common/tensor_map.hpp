#pragma once
// Host-only: TMA tensor maps for the fast kernels (sm90a, sm100a). The encoder is looked up
// through the runtime (cudaGetDriverEntryPointByVersion), never by linking libcuda, so a
// binary still starts on a host without a driver. Compiles with g++ and nvcc.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "vsa/backend.hpp"

namespace vsa::device {

// A row-major bf16 matrix [rows, cols] seen as 2-D boxes of box_rows x box_cols, 128-byte
// swizzled (box_cols * 2 must be 128). Built per launch: a tensor map holds the base
// pointer, so it cannot be cached across calls with other buffers.
[[nodiscard]] inline Status make_tensor_map_bf16_sw128(CUtensorMap* map, const void* base, std::uint64_t rows,
                                                       std::uint64_t cols, std::uint32_t box_rows,
                                                       std::uint32_t box_cols) {
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t err =
      cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found);
  if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || entry == nullptr)
    return Status::failure(std::string("cuTensorMapEncodeTiled not available from the driver: ") +
                           cudaGetErrorName(err));
  const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {cols * sizeof(std::uint16_t)};
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims, strides, box,
                            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return Status::failure("cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(r)));
  return Status::success();
}

}  // namespace vsa::device
