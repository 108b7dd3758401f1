#include "sass/listing.hpp"
#include "util/strings.hpp"

#include <cxxabi.h>

#include <charconv>
#include <cstdlib>
#include <memory>

namespace vsa::sass {

namespace {

std::string_view after(std::string_view s, std::string_view prefix) { return trim(s.substr(prefix.size())); }

// "REG:255 STACK:1088 SHARED:0 LOCAL:0 CONSTANT[0]:548 ..."
ResourceUsage parse_usage(std::string_view line) {
  ResourceUsage usage;
  line = trim(line);
  while (!line.empty()) {
    const auto space = line.find(' ');
    const auto item = line.substr(0, space);
    line = space == std::string_view::npos ? std::string_view() : trim(line.substr(space));
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) continue;
    const auto key = item.substr(0, colon);
    const auto digits = item.substr(colon + 1);
    std::int64_t value = 0;
    if (std::from_chars(digits.data(), digits.data() + digits.size(), value).ec != std::errc()) continue;
    if (key == "REG") usage.registers = static_cast<int>(value);
    if (key == "STACK") usage.stack_bytes = value;
    if (key == "SHARED") usage.shared_bytes = value;
    if (key == "LOCAL") usage.local_bytes = value;
  }
  return usage;
}

}  // namespace

void ListingParser::feed_line(std::string_view line) {
  if (m_expect_high_word) {
    m_expect_high_word = false;
    if (const auto word = parse_high_word_line(line); word && !m_listing.kernels.empty()) {
      auto& inst = m_listing.kernels.back().instructions.back();
      inst.high_word = *word;
      inst.control = decode_control_bits(*word);
      return;
    }
  }
  if (auto inst = parse_instruction_line(line)) {
    if (m_listing.kernels.empty()) return;  // instructions outside a function: not a SASS listing
    m_listing.kernels.back().instructions.push_back(std::move(*inst));
    m_expect_high_word = true;
    return;
  }

  const auto text = trim(line);
  if (text == "Fatbin elf code:") {
    // A fat binary: one header per ELF image. A bare cubin has no header and is image 0.
    ++m_image;
    m_in_resources = false;
    return;
  }
  if (text.starts_with("arch = ")) {
    m_arch = std::string(after(text, "arch = "));
    return;
  }
  if (text.starts_with("code for ")) {
    m_arch = std::string(after(text, "code for "));
    m_in_resources = false;
    return;
  }
  if (text == "Resource usage:") {
    m_in_resources = true;
    return;
  }
  if (text.starts_with("Function : ")) {
    m_in_resources = false;
    Kernel kernel;
    kernel.name = std::string(after(text, "Function : "));
    kernel.arch = m_arch;
    kernel.image = m_image < 0 ? 0 : m_image;
    m_listing.kernels.push_back(std::move(kernel));
    return;
  }
  if (m_in_resources) {
    if (text.starts_with("Function ") && text.ends_with(':')) {
      m_resource_function = std::string(trim(text.substr(9, text.size() - 10)));
    } else if (text.starts_with("REG:") && !m_resource_function.empty()) {
      m_resources.push_back({m_image < 0 ? 0 : m_image, m_resource_function, parse_usage(text)});
      m_resource_function.clear();
    }
  }
}

Listing ListingParser::finish() {
  for (auto& kernel : m_listing.kernels) {
    for (const auto& entry : m_resources) {
      if (entry.image == kernel.image && entry.name == kernel.name) kernel.resources = entry.usage;
    }
  }
  m_resources.clear();
  return std::move(m_listing);
}

Listing parse_listing(std::string_view text) {
  ListingParser parser;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    parser.feed_line(text.substr(0, newline));
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
  }
  return parser.finish();
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                   std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

}  // namespace vsa::sass
