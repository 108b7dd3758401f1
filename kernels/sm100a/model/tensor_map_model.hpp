#pragma once
// The model's cuTensorMapEncodeTiled. kernels/common/tensor_map.hpp reaches the encoder
// through cudaGetDriverEntryPointByVersion; code compiled against the model (prelude.hpp)
// calls model_get_driver_entry_point instead, which returns this encoder. It records the
// parameters in the 128-byte opaque map in the model's own format (the driver's real format
// is never decoded), so the kernels' host code runs unchanged and the model's TMA reads them.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace vsa::model {

inline constexpr std::uint32_t kTensorMapMagic = 0x4D4D5456u;  // "VTMM"

struct TensorMapRecord {
  std::uint32_t magic;
  std::uint32_t dtype;  // CUtensorMapDataType
  std::uint32_t rank;
  std::uint32_t swizzle;  // CUtensorMapSwizzle
  std::uint32_t oob_fill;
  std::uint32_t elem_bytes;
  const void* base;
  std::uint64_t dims[2];    // elements, innermost first
  std::uint64_t stride[1];  // bytes between consecutive indices of dimension 1
  std::uint32_t box[2];     // elements, innermost first
};
static_assert(sizeof(TensorMapRecord) <= sizeof(CUtensorMap), "the record fits the opaque map");

// The CUDA driver API's checks (cuTensorMapEncodeTiled documentation) for what the model
// supports: rank 1-2, 16-bit element types, 16-byte aligned base and strides, box sides in
// 1..256, inner box bytes <= the swizzle span (the model needs exactly 128 for SWIZZLE_128B).
CUresult encode_tiled(CUtensorMap* map, CUtensorMapDataType dtype, cuuint32_t rank, void* base, const cuuint64_t* dims,
                      const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* element_strides,
                      CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                      CUtensorMapFloatOOBfill oob);

// Throws ModelError when `map` was not built by encode_tiled.
[[nodiscard]] const TensorMapRecord& tensor_map_record(const void* map);

// Stands in for cudaGetDriverEntryPointByVersion: only "cuTensorMapEncodeTiled" is found.
cudaError_t model_get_driver_entry_point(const char* symbol, void** fn, unsigned version, unsigned long long flags,
                                         cudaDriverEntryPointQueryResult* status);

}  // namespace vsa::model
