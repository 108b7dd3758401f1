#pragma once
// Files written so a reader never sees half of one: through a temp file of a unique
// name, fsync'd, renamed over the target, and the folder fsync'd. A symbolic link keeps
// pointing where it did (the file it names is replaced); a FIFO or device (`--jsonl
// /dev/stdout`) is written into, never replaced.
#include <initializer_list>
#include <string>
#include <string_view>

namespace vsa {

void write_file_atomic(const std::string& path, const std::string& content);
// Binary form: the parts in order, through the same temp file + rename (dump/npy_writer.cpp).
void write_file_atomic(const std::string& path, std::initializer_list<std::string_view> parts);

// Creates STEM + EXTENSION, or STEM-2 + EXTENSION, STEM-3 ... whichever does not exist
// yet, atomically (O_EXCL): two runs that would name their reports alike get one each.
// Returns the path of the (empty) file created.
[[nodiscard]] std::string reserve_new_file(const std::string& stem, const std::string& extension);

}  // namespace vsa
