// Where run, render and repro write is checked before any work (run/output_paths.hpp): each bad
// path is refused naming its flag and what is wrong, and a good one passes untouched.
#include "run/output_paths.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "suite/suite.hpp"
#include "scratch_dir.hpp"

namespace vsa {
namespace {

namespace fs = std::filesystem;

class OutputPaths : public ::testing::Test {
 protected:
  void SetUp() override { std::ofstream(m_dir / "a-file") << "x"; }
  std::string at(const std::string& name) const { return (m_dir / name).string(); }
  test::ScratchDir m_scratch{"output-paths"};
  fs::path m_dir = m_scratch.path();
};

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const SuiteError& e) {
    return e.what();
  }
  return "";
}

TEST_F(OutputPaths, AFileInAFolderThatExistsIsFine) {
  EXPECT_EQ(refusal([&] { check_output_file("--junit", at("j.xml")); }), "");
  EXPECT_EQ(refusal([&] { check_output_file("--junit", at("a-file")); }), "");  // overwritten, as before
  EXPECT_EQ(refusal([&] { check_output_file("--junit", ""); }), "");            // not asked for
  EXPECT_FALSE(fs::exists(at("j.xml")));                                        // nothing written
}

TEST_F(OutputPaths, AFileIsRefusedNamingTheFlagAndWhatIsWrong) {
  EXPECT_EQ(refusal([&] { check_output_file("--junit", m_dir.string()); }),
            "--junit " + m_dir.string() + ": is a directory; give a file name");
  EXPECT_EQ(refusal([&] { check_output_file("--metrics", at("nodir/m.prom")); }),
            "--metrics " + at("nodir/m.prom") + ": no directory " + at("nodir") + " (create it first)");
  EXPECT_EQ(refusal([&] { check_output_file("--nvbench", at("a-file/n.json")); }),
            "--nvbench " + at("a-file/n.json") + ": " + at("a-file") + " is not a directory");
  // A command that makes the folder itself (repro --bundle) takes a missing one.
  EXPECT_EQ(refusal([&] { check_output_file("--bundle", at("nodir/b.json"), true); }), "");
}

TEST_F(OutputPaths, AnExportMayGoIntoTheReportFolderTheRunMakes) {
  EXPECT_TRUE(directly_in(at("new/j.xml"), at("new")));
  EXPECT_TRUE(directly_in(at("new/j.xml"), at("new") + "/"));
  EXPECT_TRUE(directly_in(at("new/./j.xml"), at("x/../new")));
  EXPECT_FALSE(directly_in(at("new/sub/j.xml"), at("new")));  // a folder below it is not made
  EXPECT_FALSE(directly_in(at("other/j.xml"), at("new")));
  EXPECT_FALSE(directly_in("", at("new")));
}

TEST_F(OutputPaths, TheReportFolderIsCheckedNotMade) {
  EXPECT_EQ(refusal([&] { check_output_dir("--out", at("new/deeper")); }), "");
  EXPECT_FALSE(fs::exists(at("new")));  // made by the run, once it is not refused
  EXPECT_EQ(refusal([&] { check_output_dir("--out", m_dir.string()); }), "");
  EXPECT_EQ(refusal([&] { check_output_dir("--out", at("a-file")); }),
            "--out " + at("a-file") + ": is a file, not a directory");
  fs::create_symlink(at("gone"), at("dangling"));
  EXPECT_EQ(refusal([&] { check_output_dir("--out", at("dangling")); }),
            "--out " + at("dangling") + ": a symbolic link to nothing (" + at("gone") + ")");
  EXPECT_EQ(refusal([&] { check_output_dir("--out", ""); }), "--out: empty; give a directory");
  EXPECT_EQ(refusal([&] { check_output_dir("--out", at("a-file/sub")); }),
            "--out " + at("a-file/sub") + ": " + at("a-file") + " is not a directory");
}

// Two outputs on one file, however spelled: the first export would be lost (or, for render,
// the report replaced by its Markdown).
// Review of 2026-12-06: a file-name part past NAME_MAX read as "does not exist", and the write
// failed after the whole run with exit 4; now bad input named by its flag, before anything runs.
TEST_F(OutputPaths, AnOverlongNameIsRefusedByItsFlag) {
  const std::string part(300, 'x');
  EXPECT_EQ(refusal([&] { check_output_file("--junit", at(part + ".xml")); }).find("--junit "), 0U);
  EXPECT_NE(refusal([&] {
              check_output_file("--junit", at(part + ".xml"));
            }).find(": a part of the path is 304 bytes long, more than a file name's 255"),
            std::string::npos);
  EXPECT_NE(refusal([&] { check_output_dir("--out", at(part)); }).find("more than a file name's 255"),
            std::string::npos);
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += std::string(200, 'd') + "/";
  EXPECT_NE(refusal([&] { check_output_dir("--out", at(deep)); }).find("bytes long, more than this system's"),
            std::string::npos);
  EXPECT_EQ(refusal([&] { check_output_file("--junit", at(std::string(255, 'y'))); }), "");  // at the limit
}

