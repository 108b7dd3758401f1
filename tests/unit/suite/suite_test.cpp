// Suite parsing: sweeps, strictness, and errors that name the file and JSON path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "suite/suite.hpp"
#include "scratch_dir.hpp"

namespace vsa {
namespace {

std::string error_of(const std::string& case_fields) {
  const std::string text = R"({"cases": [{"name": "a", "backends": ["cpu-ref"], )" + case_fields + "}]}";
  try {
    (void)parse_suite(text, "t.json");
  } catch (const SuiteError& e) {
    return e.what();
  }
  return "(accepted)";
}

// A tolerance at or below 0 fails every backend, an exact one too: refused as the typo it is.
TEST(Suite, AToleranceAtOrBelowZeroIsRefusedByPath) {
  EXPECT_EQ(error_of(R"("tolerance": {"rel_max": -1})"), "t.json: $.cases[0].tolerance.rel_max: must be > 0, got -1");
  EXPECT_EQ(error_of(R"("tolerance": {"rel_l2": 0})"), "t.json: $.cases[0].tolerance.rel_l2: must be > 0, got 0");
  EXPECT_EQ(error_of(R"("S": 128, "tolerance": {"rel_max": 0.02})"), "(accepted)");
}

// A swept value that breaks its case: the error names the expanded case and its sweep.
TEST(Suite, ABadSweptValueNamesTheCaseAndTheSweep) {
  EXPECT_EQ(error_of(R"("D": 64, "sweep": {"S": [128, 100]})"),
            "t.json: $.cases[0].S: must be a multiple of blk (64), got 100 (in \"a/S=100\", from $.cases[0].sweep)");
}

// Review of 2026-12-06: these reached nlohmann's own errors (exit 4, no path) or tried to
// allocate an array of 10^11 elements.
TEST(Suite, ASweepKeyThatIsNoFieldNameIsRefusedByPath) {
  for (const char* key : {"S~", "pattern.rows.99999999999", "pattern.rows.0", "", ".S", "S..x"})
    EXPECT_EQ(error_of(std::string(R"("sweep": {")") + key + R"(": [128]})"),
              std::string("t.json: $.cases[0].sweep: \"") + key +
                  "\" is not a field name (names of object members, dot-separated: \"S\", \"pattern.density\")")
        << key;
  EXPECT_EQ(error_of(R"("S": 128, "sweep": {"S.x": [128]})"),
            "t.json: $.cases[0].sweep.S.x: cannot be set: a field on its way is not an object in the case");
  const std::string text = R"({"cases": [{"name": 5, "backends": ["cpu-ref"], "sweep": {"S": [128]}}]})";
  EXPECT_THROW(
      {
        try {
          (void)parse_suite(text, "t.json");
        } catch (const SuiteError& e) {
          EXPECT_STREQ(e.what(), "t.json: $.cases[0].name: must be a string, got number");
          throw;
        }
      },
      SuiteError);
}

// Fuzz review of 2026-12-07: a sweep key of 30,000 characters, or of 100,000 dotted parts,
// overflowed the stack in std::regex (a segfault in run, list and dump) where an error was due.
TEST(Suite, ALongSweepKeyIsAnErrorNotACrash) {
  const std::string long_name(40000, 'a');
  EXPECT_NE(error_of(R"("S": 128, "sweep": {")" + long_name + R"(": [1]})").find("t.json: $.cases[0]"),
            std::string::npos);
  std::string dotted = "a";
  for (int i = 0; i < 100000; ++i) dotted += ".a";
  EXPECT_EQ(error_of(R"("S": 128, "sweep": {")" + dotted + R"(": [1]})"),
            "t.json: $.cases[0].sweep: \"" + dotted.substr(0, 60) +
                "...\" is a key of 100001 dot-separated names; no field of a case is deeper than 8");
  const std::string bad = long_name + "~";
  EXPECT_EQ(error_of(R"("sweep": {")" + bad + R"(": [128]})"),
            "t.json: $.cases[0].sweep: \"" + bad +
                "\" is not a field name (names of object members, dot-separated: \"S\", \"pattern.density\")");
}

// Review of 2026-12-06: 641 x 6700417 x 1 cubes wrapped to 1 block and the case ran (and
// faulted); a negative window selected nothing and every such case passed, having checked nothing.
TEST(Suite, AVideoLatentPastAnIntAndANegativeWindowAreRefused) {
  EXPECT_EQ(error_of(R"("pattern": {"kind": "video", "latent": [2564, 26801668, 4], "window": [1, 1, 1]})"),
            "t.json: $.cases[0].pattern.latent: gives 4294967297 cubes, more than an int holds");
  EXPECT_EQ(error_of(R"("pattern": {"kind": "video", "latent": [8, 8, 8], "window": [-1, 1, 1]})"),
            "t.json: $.cases[0].pattern.window: must be >= 0 cubes along each of t, h, w, got [-1, 1, 1]");
  EXPECT_EQ(error_of(R"("pattern": {"kind": "video", "latent": [8, 8, 8], "window": [0, 1, 1]})"), "(accepted)");
}

TEST(Suite, ExpandsSweepsIntoTheCartesianProduct) {
  const Suite s = parse_suite(R"({"name": "x", "defaults": {"backends": ["cpu-ref"], "D": 64},
      "cases": [{"name": "a", "sweep": {"S": [512, 1024], "pattern.density": [0.25, 0.5]}}]})",
                              "t.json");
  ASSERT_EQ(s.cases.size(), 4u);
  EXPECT_EQ(s.cases[0].name, "a/S=512,density=0.25");
  EXPECT_EQ(s.cases[3].shape.seq(), 1024);
  EXPECT_DOUBLE_EQ(s.cases[3].pattern.density, 0.5);
  EXPECT_EQ(s.cases[1].shape.head_dim, 64);  // from defaults
}

TEST(Suite, ErrorsNameFileAndJsonPath) {
  EXPECT_EQ(error_of(R"("S": 100)"), "t.json: $.cases[0].S: must be a multiple of blk (64), got 100");
  EXPECT_EQ(error_of(R"("S": 512, "pattern": {"density": 1.5})"),
            "t.json: $.cases[0].pattern.density: must be in (0, 1], got 1.5");
  EXPECT_EQ(error_of(R"("S": 512, "pattern": {"density": 0})"),
            "t.json: $.cases[0].pattern.density: must be in (0, 1], got 0.0");
  EXPECT_EQ(error_of(R"("S": 512, "Dd": 64)"), "t.json: $.cases[0].Dd: unknown field");
  EXPECT_EQ(error_of(R"("S": "512")"), "t.json: $.cases[0].S: must be an integer, got \"512\"");
  EXPECT_EQ(error_of(R"("S": 128, "pattern": {"kind": "explicit", "rows": [[0], [2]]})"),
            "t.json: $.cases[0].pattern.rows[1][0]: kv block 2 out of range [0, 2)");
  EXPECT_EQ(error_of(R"("S": 512, "mode": "fast")"),
            "t.json: $.cases[0].mode: must be one of check, stability, perf; got \"fast\"");
  EXPECT_EQ(error_of(R"("S": 512, "vbs": {"kind": "explicit", "values": [1]})"),
            "t.json: $.cases[0].vbs.values: needs one value per block (8), got 1");
}

// "plugins": library paths, checked like every other field; a file's relative ones are
// relative to the file (docs/plugins.md).
TEST(Suite, PluginsAreTypeCheckedAndResolvedNextToTheSuite) {
  auto error = [](const std::string& plugins) {
    try {
      (void)parse_suite(
          R"({"plugins": )" + plugins + R"(, "cases": [{"name": "a", "S": 128, "backends": ["cpu-ref"]}]})", "t.json");
    } catch (const SuiteError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(error(R"("x.so")"), "t.json: $.plugins: must be an array of plugin library paths, got \"x.so\"");
  EXPECT_EQ(error(R"(["a.so", 3])"), "t.json: $.plugins[1]: must be a non-empty path string, got 3");
  EXPECT_EQ(error(R"([""])"), "t.json: $.plugins[0]: must be a non-empty path string, got \"\"");
  EXPECT_EQ(error(R"(["a.so", "/opt/b.so"])"), "(accepted)");
  std::string many = "[";
  for (std::size_t i = 0; i <= kMaxSuitePlugins; ++i) many += (i ? ", " : "") + std::string("\"p.so\"");
  EXPECT_NE(error(many + "]").find("more than 64 plugins"), std::string::npos);

  const test::ScratchDir scratch("suite-plugins");
  const auto& dir = scratch.path();
  const auto file = dir / "s.json";
  {
    std::ofstream out(file);
    out << R"({"plugins": ["lib/k.so", "/abs/k.so"], "cases": [{"name": "a", "S": 128, "backends": ["cpu-ref"]}]})";
  }
  const Suite s = load_suite(file.string());
  EXPECT_EQ(s.plugins, (std::vector<std::string>{(dir / "lib/k.so").string(), "/abs/k.so"}));
}

TEST(Suite, SustainedTimingIsCheckedAgainstTheTimeout) {
  EXPECT_EQ(error_of(R"("S": 512, "mode": "perf", "timing": {"min_pass_ms": -1})"),
            "t.json: $.cases[0].timing.min_pass_ms: must be in [0, 60000] ms, got -1");
  EXPECT_EQ(error_of(R"("S": 512, "mode": "perf", "timing": {"min_pass_ms": 100, "l2_flush": true})"),
            "t.json: $.cases[0].timing: min_pass_ms and l2_flush exclude each other: a flush between batched "
            "launches would be timed with them");
  // 3 passes x 2 s x 2 ops x 1 backend = 12 s of passes, x 1.5 under a cap = 18 s, plus up to
  // 2 s of calibration per op = 22 s: over a 20 s timeout, under a 23 s one.
  EXPECT_EQ(error_of(R"("S": 512, "mode": "perf", "timeout_s": 20, "timing": {"passes": 3, "min_pass_ms": 2000,
      "target_spread": 0})"),
            "t.json: $.cases[0].timing.min_pass_ms: 3 passes x 2000 ms x 2 ops x 1 backends may take 22 s (x1.5 "
            "under a power cap, plus calibration, plus the adaptive budget of 0 s per op), not under timeout_s = 20");
  EXPECT_EQ(error_of(R"("S": 512, "mode": "perf", "timeout_s": 23, "timing": {"passes": 3, "min_pass_ms": 2000,
      "target_spread": 0})"),
            "(accepted)");
  // With adaptive sampling (the default) its budget per op counts too: 22 s + 2 ops x 30 s.
  EXPECT_EQ(error_of(R"("S": 512, "mode": "perf", "timeout_s": 23, "timing": {"passes": 3, "min_pass_ms": 2000})"),
            "t.json: $.cases[0].timing.min_pass_ms: 3 passes x 2000 ms x 2 ops x 1 backends may take 82 s (x1.5 "
            "under a power cap, plus calibration, plus the adaptive budget of 30 s per op), not under timeout_s = 23");
  EXPECT_EQ(error_of(R"("S": 512, "mode": "check", "timing": {"min_pass_ms": 100})"),
            "t.json: $.cases[0].timing.min_pass_ms: sustained passes are timing: mode must be perf, got check");
}

// Review of 2026-12-06: a `timing` block on a check case, or `stability` on a perf case, was read
// and never used, so the user believed a setting that did nothing. A warning, not an error:
// repro bundles written before carry every block of a case's spec and must still load.
std::vector<std::string> warnings_of(const std::string& case_fields) {
  const std::string text = R"({"cases": [{"name": "a", "backends": ["cpu-ref"], )" + case_fields + "}]}";
  return parse_suite(text, "t.json").warnings;
}

TEST(Suite, AModesSettingsInACaseOfAnotherModeAreWarnedAbout) {
  using W = std::vector<std::string>;
  EXPECT_EQ(warnings_of(R"("S": 128, "timing": {"passes": 9})"),
            W{"t.json: $.cases[0].timing: applies to perf cases only and does nothing in \"a\" (mode check; remove "
              "it, or set \"mode\": \"perf\")"});
  EXPECT_EQ(warnings_of(R"("S": 128, "mode": "perf", "stability": {"runs": 5})"),
            W{"t.json: $.cases[0].stability: applies to stability cases only and does nothing in \"a\" (mode perf; "
              "remove it, or set \"mode\": \"stability\")"});
  // A sweep's cases share one warning, naming the case as written.
  EXPECT_EQ(warnings_of(R"("S": 128, "mode": "stability", "sweep": {"timing.passes": [3, 4]})"),
            W{"t.json: $.cases[0].sweep.timing.passes: applies to perf cases only and does nothing in \"a\" (mode "
              "stability; remove it, or set \"mode\": \"perf\")"});
  EXPECT_EQ(warnings_of(R"("S": 128, "mode": "perf", "timing": {"passes": 4})"), W{});
  EXPECT_EQ(warnings_of(R"("S": 128, "mode": "stability", "stability": {"runs": 4})"), W{});
  // A case that sweeps its mode: the settings count if one of its swept modes reads them.
  EXPECT_EQ(warnings_of(R"("S": 128, "timing": {"passes": 4}, "sweep": {"mode": ["check", "perf"]})"), W{});
  EXPECT_EQ(warnings_of(R"("S": 128, "timing": {"passes": 4}, "sweep": {"mode": ["check", "stability"]})"),
            W{"t.json: $.cases[0].timing: applies to perf cases only and does nothing in \"a\" (mode check, "
              "stability; remove it, or set \"mode\": \"perf\")"});
  // null is merge-patch's way to drop a default's block, not a setting.
  EXPECT_EQ(warnings_of(R"("S": 128, "timing": null, "stability": null)"), W{});
  // From defaults, a mode's settings apply to the cases of that mode and leave the others alone,
  // and a mode swept from defaults counts as the case's own.
  const Suite s = parse_suite(R"({"defaults": {"backends": ["cpu-ref"], "S": 128, "timing": {"passes": 4},
      "stability": {"runs": 7}}, "cases": [{"name": "c"}, {"name": "p", "mode": "perf"},
      {"name": "s", "mode": "stability"}]})",
                              "t.json");
  ASSERT_EQ(s.cases.size(), 3u);
  EXPECT_TRUE(s.warnings.empty());
  EXPECT_EQ(s.cases[1].timing.passes, 4);
  EXPECT_EQ(s.cases[2].stability.runs, 7);
  const Suite swept = parse_suite(R"({"defaults": {"backends": ["cpu-ref"], "S": 128, "sweep": {"mode": ["check",
      "perf"]}}, "cases": [{"name": "a", "timing": {"passes": 4}}]})",
                                  "t.json");
  EXPECT_EQ(swept.cases.size(), 2u);
  EXPECT_TRUE(swept.warnings.empty());
}

