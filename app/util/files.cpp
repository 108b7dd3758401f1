#include "util/files.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace vsa {

void write_file_atomic(const std::string& path, std::initializer_list<std::string_view> parts) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp);
    for (const auto part : parts) out.write(part.data(), std::streamsize(part.size()));
    out.flush();
    if (!out) throw std::runtime_error("write failed: " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp + " to " + path);
}

void write_file_atomic(const std::string& path, const std::string& content) { write_file_atomic(path, {content}); }

}  // namespace vsa
