#include "util/file_digest.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <memory>

namespace vsa {
namespace {

struct DigestContext {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
  DigestContext() {
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
      throw FileDigestError("SHA-256: OpenSSL could not initialise a digest");
  }
  void update(const void* data, std::size_t size) {
    if (EVP_DigestUpdate(ctx.get(), data, size) != 1) throw FileDigestError("SHA-256: OpenSSL digest update failed");
  }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(ctx.get(), md.data(), &length) != 1)
      throw FileDigestError("SHA-256: OpenSSL digest final failed");
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) {
      out += digits[md[i] >> 4];
      out += digits[md[i] & 15];
    }
    return out;
  }
};

}  // namespace

std::string sha256_hex(const void* data, std::size_t size) {
  DigestContext d;
  d.update(data, size);
  return d.hex();
}

FileDigest digest_file(const std::string& path) {
  std::unique_ptr<std::FILE, decltype(&std::fclose)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw FileDigestError(path + ": cannot be opened to compute its SHA-256");
  DigestContext d;
  FileDigest out;
  std::array<unsigned char, 1 << 16> buf{};
  for (;;) {
    const std::size_t n = std::fread(buf.data(), 1, buf.size(), f.get());
    if (n > 0) {
      d.update(buf.data(), n);
      out.size += n;
    }
    if (n < buf.size()) {
      if (std::ferror(f.get())) throw FileDigestError(path + ": read error while computing its SHA-256");
      break;
    }
  }
  out.sha256 = d.hex();
  return out;
}

std::string sha256_or_unreadable(const std::string& path) {
  try {
    return digest_file(path).sha256;
  } catch (const FileDigestError&) {
    return "unreadable";
  }
}

}  // namespace vsa