// A sustained pass from `defaults` applies to the perf cases and is dropped from the others (it
// was refused in every check case of such a suite); written by a check case itself, or swept by
// it, it is still refused.
TEST(Suite, ADefaultSustainedPassAppliesToThePerfCasesAlone) {
  const Suite s = parse_suite(R"({"defaults": {"backends": ["cpu-ref"], "S": 128, "timeout_s": 600,
      "timing": {"min_pass_ms": 500}}, "cases": [{"name": "c"}, {"name": "p", "mode": "perf"},
      {"name": "s", "mode": "stability"}, {"name": "w", "sweep": {"mode": ["check", "perf"]}}]})",
                              "t.json");
  ASSERT_EQ(s.cases.size(), 5u);
  EXPECT_EQ(s.cases[0].timing.min_pass_ms, 0);
  EXPECT_EQ(s.cases[1].timing.min_pass_ms, 500);
  EXPECT_EQ(s.cases[2].timing.min_pass_ms, 0);
  EXPECT_EQ(s.cases[3].mode, Mode::check);
  EXPECT_EQ(s.cases[3].timing.min_pass_ms, 0);
  EXPECT_EQ(s.cases[4].mode, Mode::perf);
  EXPECT_EQ(s.cases[4].timing.min_pass_ms, 500);
  EXPECT_TRUE(s.warnings.empty());
  const auto refused = [](const std::string& c) {
    try {
      (void)parse_suite(R"({"defaults": {"backends": ["cpu-ref"], "S": 128, "timing": {"min_pass_ms": 500}},
          "cases": [)" + c + "]}",
                        "t.json");
    } catch (const SuiteError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const std::string want =
      "t.json: $.cases[0].timing.min_pass_ms: sustained passes are timing: mode must be perf, got check";
  EXPECT_EQ(refused(R"({"name": "c", "timing": {"min_pass_ms": 200}})"), want);
  EXPECT_EQ(refused(R"({"name": "c", "sweep": {"timing.min_pass_ms": [100, 200]}})").rfind(want, 0), 0u);
}

