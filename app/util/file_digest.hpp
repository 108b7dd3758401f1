#pragma once
// A file's identity for reports: its size and SHA-256 (OpenSSL libcrypto, linked
// statically so vsa-bench stays self-contained). What says "rack 1 ran a different build
// of the kernel" when two reports name the same plugin path.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace vsa {

struct FileDigest {
  std::uint64_t size = 0;
  std::string sha256;  // 64 lowercase hex digits
};

class FileDigestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads the whole file. Throws FileDigestError naming the file when it cannot be read.
[[nodiscard]] FileDigest digest_file(const std::string& path);

// The file's SHA-256, or "unreadable": for saying whether a library is the build a report
// recorded, where an unreadable file is an answer, not an error.
[[nodiscard]] std::string sha256_or_unreadable(const std::string& path);

// SHA-256 of bytes in memory, as hex (tests check it against known vectors).
[[nodiscard]] std::string sha256_hex(const void* data, std::size_t size);

}  // namespace vsa
