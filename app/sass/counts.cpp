#include "sass/counts.hpp"

#include <map>
#include <set>
#include <string_view>
#include <utility>

namespace vsa::sass {

namespace {

// Opcode prefixes of each class, in count_classes() order. A prefix matches the opcode
// up to a modifier boundary ("BAR" matches "BAR.SYNC", not "BARX").
struct ClassRule {
  CountClass id;
  std::vector<std::string_view> prefixes;
};

const std::vector<ClassRule>& rules() {
  static const std::vector<ClassRule> table = {
      {{"mma", "tensor-core MMA (HGMMA, HMMA, UTC*MMA)"},
       {"HGMMA", "HMMA", "UTCHMMA", "UTCQMMA", "UTCIMMA", "UTCOMMA"}},
      {{"wgmma_wait", "WARPGROUP.DEPBAR: waits for wgmma groups (one per MMA = serialised)"}, {"WARPGROUP.DEPBAR"}},
      {{"wgmma_arrive", "WARPGROUP.ARRIVE: wgmma fences"}, {"WARPGROUP.ARRIVE"}},
      {{"divergent", "BSSY: divergent regions the compiler opened"}, {"BSSY"}},
      {{"branch", "BRA / BRX / JMP"}, {"BRA", "BRX", "JMP"}},
      {{"bar", "named / CTA barriers (BAR.*)"}, {"BAR"}},
      {{"mbarrier", "mbarrier and async-copy syncs (SYNCS.*)"}, {"SYNCS"}},
      {{"tma", "TMA and bulk copies (UTMALDG, UTMASTG, UBLKCP, UBLKRED, ...)"},
       {"UTMALDG", "UTMASTG", "UTMAREDG", "UTMAPF", "UBLKCP", "UBLKRED", "UBLKPF"}},
      {{"global_load", "LDG"}, {"LDG"}},
      {{"global_store", "STG, RED, ATOM to global memory"}, {"STG", "RED", "REDG", "ATOM", "ATOMG"}},
      {{"shared", "LDS, STS, LDSM, STSM, ATOMS"}, {"LDS", "STS", "LDSM", "STSM", "ATOMS"}},
      {{"local", "LDL, STL: spills or local arrays"}, {"LDL", "STL"}},
      {{"shuffle", "SHFL"}, {"SHFL"}},
      {{"mufu", "MUFU: exp2, rcp, ... (softmax)"}, {"MUFU"}},
      // Runs 39 and 41 (kernels/sm90a/notes/runs.md): a restructured loop lost its uniform
      // datapath and every wgmma descriptor arrived through R2UR, with the block loop 4.6%
      // slower. Run 44: the backward's 96 per loop cost nothing. A symptom to diff, not a rule.
      {{"uniform_move",
        "R2UR: a vector value moved to a uniform register (e.g. a wgmma descriptor ptxas "
        "could not keep uniform)"},
       {"R2UR"}},
  };
  return table;
}

bool prefix_matches(std::string_view opcode, std::string_view prefix) {
  return opcode.starts_with(prefix) && (opcode.size() == prefix.size() || opcode[prefix.size()] == '.');
}

std::string signed_delta(int d) {
  std::string out = d > 0 ? std::string("+") : std::string();
  out += std::to_string(d);
  return out;
}

// The demangled name without its parameter list: cut at the first '(' outside template
// arguments that does not open "(anonymous namespace)", or every kernel in one reads "vsa::".
std::string short_name(const std::string& mangled) {
  const std::string name = demangle(mangled);
  static constexpr std::string_view kAnonymous = "(anonymous namespace)";
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name.compare(i, kAnonymous.size(), kAnonymous) == 0) {
      i += kAnonymous.size() - 1;
    } else if (name[i] == '<') {
      ++depth;
    } else if (name[i] == '>' && depth > 0) {
      --depth;
    } else if (name[i] == '(' && depth == 0) {
      return name.substr(0, i);
    }
  }
  return name;
}

}  // namespace

const std::vector<CountClass>& count_classes() {
  static const std::vector<CountClass> classes = [] {
    std::vector<CountClass> out;
    for (const auto& rule : rules()) out.push_back(rule.id);
    return out;
  }();
  return classes;
}

