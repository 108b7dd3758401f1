#include "plugins/plugin_library.hpp"

#include <dlfcn.h>

#include <cstring>
#include <filesystem>
#include <regex>
#include <set>
#include <string_view>

#include "plugins/plugin_error.hpp"

namespace vsa {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxBackendsPerPlugin = 256;
constexpr std::size_t kMaxNameLength = 64;
constexpr std::size_t kMaxListEntries = 64;  // images, nondeterministic outputs, exemptions

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw PluginError(where + ": " + what); }

// Backend names travel into report file rows, suite fields and command lines: the
// characters of the built-in names ("sm100a-blk64@model") and nothing that needs quoting.
bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                    ch == '_' || ch == '@' || ch == '+' || ch == '-';
    if (!ok) return false;
  }
  return true;
}

// A NULL-terminated list of strings; NULL is the empty list. Bounded, so a list missing
// its terminator is a finding instead of a walk through the library's memory.
std::size_t checked_list(const char* const* list, std::size_t limit, const std::string& where) {
  if (!list) return 0;
  for (std::size_t n = 0; n <= limit; ++n)
    if (!list[n]) return n;
  fail(where, "more than " + std::to_string(limit) + " entries (or a missing NULL terminator)");
}

void check_lint_family(const vsa_plugin_lint_family& f, const std::string& where) {
  if (!f.label || !*f.label) fail(where, "label is empty");
  if (!f.mangled_prefix || !*f.mangled_prefix)
    fail(where, "mangled_prefix is empty (it would put every kernel in the family)");
  if (!f.arch || std::string_view(f.arch).substr(0, 3) != "sm_")
    fail(where, "arch must name an SM image, e.g. \"sm_90a\"");
  if (f.mma_pattern && *f.mma_pattern && (!f.mma_description || !*f.mma_description))
    fail(where, "mma_pattern needs an mma_description for the finding's message");
  (void)checked_list(f.mma_exempt, kMaxListEntries, where + ".mma_exempt");
}

void check_backend(const vsa_plugin_backend& b, const std::string& where) {
  if (!b.name) fail(where, "name is NULL");
  const std::string at = where + " \"" + b.name + "\"";
  if (!valid_name(b.name))
    fail(at, "backend names are 1-" + std::to_string(kMaxNameLength) + " characters of [A-Za-z0-9._@+-]");
  if (!b.description) fail(at, "description is NULL");
  if (b.memory != VSA_PLUGIN_MEMORY_DEVICE && b.memory != VSA_PLUGIN_MEMORY_HOST)
    fail(at, "memory is " + std::to_string(b.memory) + " (VSA_PLUGIN_MEMORY_DEVICE or _HOST)");
  if (b.ops == 0 || (b.ops & ~(VSA_PLUGIN_OP_FORWARD | VSA_PLUGIN_OP_BACKWARD)) != 0)
    fail(at, "ops is " + std::to_string(b.ops) + " (VSA_PLUGIN_OP_FORWARD and/or _BACKWARD bits)");
  if (!b.supports) fail(at, "supports() is NULL (it is required)");
  if ((b.ops & VSA_PLUGIN_OP_FORWARD) && !b.forward) fail(at, "offers the forward op but forward() is NULL");
  if ((b.ops & VSA_PLUGIN_OP_BACKWARD) && !b.backward) fail(at, "offers the backward op but backward() is NULL");
  const std::size_t probes = checked_list(b.probe_points, VSA_PLUGIN_MAX_PROBES, at + ": probe_points");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < probes; ++i) {
    if (!*b.probe_points[i]) fail(at, "probe_points[" + std::to_string(i) + "] is empty");
    if (!seen.insert(b.probe_points[i]).second)
      fail(at, "probe point \"" + std::string(b.probe_points[i]) + "\" is listed twice");
  }
  static const std::set<std::string> outputs = {"out", "lse", "dq", "dk", "dv"};
  const std::size_t nondet =
      checked_list(b.nondeterministic_outputs, kMaxListEntries, at + ": nondeterministic_outputs");
  for (std::size_t i = 0; i < nondet; ++i)
    if (!outputs.count(b.nondeterministic_outputs[i]))
      fail(at, "nondeterministic output \"" + std::string(b.nondeterministic_outputs[i]) +
                   "\" is not one of out, lse, dq, dk, dv");
  const std::size_t images = checked_list(b.compiled_images, kMaxListEntries, at + ": compiled_images");
  static const std::regex image_name("(sm|compute)_[0-9]+[a-z]?");
  for (std::size_t i = 0; i < images; ++i)
    if (!std::regex_match(b.compiled_images[i], image_name))
      fail(at, "compiled image \"" + std::string(b.compiled_images[i]) +
                   "\" is not an SM or PTX target (sm_90a, compute_100)");
  if (b.lint_family_count > 0 && !b.lint_families) fail(at, "lint_family_count > 0 but lint_families is NULL");
  if (b.lint_family_count > kMaxListEntries)
    fail(at, "more than " + std::to_string(kMaxListEntries) + " lint families");
  for (std::size_t i = 0; i < b.lint_family_count; ++i)
    check_lint_family(b.lint_families[i], at + ": lint_families[" + std::to_string(i) + "]");
}

}  // namespace