// Review of 2026-12-06: an empty key inside probes or bands was named by a path ending in ".".
TEST(Suite, AnEmptyKeyIsNamedInBrackets) {
  EXPECT_EQ(error_of(R"("S": 128, "": 1)"), R"(t.json: $.cases[0][""]: unknown field)");
  EXPECT_EQ(error_of(R"("S": 128, "mode": "stability", "stability": {"bands": {"": 0.1}})"),
            R"(t.json: $.cases[0].stability.bands[""]: unknown output (bands are for o, lse, dq, dk, dv))");
  EXPECT_EQ(error_of(R"("S": 128, "probes": {"": -1})"),
            R"(t.json: $.cases[0].probes[""]: must be an integer in [0, 4294967295], got -1)");
}

TEST(Suite, AdaptiveSamplingFieldsAreReadAndChecked) {
  const Suite s = parse_suite(R"({"cases": [{"name": "a", "backends": ["cpu-ref"], "S": 512, "mode": "perf",
      "timing": {"passes": 4, "target_spread": 0.01, "time_budget_s": 12, "max_passes": 40}}]})",
                              "t.json");
  EXPECT_DOUBLE_EQ(s.cases[0].timing.target_spread, 0.01);
  EXPECT_DOUBLE_EQ(s.cases[0].timing.time_budget_s, 12);
  EXPECT_EQ(s.cases[0].timing.max_passes, 40);
  EXPECT_EQ(to_json(s.cases[0])["timing"]["max_passes"], 40);
  EXPECT_EQ(error_of(R"("S": 512, "mode": "perf", "timing": {"target_spread": 2})"),
            "t.json: $.cases[0].timing.target_spread: must be in [0, 1) (a fraction: 0.02 is 2%; 0 turns adaptive "
            "sampling off), got 2");
  EXPECT_EQ(error_of(R"("S": 512, "mode": "perf", "timing": {"passes": 5, "max_passes": 4})"),
            "t.json: $.cases[0].timing.max_passes: must be in [passes (5), 10000], got 4");
  // Adaptive sampling converges only from 6 kept passes: a max below it never could.
  EXPECT_EQ(error_of(R"("S": 512, "mode": "perf", "timing": {"passes": 3, "max_passes": 5})"),
            "t.json: $.cases[0].timing.max_passes: 5 can never converge: adaptive sampling needs 6 kept passes for a "
            "95% interval (set max_passes >= 6, or target_spread 0 for exactly `passes`)");
  EXPECT_EQ(error_of(R"("S": 512, "mode": "perf", "timing": {"passes": 3, "max_passes": 5, "target_spread": 0})"),
            "(accepted)");
  EXPECT_EQ(error_of(R"("S": 512, "mode": "perf", "timeout_s": 50, "timing": {"time_budget_s": 30})"),
            "t.json: $.cases[0].timing.time_budget_s: 2 ops x 30 s of adaptive sampling do not fit under "
            "timeout_s = 50");
}

