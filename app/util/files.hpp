#pragma once
// Files written so a reader never sees half of one: through a temp file of a unique
// name, fsync'd, renamed over the target, and the folder fsync'd. A symbolic link keeps
// pointing where it did (the file it names is replaced); a FIFO or device (`--jsonl
// /dev/stdout`) is written into, never replaced.
#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace vsa {

void write_file_atomic(const std::string& path, const std::string& content);
// Binary form: the parts in order, through the same temp file + rename (dump/npy_writer.cpp).
void write_file_atomic(const std::string& path, std::initializer_list<std::string_view> parts);

// How long write_file_atomic waits for a reader of a FIFO target before it gives up with an
// error naming the path: the report is written by then (its own file), so a `--jsonl FIFO`
// whose reader never came fails the run's end instead of hanging it.
inline constexpr std::chrono::milliseconds kFifoReaderWait{60000};
// What write_file_atomic does with a target that exists and is no regular file (a FIFO, a
// device): writes into it, waiting at most `reader_wait` for a FIFO's reader.
void write_into_special_file(const std::string& path, std::initializer_list<std::string_view> parts,
                             std::chrono::milliseconds reader_wait);

// The descriptor of this process a path names (/dev/stdout 1, /dev/stderr 2, /dev/fd/N and
// /proc/self/fd/N: N), else nothing. write_file_atomic writes such a path to the descriptor,
// where it points already (a shell's `>> log` keeps its offset): opened again, the path would
// start at byte 0 of that file, and a rename over it would replace the file the shell opened.
[[nodiscard]] std::optional<int> own_descriptor(const std::string& path);

// The file a chain of symbolic links ends at (the path itself when it is none; at most 40
// links): what write_file_atomic replaces, leaving the links as they were.
[[nodiscard]] std::string link_target(const std::string& path);

// Creates STEM + EXTENSION, or STEM-2 + EXTENSION, STEM-3 ... whichever does not exist
// yet, atomically (O_EXCL): two runs that would name their reports alike get one each.
// Returns the path of the (empty) file created.
[[nodiscard]] std::string reserve_new_file(const std::string& stem, const std::string& extension);

}  // namespace vsa