void check_plugin_table(const vsa_plugin_table* table, const std::string& where) {
  if (!table) fail(where, std::string(VSA_PLUGIN_ENTRY_SYMBOL) + " returned no table (NULL)");
  // abi_version is the table's first field in every version: readable before anything else.
  if (table->abi_version != VSA_PLUGIN_ABI_VERSION)
    fail(where, "built against plugin ABI version " + std::to_string(table->abi_version) +
                    ", this vsa-bench loads version " + std::to_string(VSA_PLUGIN_ABI_VERSION) +
                    " only (rebuild the plugin against this vsa-bench's vsa/plugin.h)");
  if (!table->plugin_name || !*table->plugin_name) fail(where, "plugin_name is empty");
  if (table->build_info_count > 0 && !table->build_info) fail(where, "build_info_count > 0 but build_info is NULL");
  if (table->build_info_count > kMaxListEntries)
    fail(where, "more than " + std::to_string(kMaxListEntries) + " build_info entries");
  for (std::size_t i = 0; i < table->build_info_count; ++i)
    if (!table->build_info[i].key || !*table->build_info[i].key || !table->build_info[i].value)
      fail(where, "build_info[" + std::to_string(i) + "] needs a key and a value");
  if (table->backend_count == 0 || !table->backends) fail(where, "declares no backends");
  if (table->backend_count > kMaxBackendsPerPlugin)
    fail(where, "declares " + std::to_string(table->backend_count) + " backends (at most " +
                    std::to_string(kMaxBackendsPerPlugin) + ")");
  std::set<std::string> names;
  for (std::size_t i = 0; i < table->backend_count; ++i) {
    const auto& b = table->backends[i];
    check_backend(b, where + ": backends[" + std::to_string(i) + "]");
    if (!names.insert(b.name).second)
      fail(where, "duplicate backend name \"" + std::string(b.name) + "\" within the plugin");
  }
}

std::shared_ptr<const PluginLibrary> open_plugin(const std::string& given) {
  std::error_code ec;
  // An absolute path: dlopen of a bare name would search LD_LIBRARY_PATH and the system
  // library folders instead of the file the user named.
  const std::string path = fs::absolute(given, ec).lexically_normal().string();
  if (ec || !fs::is_regular_file(path, ec)) throw PluginError("plugin " + given + ": no such file");
  auto lib = std::make_shared<PluginLibrary>();
  lib->path = path;
  // RTLD_NOW: an unresolved symbol fails here, naming it, not at the first call. RTLD_LOCAL:
  // two plugins' symbols never interpose on each other.
  dlerror();
  lib->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle) {
    const char* why = dlerror();
    throw PluginError("plugin " + path + ": cannot be loaded: " + (why ? why : "dlopen failed"));
  }
  dlerror();
  void* entry = dlsym(lib->handle, VSA_PLUGIN_ENTRY_SYMBOL);
  if (!entry)
    throw PluginError("plugin " + path + ": no symbol " + VSA_PLUGIN_ENTRY_SYMBOL +
                      " (not a vsa-bench plugin, or the symbol is not exported: declare it with VSA_PLUGIN_EXPORT "
                      "from vsa/plugin.h, extern \"C\")");
  vsa_plugin_entry_fn fn = nullptr;
  static_assert(sizeof fn == sizeof entry, "dlsym returns function addresses as void*");
  std::memcpy(&fn, &entry, sizeof fn);
  lib->table = fn(VSA_PLUGIN_ABI_VERSION);
  check_plugin_table(lib->table, "plugin " + path);
  return lib;
}

}  // namespace vsa
