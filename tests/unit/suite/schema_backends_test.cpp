// The suite schema (docs/schema/suite.schema.json, $defs.known_backend) lists the backend
// names a suite may use; the C++ list is vsa::known_backend_names() plus the aliases
// ("@fast"). The two are written by hand in two languages, so this test keeps them equal:
// a backend added to the registry but not to the schema makes every suite naming it fail
// scripts/check_schema.py, and one left in the schema after its removal accepts a typo.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "qualify/backend_alias.hpp"
#include "vsa/registry.hpp"

namespace vsa {
namespace {

std::set<std::string> schema_backend_names() {
  const std::string path = std::string(VSA_REPO_SCHEMA_DIR) + "/suite.schema.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  const nlohmann::json schema = nlohmann::json::parse(in);
  return schema.at("$defs").at("known_backend").at("enum").get<std::set<std::string>>();
}

std::set<std::string> cpp_backend_names() {
  std::set<std::string> names;
  for (std::string_view n : known_backend_names()) names.emplace(n);
  names.emplace(kFastAlias);
  return names;
}

std::string listed(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

TEST(SuiteSchema, KnownBackendEnumIsTheRegistrysNamesPlusAliases) {
  const auto schema = schema_backend_names();
  const auto cpp = cpp_backend_names();
  std::set<std::string> only_cpp, only_schema;
  std::set_difference(cpp.begin(), cpp.end(), schema.begin(), schema.end(), std::inserter(only_cpp, only_cpp.end()));
  std::set_difference(schema.begin(), schema.end(), cpp.begin(), cpp.end(),
                      std::inserter(only_schema, only_schema.end()));
  EXPECT_TRUE(only_cpp.empty()) << "known_backend_names() (kernels/include/vsa/registry.hpp) has names the suite "
                                   "schema's $defs.known_backend enum (docs/schema/suite.schema.json) lacks: "
                                << listed(only_cpp);
  EXPECT_TRUE(only_schema.empty()) << "docs/schema/suite.schema.json's $defs.known_backend enum has names "
                                      "known_backend_names() does not define: "
                                   << listed(only_schema);
}

}  // namespace
}  // namespace vsa
