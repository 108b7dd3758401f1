// The .npy writer (dump/npy_writer.hpp): headers parse back to the dtype and
// shape written, data starts on a 64-byte boundary, and the bytes after the
// header are the data as given.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "dump/npy_writer.hpp"
#include "scratch_dir.hpp"

namespace vsa {
namespace {

namespace fs = std::filesystem;

struct ParsedHeader {
  int major = 0, minor = 0;
  std::size_t data_offset = 0;
  std::string descr, fortran_order;
  std::vector<std::int64_t> shape;
};

// An independent reading of the format (NEP 1), not the writer's own code.
ParsedHeader parse(const std::string& bytes) {
  ParsedHeader h;
  EXPECT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), std::string("\x93NUMPY", 6));
  h.major = static_cast<unsigned char>(bytes[6]);
  h.minor = static_cast<unsigned char>(bytes[7]);
  const std::size_t len =
      static_cast<unsigned char>(bytes[8]) | (std::size_t(static_cast<unsigned char>(bytes[9])) << 8);
  h.data_offset = 10 + len;
  const std::string dict = bytes.substr(10, len);
  EXPECT_EQ(dict.back(), '\n');
  std::smatch m;
  const std::regex re(
      R"(^\{'descr': '([<>|][a-z][0-9]+)', 'fortran_order': (True|False), 'shape': \(([0-9, ]*)\), \} *\n$)");
  EXPECT_TRUE(std::regex_match(dict, m, re)) << dict;
  if (m.size() != 4) return h;
  h.descr = m[1];
  h.fortran_order = m[2];
  const std::string dims = m[3];
  const std::regex number("[0-9]+");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number); it != std::sregex_iterator(); ++it)
    h.shape.push_back(std::stoll(it->str()));
  return h;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(NpyWriter, HeaderParsesBackAndAlignsData) {
  for (const auto& shape : std::vector<std::vector<std::int64_t>>{
           {2, 3}, {5}, {}, {1, 8, 16384, 128}, {0, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}}) {
    const std::string head = npy::header(npy::DType::f32, shape);
    const ParsedHeader h = parse(head);
    EXPECT_EQ(h.major, 1);
    EXPECT_EQ(h.minor, 0);
    EXPECT_EQ(h.data_offset, head.size());
    EXPECT_EQ(head.size() % 64, 0u) << head;
    EXPECT_EQ(h.descr, "<f4");
    EXPECT_EQ(h.fortran_order, "False");
    EXPECT_EQ(h.shape, shape);
  }
}

TEST(NpyWriter, OneDimensionalShapeIsAPythonOneTuple) {
  EXPECT_NE(npy::header(npy::DType::i32, {7}).find("'shape': (7,)"), std::string::npos);
  EXPECT_NE(npy::header(npy::DType::i32, {}).find("'shape': ()"), std::string::npos);
}

TEST(NpyWriter, DescrPerDType) {
  EXPECT_EQ(parse(npy::header(npy::DType::u16, {1})).descr, "<u2");
  EXPECT_EQ(parse(npy::header(npy::DType::i32, {1})).descr, "<i4");
  EXPECT_EQ(parse(npy::header(npy::DType::f32, {1})).descr, "<f4");
}

TEST(NpyWriter, FileHoldsHeaderThenDataBytes) {
  const test::ScratchDir scratch("npy-test");
  const fs::path& dir = scratch.path();
  const std::vector<float> f{1.0f, -2.5f, 0.0f, 3.25f, -0.0f, 1e-30f};
  const std::vector<std::int32_t> i{-1, 0, 1, 2147483647};
  const std::vector<std::uint16_t> u{0x3f80, 0xbf80, 0xffff};
  npy::write((dir / "f.npy").string(), {2, 3}, f);
  npy::write((dir / "i.npy").string(), {4}, i);
  npy::write((dir / "u.npy").string(), {1, 3}, u);
  const auto check = [](const std::string& bytes, const void* data, std::size_t n, const char* descr) {
    const ParsedHeader h = parse(bytes);
    EXPECT_EQ(h.descr, descr);
    ASSERT_EQ(bytes.size(), h.data_offset + n);
    EXPECT_EQ(std::memcmp(bytes.data() + h.data_offset, data, n), 0);
  };
  check(read_all(dir / "f.npy"), f.data(), f.size() * 4, "<f4");
  check(read_all(dir / "i.npy"), i.data(), i.size() * 4, "<i4");
  check(read_all(dir / "u.npy"), u.data(), u.size() * 2, "<u2");
  // Little-endian on disk: the first float 1.0f is 00 00 80 3f.
  const std::string fb = read_all(dir / "f.npy");
  const std::size_t off = parse(fb).data_offset;
  EXPECT_EQ(fb.substr(off, 4), std::string("\x00\x00\x80\x3f", 4));
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path() << " left behind";
}

TEST(NpyWriter, RefusesDataThatDoesNotFillTheShape) {
  const std::vector<float> f(5);
  EXPECT_THROW(npy::write("/nonexistent/never-written.npy", {2, 3}, f), std::invalid_argument);
  EXPECT_THROW((void)npy::header(npy::DType::f32, {2, -1}), std::invalid_argument);
}

TEST(NpyWriter, UnwritablePathThrows) {
  const std::vector<float> f(6);
  EXPECT_THROW(npy::write("/nonexistent-dir-vsa/x.npy", {2, 3}, f), std::runtime_error);
}

}  // namespace
}  // namespace vsa
