#include "dump/npy_writer.hpp"

#include <bit>
#include <stdexcept>

#include "util/files.hpp"

namespace vsa::npy {

// The data is written as it lies in memory; the header says little-endian.
static_assert(std::endian::native == std::endian::little, "npy_writer writes host memory as little-endian data");

namespace {

constexpr char kMagic[] = "\x93NUMPY";      // 6 bytes (+ the literal's NUL, not written)
constexpr std::size_t kPreambleBytes = 10;  // magic, 2 version bytes, uint16 header length
constexpr std::size_t kAlignment = 64;      // numpy pads the header so data is 64-byte aligned

std::string shape_tuple(const std::vector<std::int64_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) throw std::invalid_argument("npy: negative dimension " + std::to_string(shape[i]));
    text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";  // a Python 1-tuple needs the comma
  return text + ")";
}

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

}  // namespace

const char* descr(DType dtype) {
  switch (dtype) {
    case DType::u16:
      return "<u2";
    case DType::i32:
      return "<i4";
    case DType::f32:
      return "<f4";
  }
  throw std::invalid_argument("npy: unknown dtype");
}

std::size_t item_bytes(DType dtype) {
  switch (dtype) {
    case DType::u16:
      return 2;
    case DType::i32:
      return 4;
    case DType::f32:
      return 4;
  }
  throw std::invalid_argument("npy: unknown dtype");
}

std::string header(DType dtype, const std::vector<std::int64_t>& shape) {
  std::string dict =
      std::string("{'descr': '") + descr(dtype) + "', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
  const std::size_t unpadded = kPreambleBytes + dict.size() + 1;  // + the closing '\n'
  dict.append((kAlignment - unpadded % kAlignment) % kAlignment, ' ');
  dict += '\n';
  if (dict.size() > 0xffff) throw std::invalid_argument("npy: header too long for format version 1.0");
  std::string out(kMagic, 6);
  out += char(1);  // major version
  out += char(0);  // minor version
  out += char(dict.size() & 0xff);
  out += char(dict.size() >> 8);
  return out + dict;
}

void write(const std::string& path, DType dtype, const std::vector<std::int64_t>& shape, const void* data,
           std::size_t bytes) {
  const std::string head = header(dtype, shape);
  if (std::size_t(element_count(shape)) * item_bytes(dtype) != bytes)
    throw std::invalid_argument("npy: " + path + ": " + std::to_string(bytes) + " bytes of data do not fill shape " +
                                shape_tuple(shape) + " of " + descr(dtype));
  write_file_atomic(path, {head, std::string_view(static_cast<const char*>(data), bytes)});
}

void write(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<std::uint16_t>& data) {
  write(path, DType::u16, shape, data.data(), data.size() * sizeof(std::uint16_t));
}

void write(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<std::int32_t>& data) {
  write(path, DType::i32, shape, data.data(), data.size() * sizeof(std::int32_t));
}

void write(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<float>& data) {
  write(path, DType::f32, shape, data.data(), data.size() * sizeof(float));
}

}  // namespace vsa::npy
