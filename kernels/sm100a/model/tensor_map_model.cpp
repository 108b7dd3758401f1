#include "tensor_map_model.hpp"

#include <cstring>
#include <string>

#include "scheduler.hpp"  // ModelError

namespace vsa::model {

CUresult encode_tiled(CUtensorMap* map, CUtensorMapDataType dtype, cuuint32_t rank, void* base, const cuuint64_t* dims,
                      const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* element_strides,
                      CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion,
                      CUtensorMapFloatOOBfill oob) {
  if (map == nullptr || base == nullptr || dims == nullptr || box == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (rank < 1 || rank > 2) return CUDA_ERROR_INVALID_VALUE;  // the model's TMA covers 1-D and 2-D maps
  if (dtype != CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 && dtype != CU_TENSOR_MAP_DATA_TYPE_FLOAT16 &&
      dtype != CU_TENSOR_MAP_DATA_TYPE_UINT16)
    return CUDA_ERROR_INVALID_VALUE;
  if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE) return CUDA_ERROR_INVALID_VALUE;
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0) return CUDA_ERROR_INVALID_VALUE;
  const std::uint32_t es = 2;
  TensorMapRecord r{};
  r.magic = kTensorMapMagic;
  r.dtype = dtype;
  r.rank = rank;
  r.swizzle = swizzle;
  r.oob_fill = oob;
  r.elem_bytes = es;
  r.base = base;
  for (cuuint32_t i = 0; i < rank; ++i) {
    if (dims[i] == 0 || dims[i] > (std::uint64_t(1) << 32)) return CUDA_ERROR_INVALID_VALUE;
    if (box[i] == 0 || box[i] > 256) return CUDA_ERROR_INVALID_VALUE;
    if (element_strides != nullptr && element_strides[i] != 1) return CUDA_ERROR_INVALID_VALUE;  // not modelled
    r.dims[i] = dims[i];
    r.box[i] = box[i];
  }
  if (rank == 2) {
    if (strides == nullptr || strides[0] % 16 != 0 || strides[0] < dims[0] * es) return CUDA_ERROR_INVALID_VALUE;
    r.stride[0] = strides[0];
  } else {
    r.dims[1] = 1;
    r.box[1] = 1;
    r.stride[0] = dims[0] * es;
  }
  if ((box[0] * es) % 16 != 0) return CUDA_ERROR_INVALID_VALUE;
  if (swizzle == CU_TENSOR_MAP_SWIZZLE_128B) {
    if (box[0] * es > 128) return CUDA_ERROR_INVALID_VALUE;   // inner box dimension within the swizzle span
    if (box[0] * es != 128) return CUDA_ERROR_NOT_SUPPORTED;  // the model lays out full 128-byte rows only
  } else if (swizzle != CU_TENSOR_MAP_SWIZZLE_NONE) {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  std::memset(map, 0, sizeof(*map));
  std::memcpy(map, &r, sizeof(r));
  return CUDA_SUCCESS;
}

const TensorMapRecord& tensor_map_record(const void* map) {
  const auto* r = static_cast<const TensorMapRecord*>(map);
  if (map == nullptr || r->magic != kTensorMapMagic)
    throw ModelError("cp.async.bulk.tensor: the tensor map was not built by the model's cuTensorMapEncodeTiled");
  return *r;
}

namespace {
CUresult CUDAAPI encode_entry(CUtensorMap* map, CUtensorMapDataType dtype, cuuint32_t rank, void* base,
                              const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                              const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                              CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  return encode_tiled(map, dtype, rank, base, dims, strides, box, element_strides, interleave, swizzle, l2, oob);
}
}  // namespace

cudaError_t model_get_driver_entry_point(const char* symbol, void** fn, unsigned, unsigned long long,
                                         cudaDriverEntryPointQueryResult* status) {
  if (fn == nullptr || symbol == nullptr) return cudaErrorInvalidValue;
  if (std::string(symbol) == "cuTensorMapEncodeTiled") {
    *fn = reinterpret_cast<void*>(&encode_entry);
    if (status) *status = cudaDriverEntryPointSuccess;
    return cudaSuccess;
  }
  *fn = nullptr;
  if (status) *status = cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}

}  // namespace vsa::model
