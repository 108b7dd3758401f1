#pragma once
// Reading JSON that a user or another machine wrote (suites, reports): only a regular
// file (a FIFO or /dev/zero would block or grow without bound), at most a size cap,
// nesting bounded (nlohmann's DOM and its error messages recurse: 10^5 levels overflow
// the stack), and a parse error named by the JSON path where it happened
// ("$.cases[0].scale: number overflow parsing '1e400'").
#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace vsa {

inline constexpr std::uint64_t kMaxJsonInputBytes = 256ull << 20;  // a 1000-case report is ~10 MB
inline constexpr int kMaxJsonDepth = 64;                           // our documents nest < 10 deep

// `what` says what is wrong; the caller adds the file name.
class JsonInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The contents of a regular file of at most max_bytes; throws JsonInputError otherwise.
[[nodiscard]] std::string read_input_file(const std::string& path, std::uint64_t max_bytes = kMaxJsonInputBytes);

// Parses `text`; throws JsonInputError "PATH: what" on a syntax error, a number beyond
// double range, or nesting deeper than max_depth.
[[nodiscard]] nlohmann::json parse_json_input(const std::string& text, int max_depth = kMaxJsonDepth);

}  // namespace vsa
