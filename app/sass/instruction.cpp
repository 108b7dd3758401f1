#include "sass/instruction.hpp"
#include "util/strings.hpp"

#include <array>
#include <charconv>
#include <cstdio>

namespace vsa::sass {

namespace {

std::optional<std::uint64_t> parse_hex(std::string_view digits) {
  if (digits.starts_with("0x")) digits.remove_prefix(2);
  if (digits.empty()) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// "/* 0x000e220008000800 */" -> the word; the comment must be all of `s`.
std::optional<std::uint64_t> parse_word_comment(std::string_view s) {
  s = trim(s);
  if (!s.starts_with("/*") || !s.ends_with("*/")) return std::nullopt;
  return parse_hex(trim(s.substr(2, s.size() - 4)));
}

bool is_predicate_token(std::string_view token) {
  if (token.starts_with('!')) token.remove_prefix(1);
  if (token.starts_with('U')) token.remove_prefix(1);
  return token.size() >= 2 && token[0] == 'P' && (token[1] == 'T' || (token[1] >= '0' && token[1] <= '9'));
}

}  // namespace

std::string_view Instruction::base_opcode() const {
  const std::string_view op(opcode);
  return op.substr(0, op.find('.'));
}

bool Instruction::opcode_starts_with(std::string_view prefix) const {
  return std::string_view(opcode).starts_with(prefix);
}

bool Instruction::unconditional() const {
  if (!predicate.empty() && predicate != "@PT") return false;
  const std::string_view ops(operands);
  return !is_predicate_token(trim(ops.substr(0, ops.find(','))));
}

std::optional<std::uint32_t> Instruction::control_target() const {
  static constexpr std::array<std::string_view, 6> kWithTarget = {"BRA", "BRX", "JMP", "JMX", "CALL", "BSSY"};
  const auto base = base_opcode();
  bool has_target = false;
  for (const auto op : kWithTarget) has_target = has_target || base == op;
  if (!has_target) return std::nullopt;
  const std::string_view ops(operands);
  const auto last = trim(ops.substr(ops.rfind(',') == std::string_view::npos ? 0 : ops.rfind(',') + 1));
  if (!last.starts_with("0x")) return std::nullopt;  // register-indirect (BRX R4) or symbolic
  const auto value = parse_hex(last);
  if (!value) return std::nullopt;
  return static_cast<std::uint32_t>(*value);
}

std::string Instruction::text() const {
  std::string out = "/*" + format_offset(offset).substr(2) + "*/ ";
  if (!predicate.empty()) out += predicate + " ";
  out += opcode;
  if (!operands.empty()) out += " " + operands;
  return out;
}

std::optional<Instruction> parse_instruction_line(std::string_view line) {
  line = trim(line);
  if (!line.starts_with("/*")) return std::nullopt;
  const auto offset_end = line.find("*/");
  if (offset_end == std::string_view::npos) return std::nullopt;
  const auto offset = parse_hex(line.substr(2, offset_end - 2));
  if (!offset) return std::nullopt;  // "/* 0x... */" high-word lines start with a space
  const auto word_start = line.rfind("/*");
  if (word_start <= offset_end) return std::nullopt;
  const auto low_word = parse_word_comment(line.substr(word_start));
  if (!low_word) return std::nullopt;

  std::string_view text = trim(line.substr(offset_end + 2, word_start - offset_end - 2));
  if (text.ends_with(';')) text = trim(text.substr(0, text.size() - 1));
  if (text.empty()) return std::nullopt;

  Instruction inst;
  inst.offset = static_cast<std::uint32_t>(*offset);
  inst.low_word = *low_word;
  if (text.starts_with('@')) {
    const auto space = text.find(' ');
    inst.predicate = std::string(text.substr(0, space));
    text = space == std::string_view::npos ? std::string_view() : trim(text.substr(space));
  }
  const auto space = text.find(' ');
  inst.opcode = std::string(text.substr(0, space));
  if (space != std::string_view::npos) inst.operands = std::string(trim(text.substr(space)));
  return inst;
}

std::optional<std::uint64_t> parse_high_word_line(std::string_view line) { return parse_word_comment(line); }

std::string format_offset(std::uint32_t offset) {
  std::array<char, 16> buf{};
  std::snprintf(buf.data(), buf.size(), "0x%04x", offset);
  return buf.data();
}

}  // namespace vsa::sass
