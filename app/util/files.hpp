#pragma once
// Files written so a reader never sees half of one: through a temp file + rename.
#include <initializer_list>
#include <string>
#include <string_view>

namespace vsa {

void write_file_atomic(const std::string& path, const std::string& content);
// Binary form: the parts in order, through the same temp file + rename (dump/npy_writer.cpp).
void write_file_atomic(const std::string& path, std::initializer_list<std::string_view> parts);

}  // namespace vsa
