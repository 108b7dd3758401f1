#include "plugins/plugin_description.hpp"

namespace vsa {
namespace {

using nlohmann::json;

json list_json(const char* const* list) {
  json out = json::array();
  if (list)
    for (std::size_t i = 0; list[i]; ++i) out.push_back(list[i]);
  return out;
}

json lint_family_json(const vsa_plugin_lint_family& f) {
  return {{"label", f.label},
          {"mangled_prefix", f.mangled_prefix},
          {"arch", f.arch},
          {"mma_pattern", f.mma_pattern ? f.mma_pattern : ""},
          {"mma_description", f.mma_description ? f.mma_description : ""},
          {"hot", f.hot != 0},
          {"mma_exempt", list_json(f.mma_exempt)}};
}

json backend_json(const vsa_plugin_backend& b) {
  json ops = json::array();
  if (b.ops & VSA_PLUGIN_OP_FORWARD) ops.push_back("fwd");
  if (b.ops & VSA_PLUGIN_OP_BACKWARD) ops.push_back("bwd");
  json families = json::array();
  for (std::size_t i = 0; i < b.lint_family_count; ++i) families.push_back(lint_family_json(b.lint_families[i]));
  return {{"name", b.name},
          {"description", b.description},
          {"memory", b.memory == VSA_PLUGIN_MEMORY_HOST ? "host" : "device"},
          {"ops", ops},
          {"probes", list_json(b.probe_points)},
          {"probe_warp_masks", b.probe_warp_masks != 0},
          {"nondeterministic", list_json(b.nondeterministic_outputs)},
          {"images", list_json(b.compiled_images)},
          {"lint_families", families}};
}

}  // namespace

json describe_plugin(const PluginLibrary& library) {
  const vsa_plugin_table& t = *library.table;
  json build = json::object();
  for (std::size_t i = 0; i < t.build_info_count; ++i) build[t.build_info[i].key] = t.build_info[i].value;
  json backends = json::array();
  for (std::size_t i = 0; i < t.backend_count; ++i) backends.push_back(backend_json(t.backends[i]));
  return {{"path", library.path},
          {"plugin_name", t.plugin_name},
          {"abi_version", t.abi_version},
          {"build_info", build},
          {"backends", backends}};
}

json shape_query(const Shape& s, Op op) {
  return {{"B", s.batch},     {"H", s.heads},       {"nb", s.num_blocks}, {"D", s.head_dim},
          {"block", s.block}, {"max_kv", s.max_kv}, {"max_q", s.max_q},   {"op", op == Op::forward ? "fwd" : "bwd"}};
}

Shape query_shape(const json& q) {
  return Shape{q.at("B").get<int>(),     q.at("H").get<int>(),      q.at("nb").get<int>(),   q.at("D").get<int>(),
               q.at("block").get<int>(), q.at("max_kv").get<int>(), q.at("max_q").get<int>()};
}

Op query_op(const json& q) { return q.at("op").get<std::string>() == "bwd" ? Op::backward : Op::forward; }

std::string shape_key(const Shape& s, Op op) {
  return std::to_string(s.batch) + "," + std::to_string(s.heads) + "," + std::to_string(s.num_blocks) + "," +
         std::to_string(s.head_dim) + "," + std::to_string(s.block) + "," + std::to_string(s.max_kv) + "," +
         std::to_string(s.max_q) + (op == Op::forward ? ",fwd" : ",bwd");
}

}  // namespace vsa