TEST(Suite, RunOverridesOfSamplingAreCheckedAgainstTheTimeout) {
  Suite s = parse_suite(R"({"cases": [{"name": "a", "backends": ["cpu-ref"], "S": 512, "mode": "perf",
      "timeout_s": 100}, {"name": "b", "backends": ["cpu-ref"], "S": 512}]})",
                        "t.json");
  apply_sampling_overrides(s.cases[0], 0.01, 40.0);
  EXPECT_DOUBLE_EQ(s.cases[0].timing.target_spread, 0.01);
  EXPECT_DOUBLE_EQ(s.cases[0].timing.time_budget_s, 40);
  EXPECT_THROW(apply_sampling_overrides(s.cases[0], std::nullopt, 60.0), SuiteError);  // 2 x 60 s > 100 s
  EXPECT_THROW(apply_sampling_overrides(s.cases[0], 1.5, std::nullopt), SuiteError);
  apply_sampling_overrides(s.cases[1], 0.5, 1e6);  // a check case does not time: untouched
  EXPECT_DOUBLE_EQ(s.cases[1].timing.target_spread, kDefaultTargetSpread);
}

TEST(Suite, OutOfRangeIdsPassWhenValidationIsOff) {
  EXPECT_EQ(error_of(R"("S": 128, "validate": false, "pattern": {"kind": "explicit", "rows": [[0], [9999999]]})"),
            "(accepted)");
}

