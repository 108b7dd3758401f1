// `vsa-bench dump` (dump/case_dump.hpp): a suite case becomes .npy files whose
// inputs equal the counter generator's, whose index lists equal the block map's,
// and whose outputs are the reference of exactly those inputs; case.json carries
// a spec that loads back to the same case. Bad names and oversized cases are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "cpu_reference.hpp"
#include "engine/case_data.hpp"
#include "dump/case_dump.hpp"
#include "suite/suite.hpp"
#include "scratch_dir.hpp"

namespace vsa {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The data of a .npy file as T, checking the descr and shape in its header.
template <typename T>
std::vector<T> read_npy(const fs::path& p, const std::string& descr, const std::string& shape) {
  std::ifstream in(p, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_GE(bytes.size(), 10u) << p;
  const std::size_t len =
      static_cast<unsigned char>(bytes[8]) | (std::size_t(static_cast<unsigned char>(bytes[9])) << 8);
  const std::string dict = bytes.substr(10, len);
  EXPECT_NE(dict.find("'descr': '" + descr + "'"), std::string::npos) << dict;
  EXPECT_NE(dict.find("'shape': " + shape + ","), std::string::npos) << dict;
  std::vector<T> out((bytes.size() - 10 - len) / sizeof(T));
  std::memcpy(out.data(), bytes.data() + 10 + len, out.size() * sizeof(T));
  return out;
}

double rel_max(const std::vector<float>& got, const std::vector<float>& ref) {
  double err = 0, top = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if (std::isinf(ref[i]) || std::isinf(got[i])) {
      if (got[i] != ref[i]) return INFINITY;
      continue;
    }
    err = std::max(err, std::abs(double(got[i]) - ref[i]));
    top = std::max(top, std::abs(double(ref[i])));
  }
  return top > 0 ? err / top : err;
}

class CaseDump : public ::testing::Test {
 protected:
  void SetUp() override {
    m_suite = (m_dir / "suite.json").string();
    std::ofstream(m_suite)
        << R"({"name": "t", "defaults": {"B": 2, "H": 2, "D": 32, "seed": 11, "scale": 4, "backends": ["cpu-ref"]},
      "cases": [
        {"name": "ragged", "S": 320, "pattern": {"kind": "ragged", "density": 0.5, "zero_rows": 0.25},
         "vbs": {"kind": "random"}},
        {"name": "ragged-fwd", "S": 128, "op": "fwd"},
        {"name": "big", "S": 1024, "B": 1, "D": 64, "pattern": {"kind": "dense"}}]})";
  }

  DumpOptions options(const std::string& name, const std::string& sub) const {
    DumpOptions o;
    o.suites = {m_suite};
    o.case_name = name;
    o.out_dir = (m_dir / sub).string();
    return o;
  }

  test::ScratchDir m_scratch{"dump-test"};
  fs::path m_dir = m_scratch.path();
  std::string m_suite;
};

TEST_F(CaseDump, FindsCasesByExactNameOrUniqueText) {
  EXPECT_EQ(find_case_in_suites({m_suite}, "t/ragged").name, "t/ragged");  // also a substring of t/ragged-fwd
  EXPECT_EQ(find_case_in_suites({m_suite}, "fwd").name, "t/ragged-fwd");
  EXPECT_THROW((void)find_case_in_suites({m_suite}, "nope"), SuiteError);
  EXPECT_THROW((void)find_case_in_suites({m_suite}, "ragged"), SuiteError);  // two cases contain it
  // No suite given: the built-in suites.
  EXPECT_EQ(find_case_in_suites({}, "perf/topk/S=4096,density=0.25").shape.seq(), 4096);
}

