// File identity for reports (util/file_digest.hpp): SHA-256 against the FIPS 180-2 test
// vectors, a file's size and digest, a missing file named.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "util/file_digest.hpp"
#include "scratch_dir.hpp"

namespace vsa {
namespace {

TEST(FileDigest, Sha256MatchesTheKnownVectors) {
  EXPECT_EQ(sha256_hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(FileDigest, AFileHasItsSizeAndDigest) {
  const test::ScratchDir scratch("digest");
  const std::string path = scratch.at("file");
  {
    std::ofstream out(path, std::ios::binary);
    // More than one read buffer (64 KiB), so the digest is fed in pieces.
    for (int i = 0; i < 100000; ++i) out << "abc";
  }
  const FileDigest d = digest_file(path);
  EXPECT_EQ(d.size, 300000u);
  std::string all;
  for (int i = 0; i < 100000; ++i) all += "abc";
  EXPECT_EQ(d.sha256, sha256_hex(all.data(), all.size()));
}

TEST(FileDigest, AMissingFileIsNamed) {
  try {
    (void)digest_file("/nonexistent/lib.so");
    FAIL();
  } catch (const FileDigestError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/lib.so"), std::string::npos);
  }
}

}  // namespace
}  // namespace vsa