TEST(Suite, UnparsableJsonNamesTheFile) {
  try {
    (void)parse_suite("{ not json", "broken.json");
    FAIL() << "accepted";
  } catch (const SuiteError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("broken.json: not valid JSON", 0), 0u) << e.what();
  }
}

TEST(Suite, BuiltinSuitesParse) {
  for (const auto& name : builtin_suite_names()) {
    SCOPED_TRACE(name);
    const Suite s = load_suite(name);
    EXPECT_FALSE(s.cases.empty());
  }
  EXPECT_NE(builtin_suite_names().size(), 0u);
}

// The suites under tests/suites are inputs of the device scripts (gpu_check.sh: fault
// isolation; ab_switch.sh: forward A/B); a broken one would only show on a GPU node.
TEST(Suite, RepositorySuiteFilesParse) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(VSA_REPO_SUITE_DIR)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    const Suite s = load_suite(entry.path().string());
    EXPECT_FALSE(s.cases.empty());
    ++files;
  }
  EXPECT_GE(files, 2);
}

TEST(Suite, SchedulesAreRangeChecked) {
  EXPECT_EQ(error_of(R"("S": 512, "schedules": 0)"),
            "t.json: $.cases[0].schedules: must be in [1, 100000] (schedules per op of the backends that explore "
            "them), got 0");
  EXPECT_EQ(error_of(R"("S": 512, "schedules": 100001)"),
            "t.json: $.cases[0].schedules: must be in [1, 100000] (schedules per op of the backends that explore "
            "them), got 100001");
  EXPECT_EQ(error_of(R"("S": 512, "schedules": 2.5)"), "t.json: $.cases[0].schedules: must be an integer, got 2.5");
  EXPECT_EQ(error_of(R"("S": 512, "schedule_seed": -1)"),
            "t.json: $.cases[0].schedule_seed: must be an integer in [0, 18446744073709551615], got -1");
  EXPECT_EQ(error_of(R"("S": 512, "schedule_seed": "7")"),
            "t.json: $.cases[0].schedule_seed: must be an integer, got \"7\"");
  const Suite s = parse_suite(
      R"({"cases": [{"name": "a", "S": 128, "D": 32, "backends": ["cpu-ref"], "schedules": 100, "schedule_seed": 0}]})",
      "t.json");
  EXPECT_EQ(s.cases[0].schedules, 100);
  EXPECT_EQ(s.cases[0].schedule_seed, 0u);
  const CaseSpec back = case_from_json(to_json(s.cases[0]), "rt", "$");
  EXPECT_EQ(back.schedules, 100);
  EXPECT_EQ(back.schedule_seed, 0u);
  const Suite d = parse_suite(R"({"cases": [{"name": "a", "S": 128, "D": 32, "backends": ["cpu-ref"]}]})", "t.json");
  EXPECT_FALSE(to_json(d.cases[0]).contains("schedules")) << "absent at the default: older reports unchanged";
}

TEST(Suite, CaseJsonRoundTrips) {
  const Suite s = load_suite("correctness");
  for (const auto& c : s.cases) {
    const CaseSpec back = case_from_json(to_json(c), "rt", "$");
    EXPECT_EQ(to_json(back), to_json(c)) << c.name;
  }
}

}  // namespace
}  // namespace vsa