// Where write_file_atomic writes (util/files.hpp), the check looks: a descriptor of this process
// (open for writing, or refused), a FIFO by its own permission, a link's target folder.
TEST_F(OutputPaths, DescriptorsFifosAndLinksAreCheckedWhereTheyWrite) {
  const int read_only = ::open(at("").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(read_only, 0);
  EXPECT_NE(refusal([&] {
              check_output_file("--jsonl", "/dev/fd/" + std::to_string(read_only));
            }).find("is not open for writing"),
            std::string::npos);
  ::close(read_only);
  EXPECT_EQ(refusal([&] { check_output_file("--jsonl", "/dev/stderr"); }), "");
  ASSERT_EQ(::mkfifo(at("pipe").c_str(), 0600), 0);
  EXPECT_EQ(refusal([&] { check_output_file("--jsonl", at("pipe")); }), "");
  fs::create_symlink("nowhere/x.xml", at("dangling.xml"));
  EXPECT_NE(refusal([&] { check_output_file("--junit", at("dangling.xml")); }).find("no directory " + at("nowhere")),
            std::string::npos);
}

TEST_F(OutputPaths, TwoOutputsOnOneFileAreRefusedByBothFlags) {
  EXPECT_EQ(
      refusal([&] {
        check_distinct_outputs({{"--junit", at("x.out")}, {"--metrics", at("new/../x.out")}});
      }),
      "--junit " + at("x.out") + " and --metrics " + at("new/../x.out") + " are one file: give each its own path");
  EXPECT_EQ(refusal([&] {
              check_distinct_outputs({{"--junit", at("j.xml")}, {"--metrics", at("m.prom")}, {"--jsonl", ""}});
            }),
            "");
  fs::create_symlink(at("a-file"), at("alias"));
  EXPECT_NE(refusal([&] { check_distinct_outputs({{"--out", at("alias")}, {"the report", at("a-file")}}); }), "");
}

// The report folder, made later, passed the file check (its parent is writable); the export
// then failed after the whole run.
TEST_F(OutputPaths, AnExportOnTheReportFolderItselfIsRefused) {
  EXPECT_EQ(refusal([&] {
              check_outputs_are_not_dir({{"--jsonl", at("new")}}, "--out", at("new"));
            }),
            "--jsonl " + at("new") + " is the --out folder " + at("new") +
                ": give a file name (in it: " + at("new/NAME") + ")");
  EXPECT_NE(refusal([&] { check_outputs_are_not_dir({{"--junit", at("new/")}}, "--out", at("x/../new")); }), "");
  EXPECT_EQ(refusal([&] {
              check_outputs_are_not_dir({{"--jsonl", at("new/r.jsonl")}, {"--junit", ""}}, "--out", at("new"));
            }),
            "");
  // A folder above it, made by the run too (review of the same day), and a dangling link to it.
  EXPECT_EQ(refusal([&] {
              check_outputs_are_not_dir({{"--jsonl", at("r8")}}, "--out", at("r8/sub"));
            }),
            "--jsonl " + at("r8") + " is a folder above the --out folder " + at("r8/sub") +
                ", which the run makes: give a file name");
  fs::create_symlink(at("r6"), at("lnk6"));
  EXPECT_NE(refusal([&] { check_outputs_are_not_dir({{"--jsonl", at("lnk6")}}, "--out", at("r6")); }), "");
  EXPECT_EQ(refusal([&] { check_outputs_are_not_dir({{"--jsonl", at("r6.jsonl")}}, "--out", at("r6/sub")); }), "");
}

// access() says yes to root everywhere; the write probe finds what the run's writes would.
TEST_F(OutputPaths, AFolderNoFileCanBeMadeInIsRefusedEvenForRoot) {
  if (!fs::is_directory("/proc")) GTEST_SKIP() << "no /proc on this system";
  EXPECT_NE(refusal([&] { check_output_dir("--out", "/proc/vsa-bench-out"); }), "");
  EXPECT_FALSE(fs::exists("/proc/vsa-bench-out"));
}

}  // namespace
}  // namespace vsa