int count_class_of(const Instruction& instruction) {
  const auto& table = rules();
  // Longest prefix first would only matter for overlapping prefixes across classes;
  // the table has none (WARPGROUP.DEPBAR vs WARPGROUP.ARRIVE differ after the dot).
  for (std::size_t c = 0; c < table.size(); ++c)
    for (const auto prefix : table[c].prefixes)
      if (prefix_matches(instruction.opcode, prefix)) return int(c);
  return -1;
}

std::vector<KernelCounts> kernel_counts(const Listing& listing) {
  std::vector<KernelCounts> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& kernel : listing.kernels) {
    if (!seen.emplace(kernel.name, kernel.arch).second) continue;
    KernelCounts k;
    k.name = kernel.name;
    k.arch = kernel.arch;
    k.instructions = kernel.instructions.size();
    if (kernel.resources) {
      k.registers = kernel.resources->registers;
      k.stack_bytes = kernel.resources->stack_bytes;
    }
    k.counts.assign(rules().size(), 0);
    for (const auto& instruction : kernel.instructions)
      if (const int c = count_class_of(instruction); c >= 0) ++k.counts[std::size_t(c)];
    out.push_back(std::move(k));
  }
  return out;
}

std::vector<CountChange> compare_counts(const std::vector<KernelCounts>& a, const std::vector<KernelCounts>& b) {
  std::map<std::pair<std::string, std::string>, const KernelCounts*> in_b;
  for (const auto& k : b) in_b.emplace(std::pair{k.name, k.arch}, &k);
  std::vector<CountChange> out;
  std::set<std::pair<std::string, std::string>> matched;
  for (const auto& k : a) {
    const auto it = in_b.find({k.name, k.arch});
    if (it == in_b.end()) {
      out.push_back({k.name, k.arch, &k, nullptr});
      continue;
    }
    matched.insert(it->first);
    const KernelCounts& other = *it->second;
    if (k.counts != other.counts || k.instructions != other.instructions || k.registers != other.registers ||
        k.stack_bytes != other.stack_bytes)
      out.push_back({k.name, k.arch, &k, &other});
  }
  for (const auto& k : b)
    if (!matched.contains({k.name, k.arch})) out.push_back({k.name, k.arch, nullptr, &k});
  return out;
}

std::string format_counts(const std::vector<KernelCounts>& kernels) {
  std::string out = "kernel | arch | instructions | registers | stack";
  for (const auto& c : count_classes()) out += " | " + c.id;
  out += "\n";
  for (const auto& k : kernels) {
    out += short_name(k.name) + " | " + k.arch + " | " + std::to_string(k.instructions) + " | " +
           (k.registers < 0 ? "-" : std::to_string(k.registers)) + " | " +
           (k.stack_bytes < 0 ? "-" : std::to_string(k.stack_bytes));
    for (const int n : k.counts) out += " | " + std::to_string(n);
    out += "\n";
  }
  return out;
}

std::string format_changes(const std::vector<CountChange>& changes) {
  if (changes.empty()) return "no kernel's counts changed\n";
  std::string out;
  for (const auto& change : changes) {
    out += short_name(change.name) + " [" + change.arch + "] (" + change.name + ")\n";
    if (!change.a || !change.b) {
      out += std::string("  only in ") + (change.a ? "A" : "B") + "\n";
      continue;
    }
    const KernelCounts& a = *change.a;
    const KernelCounts& b = *change.b;
    auto line = [&out](const std::string& what, std::int64_t x, std::int64_t y) {
      if (x != y)
        out += "  " + what + " " + std::to_string(x) + " -> " + std::to_string(y) + " (" + signed_delta(int(y - x)) +
               ")\n";
    };
    line("instructions", std::int64_t(a.instructions), std::int64_t(b.instructions));
    line("registers", a.registers, b.registers);
    line("stack", a.stack_bytes, b.stack_bytes);
    for (std::size_t c = 0; c < count_classes().size(); ++c) line(count_classes()[c].id, a.counts[c], b.counts[c]);
  }
  return out;
}

}  // namespace vsa::sass
