#include "util/json_input.hpp"

#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include <sys/stat.h>

#include "util/json_member_path.hpp"

namespace vsa {
namespace {

using nlohmann::json;

// nlohmann's own DOM builder, behind a SAX layer that tracks where it is: the
// path for messages, the depth for the bound.
class BoundedSax {
 public:
  BoundedSax(json& result, int max_depth) : m_dom(result, true), m_max_depth(max_depth) {}

  bool null() { return element() && m_dom.null(); }
  bool boolean(bool v) { return element() && m_dom.boolean(v); }
  bool number_integer(json::number_integer_t v) { return element() && m_dom.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return element() && m_dom.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) { return element() && m_dom.number_float(v, s); }
  bool string(json::string_t& v) { return element() && m_dom.string(v); }
  bool binary(json::binary_t& v) { return element() && m_dom.binary(v); }
  bool start_object(std::size_t n) { return element() && open(false) && m_dom.start_object(n); }
  bool key(json::string_t& k) {
    m_frames.back().key = k;
    m_frames.back().keyed = true;
    // nlohmann keeps the last of two equal keys: {"S": 256, "S": 128} ran S = 128 without a word,
    // where every unknown key is an error.
    if (!m_frames.back().keys.insert(k).second)
      throw JsonInputError(path(false) + ": given twice in one object (the last would silently win)");
    return m_dom.key(k);
  }
  bool end_object() {
    m_frames.pop_back();
    return m_dom.end_object();
  }
  bool start_array(std::size_t n) { return element() && open(true) && m_dom.start_array(n); }
  bool end_array() {
    m_frames.pop_back();
    return m_dom.end_array();
  }
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& e) {
    std::string what = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 1, column 5: ": keep the text after the
    // id.
    if (const auto close = what.find("] "); close != std::string::npos) what = what.substr(close + 2);
    throw JsonInputError(path(true) + ": " + what + " (byte " + std::to_string(position) +
                         (token.empty() ? "" : ", near '" + token.substr(0, 40) + "'") + ")");
  }

 private:
  struct Frame {
    bool array = false;
    std::size_t next = 0;        // array: elements started so far
    std::string key;             // object: the key being read
    bool keyed = false;          // object: a key has been read (an empty key is a key)
    std::set<std::string> keys;  // object: those read so far
  };

  // A value starts: in an array it takes the next index.
  bool element() {
    if (!m_frames.empty() && m_frames.back().array) ++m_frames.back().next;
    return true;
  }
  bool open(bool array) {
    if (int(m_frames.size()) >= m_max_depth)
      throw JsonInputError(path(false) + ": nested deeper than " + std::to_string(m_max_depth) + " levels");
    m_frames.push_back({array, 0, {}, false, {}});
    return true;
  }
  // at_error: the innermost array's failing element is the one after the last started.
  std::string path(bool at_error) const {
    std::string p = "$";
    for (std::size_t i = 0; i < m_frames.size(); ++i) {
      const Frame& f = m_frames[i];
      if (f.array) {
        const bool innermost = i + 1 == m_frames.size();
        const std::size_t index = innermost && at_error ? f.next : (f.next ? f.next - 1 : 0);
        p += "[" + std::to_string(index) + "]";
      } else if (f.keyed) {
        p += member_segment(f.key);
      }
    }
    return p;
  }

  nlohmann::detail::json_sax_dom_parser<json> m_dom;
  int m_max_depth;
  std::vector<Frame> m_frames;
};

}  // namespace

std::string read_input_file(const std::string& path, std::uint64_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw JsonInputError("cannot read (no such file)");
  if (!S_ISREG(st.st_mode)) throw JsonInputError("not a regular file (a FIFO, device or folder): refused");
  if (std::uint64_t(st.st_size) > max_bytes)
    throw JsonInputError("is " + std::to_string(st.st_size) + " bytes, more than the limit of " +
                         std::to_string(max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw JsonInputError("cannot read");
  std::string text(std::size_t(st.st_size), '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(std::size_t(in.gcount()));
  return text;
}

json parse_json_input(const std::string& text, int max_depth) {
  json result;
  BoundedSax sax(result, max_depth);
  json::sax_parse(text, &sax);
  return result;
}

}  // namespace vsa