TEST_F(CaseDump, FilesHoldTheCaseInputsIndexListsAndReference) {
  const DumpOptions opts = options("t/ragged", "out");
  (void)dump_case(opts);
  const fs::path out = opts.out_dir;
  const json doc = json::parse(std::ifstream(out / "case.json"));
  EXPECT_EQ(doc.at("schema"), "vsa-bench/case-dump");
  EXPECT_EQ(doc.at("reference").at("backend"), "cpu-ref");
  const CaseSpec spec = case_from_json(doc.at("spec"), "case.json", "$.spec");
  EXPECT_EQ(to_json(spec), to_json(find_case_in_suites({m_suite}, "t/ragged")));
  const BlockMap map = make_block_map(spec.shape, spec.pattern, spec.vbs, spec.seed);
  const Shape& s = map.shape;
  const std::string bhsd = "(2, 2, 320, 32)", bhs = "(2, 2, 320)";
  const std::string nb = std::to_string(s.num_blocks);
  EXPECT_EQ(doc.at("shape").at("max_kv"), s.max_kv);

  HostInputs in;
  in.q = generate_host(s.tensor_elems(), 11, TensorId::q, 4.0f);
  in.k = generate_host(s.tensor_elems(), 11, TensorId::k, 4.0f);
  in.v = generate_host(s.tensor_elems(), 11, TensorId::v, 4.0f);
  in.d_out = generate_host(s.tensor_elems(), 11, TensorId::d_out, 4.0f);
  EXPECT_EQ(read_npy<std::uint16_t>(out / "q.npy", "<u2", bhsd), in.q);
  EXPECT_EQ(read_npy<std::uint16_t>(out / "k.npy", "<u2", bhsd), in.k);
  EXPECT_EQ(read_npy<std::uint16_t>(out / "v.npy", "<u2", bhsd), in.v);
  EXPECT_EQ(read_npy<std::uint16_t>(out / "do.npy", "<u2", bhsd), in.d_out);
  EXPECT_EQ(read_npy<std::int32_t>(out / "q2k_idx.npy", "<i4", "(2, 2, " + nb + ", " + std::to_string(s.max_kv) + ")"),
            map.q2k_idx);
  EXPECT_EQ(read_npy<std::int32_t>(out / "q2k_num.npy", "<i4", "(2, 2, " + nb + ")"), map.q2k_num);
  EXPECT_EQ(read_npy<std::int32_t>(out / "k2q_idx.npy", "<i4", "(2, 2, " + nb + ", " + std::to_string(s.max_q) + ")"),
            map.k2q_idx);
  EXPECT_EQ(read_npy<std::int32_t>(out / "k2q_num.npy", "<i4", "(2, 2, " + nb + ")"), map.k2q_num);
  EXPECT_EQ(read_npy<std::int32_t>(out / "vbs.npy", "<i4", "(" + nb + ",)"), map.vbs);

  // The dumped fp32 outputs against the same inputs computed in fp64.
  const ref::Selection sel{map.q2k_idx.data(), map.q2k_num.data(), map.vbs.data()};
  const ref::Options fp64{ref::Precision::fp64, 0};
  std::vector<float> o(std::size_t(s.tensor_elems())), lse(std::size_t(s.row_elems()));
  ASSERT_TRUE(
      ref::forward(ref::UnroundedForward{s, sel, in.q.data(), in.k.data(), in.v.data(), o.data(), lse.data()}, fp64)
          .ok());
  std::vector<bf16_bits> o_bf16(o.size());
  for (std::size_t i = 0; i < o.size(); ++i) o_bf16[i] = float_to_bf16(o[i]);
  std::vector<float> dq(o.size()), dk(o.size()), dv(o.size());
  ASSERT_TRUE(ref::backward(ref::UnroundedBackward{s, sel, in.q.data(), in.k.data(), in.v.data(), o_bf16.data(),
                                                   in.d_out.data(), lse.data(), dq.data(), dk.data(), dv.data()},
                            fp64)
                  .ok());
  EXPECT_LT(rel_max(read_npy<float>(out / "o.npy", "<f4", bhsd), o), 1e-5);
  EXPECT_LT(rel_max(read_npy<float>(out / "lse.npy", "<f4", bhs), lse), 1e-5);
  EXPECT_LT(rel_max(read_npy<float>(out / "dq.npy", "<f4", bhsd), dq), 1e-4);
  EXPECT_LT(rel_max(read_npy<float>(out / "dk.npy", "<f4", bhsd), dk), 1e-4);
  EXPECT_LT(rel_max(read_npy<float>(out / "dv.npy", "<f4", bhsd), dv), 1e-4);
  // Zero-count rows are in the case (zero_rows 0.25): their lse is -inf in the dump.
  const auto dumped_lse = read_npy<float>(out / "lse.npy", "<f4", bhs);
  EXPECT_TRUE(std::any_of(dumped_lse.begin(), dumped_lse.end(), [](float x) { return std::isinf(x); }));
}

TEST_F(CaseDump, ForwardOnlyCaseHasNoGradients) {
  const DumpOptions o = options("t/ragged-fwd", "fwd");
  (void)dump_case(o);
  EXPECT_TRUE(fs::exists(fs::path(o.out_dir) / "o.npy"));
  EXPECT_FALSE(fs::exists(fs::path(o.out_dir) / "dq.npy"));
}

TEST_F(CaseDump, RefusesCasesAboveTheReferenceLimitUnlessAskedForInputsOnly) {
  DumpOptions o = options("t/big", "big");
  o.reference_limit_flops = 1e9;
  try {
    (void)dump_case(o);
    FAIL() << "a case above the limit was dumped";
  } catch (const SuiteError& e) {
    EXPECT_NE(std::string(e.what()).find("--no-reference"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(fs::path(o.out_dir) / "q.npy"));
  o.reference = false;
  (void)dump_case(o);
  EXPECT_TRUE(fs::exists(fs::path(o.out_dir) / "q.npy"));
  EXPECT_FALSE(fs::exists(fs::path(o.out_dir) / "o.npy"));
  EXPECT_TRUE(json::parse(std::ifstream(fs::path(o.out_dir) / "case.json")).at("reference").is_null());
}

// Fuzz review of 2026-12-07: a suite named case.json (or q.npy, ...) in the --out folder was
// replaced by the dump, exit 0. Refused before anything is written, naming both.
TEST_F(CaseDump, RefusesAnOutFolderWhereItWouldReplaceTheSuite) {
  for (const char* name : {"case.json", "q.npy"}) {
    const fs::path dir = m_dir / (std::string("own-") + name);
    fs::create_directories(dir);
    const fs::path suite = dir / name;
    fs::copy_file(m_suite, suite);
    DumpOptions o = options("t/ragged-fwd", "unused");
    o.suites = {suite.string()};
    o.out_dir = (dir / ".").string();  // another spelling of the suite's folder
    try {
      (void)dump_case(o);
      FAIL() << "the dump replaced its suite " << suite;
    } catch (const SuiteError& e) {
      EXPECT_NE(
          std::string(e.what()).find(std::string("the dump's ") + name + " would replace the suite " + suite.string()),
          std::string::npos)
          << e.what();
    }
    std::ifstream in(suite);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    EXPECT_NE(text.find("ragged-fwd"), std::string::npos) << "the suite was changed";
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1) << "files were written";
  }
}

}  // namespace
}  // namespace vsa
