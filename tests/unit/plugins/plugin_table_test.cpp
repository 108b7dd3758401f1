// The loader's checks of a plugin's table (plugins/plugin_library.hpp): each defect planted
// in an otherwise good table must be refused with a message naming it; the good table passes.
#include <gtest/gtest.h>

#include <string>

#include "plugins/plugin_error.hpp"
#include "plugins/plugin_library.hpp"

namespace vsa {
namespace {

int yes(void*, const vsa_plugin_device*, const vsa_plugin_shape*, uint32_t, char*, size_t) { return 1; }
int run(void*, const vsa_plugin_forward_args*, char*, size_t) { return 0; }
int run_bwd(void*, const vsa_plugin_backward_args*, char*, size_t) { return 0; }

const char* const kProbes[] = {"fwd.a", "fwd.b", nullptr};

struct GoodTable {
  vsa_plugin_backend backends[2]{};
  vsa_plugin_build_item build[1] = {{"git", "abc123"}};
  vsa_plugin_table table{};
  GoodTable() {
    for (auto& b : backends) {
      b.description = "test";
      b.memory = VSA_PLUGIN_MEMORY_DEVICE;
      b.ops = VSA_PLUGIN_OP_FORWARD | VSA_PLUGIN_OP_BACKWARD;
      b.supports = yes;
      b.forward = run;
      b.backward = run_bwd;
      b.probe_points = kProbes;
    }
    backends[0].name = "mine-a";
    backends[1].name = "mine-b";
    table = {VSA_PLUGIN_ABI_VERSION, "mine", build, 1, backends, 2};
  }
};

// The message check_plugin_table throws for the table, "" when it passes.
std::string refusal(const vsa_plugin_table* table) {
  try {
    check_plugin_table(table, "plugin x.so");
  } catch (const PluginError& e) {
    return e.what();
  }
  return "";
}

TEST(PluginTable, AGoodTablePasses) {
  GoodTable t;
  EXPECT_EQ(refusal(&t.table), "");
}

TEST(PluginTable, RefusesNoTableAndAnotherAbiVersion) {
  EXPECT_NE(refusal(nullptr).find("returned no table"), std::string::npos);
  GoodTable t;
  t.table.abi_version = VSA_PLUGIN_ABI_VERSION + 1;
  const std::string why = refusal(&t.table);
  EXPECT_NE(why.find("ABI version " + std::to_string(VSA_PLUGIN_ABI_VERSION + 1)), std::string::npos) << why;
  EXPECT_NE(why.find("loads version " + std::to_string(VSA_PLUGIN_ABI_VERSION)), std::string::npos) << why;
}

const char* const kSeventeen[] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8",
                                  "p9", "pa", "pb", "pc", "pd", "pe", "pf", "pg", nullptr};
const char* const kTwice[] = {"fwd.a", "fwd.a", nullptr};
const char* const kBadOutput[] = {"o", nullptr};
const char* const kBadImage[] = {"hopper", nullptr};

TEST(PluginTable, RefusesEachMalformedBackend) {
  struct Plant {
    const char* what;
    void (*plant)(vsa_plugin_backend&);
    const char* expect;
  };
  const Plant plants[] = {
      {"null name", [](vsa_plugin_backend& b) { b.name = nullptr; }, "name is NULL"},
      {"space in name", [](vsa_plugin_backend& b) { b.name = "my kernel"; }, "[A-Za-z0-9._@+-]"},
      {"no description", [](vsa_plugin_backend& b) { b.description = nullptr; }, "description is NULL"},
      {"memory 7", [](vsa_plugin_backend& b) { b.memory = 7; }, "memory is 7"},
      {"no ops", [](vsa_plugin_backend& b) { b.ops = 0; }, "ops is 0"},
      {"unknown op bit", [](vsa_plugin_backend& b) { b.ops = 4; }, "ops is 4"},
      {"no supports", [](vsa_plugin_backend& b) { b.supports = nullptr; }, "supports() is NULL"},
      {"fwd op without forward", [](vsa_plugin_backend& b) { b.forward = nullptr; }, "forward() is NULL"},
      {"bwd op without backward", [](vsa_plugin_backend& b) { b.backward = nullptr; }, "backward() is NULL"},
      {"17 probes", [](vsa_plugin_backend& b) { b.probe_points = kSeventeen; }, "more than 16 entries"},
      {"probe twice", [](vsa_plugin_backend& b) { b.probe_points = kTwice; }, "listed twice"},
      {"bad output", [](vsa_plugin_backend& b) { b.nondeterministic_outputs = kBadOutput; }, "\"o\" is not one of"},
      {"bad image", [](vsa_plugin_backend& b) { b.compiled_images = kBadImage; }, "\"hopper\" is not an SM"},
      {"families without array", [](vsa_plugin_backend& b) { b.lint_family_count = 1; }, "lint_families is NULL"},
  };
  for (const auto& p : plants) {
    GoodTable t;
    p.plant(t.backends[1]);
    const std::string why = refusal(&t.table);
    EXPECT_NE(why.find(p.expect), std::string::npos) << p.what << ": " << why;
    EXPECT_NE(why.find("plugin x.so"), std::string::npos) << p.what << ": " << why;
  }
}

TEST(PluginTable, RefusesADuplicateNameAndAnEmptyTable) {
  GoodTable t;
  t.backends[1].name = "mine-a";
  EXPECT_NE(refusal(&t.table).find("duplicate backend name \"mine-a\""), std::string::npos);
  GoodTable e;
  e.table.backend_count = 0;
  EXPECT_NE(refusal(&e.table).find("declares no backends"), std::string::npos);
}

TEST(PluginTable, RefusesAMalformedLintFamily) {
  GoodTable t;
  const vsa_plugin_lint_family families[] = {{"mine", "", "sm_90a", "HGMMA", "HGMMA", 1, nullptr}};
  t.backends[0].lint_families = families;
  t.backends[0].lint_family_count = 1;
  EXPECT_NE(refusal(&t.table).find("mangled_prefix is empty"), std::string::npos);
}

TEST(PluginLibrary, AMissingFileIsNamed) {
  try {
    (void)open_plugin("/nonexistent/plugin.so");
    FAIL() << "opened a missing file";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/plugin.so: no such file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vsa
