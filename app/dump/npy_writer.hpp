#pragma once
// NumPy .npy files (format version 1.0), written by hand: Debian has no maintained
// C++ npy library, and the format is a few lines. A file is the magic "\x93NUMPY",
// the version bytes 1 0, a little-endian uint16 header length, then a Python dict
// literal ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }) padded with
// spaces and ended by '\n' so the data starts at a multiple of 64 bytes, then the
// raw little-endian data in C (row-major) order.
#include <cstdint>
#include <string>
#include <vector>

namespace vsa::npy {

enum class DType { u16, i32, f32 };

// The header's dtype string: "<u2", "<i4", "<f4".
[[nodiscard]] const char* descr(DType dtype);
[[nodiscard]] std::size_t item_bytes(DType dtype);

// Magic, version, length and padded dict: everything before the data. Throws
// std::invalid_argument for a negative dimension or a header that version 1.0
// cannot hold (longer than 65535 bytes).
[[nodiscard]] std::string header(DType dtype, const std::vector<std::int64_t>& shape);

// Writes header + data through a temporary file and a rename. `bytes` must equal
// the product of the shape times the item size (checked: std::invalid_argument).
// Throws std::runtime_error when the file cannot be written.
void write(const std::string& path, DType dtype, const std::vector<std::int64_t>& shape, const void* data,
           std::size_t bytes);

void write(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<std::uint16_t>& data);
void write(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<std::int32_t>& data);
void write(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<float>& data);

}  // namespace vsa::npy
