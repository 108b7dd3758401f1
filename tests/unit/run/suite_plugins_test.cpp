// A suite's plugins on a node other than the one that wrote it: a library that is here loads;
// --plugin of the same file name stands in for one that is not, and says so (with the
// recorded build when it differs); anything else is an error naming the suite and the entry.
#include "run/suite_plugins.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "util/file_digest.hpp"
#include "scratch_dir.hpp"

namespace vsa {
namespace {

namespace fs = std::filesystem;

class SuitePluginsTest : public ::testing::Test {
 protected:
  void SetUp() override { std::ofstream(m_dir / "vsa_example_cpu.so") << "this node's build"; }
  [[nodiscard]] std::string here() const { return (m_dir / "vsa_example_cpu.so").string(); }
  test::ScratchDir m_scratch{"suite-plugins"};
  fs::path m_dir = m_scratch.path();
};

TEST_F(SuitePluginsTest, ALibraryThatIsHereLoads) {
  Suite s;
  s.plugins = {here()};
  const SuitePlugins p = resolve_suite_plugins(s, "bundle.json", {});
  EXPECT_EQ(p.load, std::vector<std::string>{here()});
  EXPECT_TRUE(p.notes.empty());
}

TEST_F(SuitePluginsTest, PluginOfTheSameFileNameStandsInAndADifferentBuildIsSaid) {
  Suite s;
  s.plugins = {"/other/node/vsa_example_cpu.so"};
  SuitePlugins p = resolve_suite_plugins(s, "bundle.json", {here()});
  EXPECT_TRUE(p.load.empty());  // loaded as --plugin already
  ASSERT_EQ(p.notes.size(), 1U);
  EXPECT_EQ(p.notes[0], "bundle.json: $.plugins[0]: /other/node/vsa_example_cpu.so is not here; --plugin " + here() +
                            " (the same file name) stands in for it");
  s.origin = {{"plugins", {{{"path", "/other/node/vsa_example_cpu.so"}, {"sha256", std::string(64, 'a')}}}}};
  p = resolve_suite_plugins(s, "bundle.json", {here()});
  ASSERT_EQ(p.notes.size(), 1U);
  EXPECT_NE(p.notes[0].find("but it is not the build the bundle's origin recorded (sha256 " + std::string(64, 'a') +
                            ", this one " + digest_file(here()).sha256 + "): another kernel runs"),
            std::string::npos)
      << p.notes[0];
  s.origin["plugins"][0]["sha256"] = digest_file(here()).sha256;  // the recorded build: nothing more to say
  EXPECT_EQ(resolve_suite_plugins(s, "bundle.json", {here()}).notes[0].find("not the build"), std::string::npos);
}

TEST_F(SuitePluginsTest, AMissingLibraryWithoutAStandInNamesTheSuiteAndEntry) {
  Suite s;
  s.plugins = {here(), "/other/node/vsa_plugin.so"};
  try {
    (void)resolve_suite_plugins(s, "bundle.json", {(m_dir / "other_name.so").string()});
    FAIL() << "no error";
  } catch (const SuiteError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("bundle.json: $.plugins[1]: no such file /other/node/vsa_plugin.so", 0), 0U) << what;
    EXPECT_NE(what.find("`--plugin PATH/vsa_plugin.so`"), std::string::npos) << what;
  }
  s.plugins = {"/other/node/"};  // no file name to match: the hint names none either
  EXPECT_THROW(
      {
        try {
          (void)resolve_suite_plugins(s, "bundle.json", {here()});
        } catch (const SuiteError& e) {
          EXPECT_NE(std::string(e.what()).find("`--plugin PATH/NAME.so`"), std::string::npos) << e.what();
          throw;
        }
      },
      SuiteError);
}

}  // namespace
}  // namespace vsa
