#include "dump/case_dump.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "build_info.hpp"
#include "cpu_reference.hpp"
#include "engine/case_data.hpp"
#include "engine/case_runner.hpp"
#include "dump/npy_writer.hpp"
#include "suite/suite.hpp"
#include "report/markdown_table.hpp"
#include "report/report.hpp"
#include "util/files.hpp"
#include "util/json_input.hpp"

namespace vsa {
namespace {

namespace fs = std::filesystem;

// The files an earlier dump in `dir` wrote, by its case.json: plain names only, and only from a
// dump's own listing (another tool's case.json is left alone).
std::set<std::string> files_of_previous_dump(const std::string& dir) {
  const fs::path listing = fs::path(dir) / "case.json";
  std::error_code ec;
  if (!fs::is_regular_file(listing, ec)) return {};
  nlohmann::json previous;
  try {
    previous = parse_json_input(read_input_file(listing.string()));
  } catch (const std::exception&) {
    return {};
  }
  if (!previous.is_object() || previous.value("schema", nlohmann::json()) != "vsa-bench/case-dump") return {};
  const auto files = previous.find("files");
  if (files == previous.end() || !files->is_object()) return {};
  std::set<std::string> names;
  for (const auto& [key, entry] : files->items()) {
    const auto file = entry.is_object() ? entry.find("file") : entry.end();
    if (!entry.is_object() || file == entry.end() || !file->is_string()) continue;
    const std::string name = file->get<std::string>();
    if (!name.empty() && fs::path(name).filename() == fs::path(name) && name != "." && name != "..") names.insert(name);
  }
  return names;
}

using nlohmann::json;
using Dims = std::vector<std::int64_t>;

struct ReferenceOutputs {
  std::vector<float> o, lse, dq, dk, dv;
};

// fp32 products and sums from the bf16 inputs, outputs left unrounded. The backward
// gets O rounded to bf16: what every backend's backward gets in `vsa-bench run`.
ReferenceOutputs run_reference(const BlockMap& map, const HostInputs& in, bool backward) {
  const Shape& s = map.shape;
  const ref::Selection selection{map.q2k_idx.data(), map.q2k_num.data(), map.vbs.data()};
  ReferenceOutputs out;
  out.o.resize(std::size_t(s.tensor_elems()));
  out.lse.resize(std::size_t(s.row_elems()));
  ref::UnroundedForward fwd{s, selection, in.q.data(), in.k.data(), in.v.data(), out.o.data(), out.lse.data()};
  if (auto st = ref::forward(fwd); !st.ok()) throw std::runtime_error("cpu-ref forward: " + st.error);
  if (!backward) return out;
  std::vector<bf16_bits> o_bf16(out.o.size());
  for (std::size_t i = 0; i < o_bf16.size(); ++i) o_bf16[i] = float_to_bf16(out.o[i]);
  out.dq.resize(out.o.size());
  out.dk.resize(out.o.size());
  out.dv.resize(out.o.size());
  ref::UnroundedBackward bwd{s,
                             selection,
                             in.q.data(),
                             in.k.data(),
                             in.v.data(),
                             o_bf16.data(),
                             in.d_out.data(),
                             out.lse.data(),
                             out.dq.data(),
                             out.dk.data(),
                             out.dv.data()};
  if (auto st = ref::backward(bwd); !st.ok()) throw std::runtime_error("cpu-ref backward: " + st.error);
  return out;
}

json file_entry(const std::string& file, const char* dtype, const Dims& shape, const std::string& meaning) {
  return {{"file", file}, {"dtype", dtype}, {"shape", shape}, {"meaning", meaning}};
}

// Every file a dump may write into its folder.
constexpr const char* kDumpFiles[] = {"case.json",   "q.npy",       "k.npy",       "v.npy",       "do.npy",
                                      "q2k_idx.npy", "q2k_num.npy", "k2q_idx.npy", "k2q_num.npy", "vbs.npy",
                                      "o.npy",       "lse.npy",     "dq.npy",      "dk.npy",      "dv.npy"};

// No file of the dump is one of the suites it reads: `dump dd/case.json --case a --out dd`
// replaced the suite with the dump's listing (fuzz review, 2026-12-07). equivalent() compares
// device and inode, so a link or another spelling of the path is caught too.
void check_dump_spares_suites(const DumpOptions& o) {
  for (const std::string& suite : o.suites)
    for (const char* file : kDumpFiles) {
      std::error_code ec;
      if (fs::equivalent(fs::path(o.out_dir) / file, suite, ec))
        throw SuiteError("--out " + o.out_dir + ": the dump's " + file + " would replace the suite " + suite +
                         " this command reads; give the output another folder");
    }
}

}  // namespace

CaseSpec find_case_in_suites(const std::vector<std::string>& suites, const std::string& name) {
  const std::vector<std::string> names = suites.empty() ? builtin_suite_names() : suites;
  std::vector<CaseSpec> all;
  for (const auto& suite : names) {
    Suite s = load_suite(suite);
    // Named as `vsa-bench run` names them in reports ("perf/topk/S=4096,density=0.25"),
    // so a dump and a report of the same case line up in `vsa-bench compare`.
    for (auto& c : s.cases) {
      c.name = qualified_case_name(s, suite, c.name);
      all.push_back(std::move(c));
    }
  }
  for (const auto& c : all)
    if (c.name == name) return c;
  std::vector<const CaseSpec*> matches;
  for (const auto& c : all)
    if (c.name.find(name) != std::string::npos) matches.push_back(&c);
  if (matches.size() == 1) return *matches.front();
  std::vector<std::string> listed;
  for (const auto* c : matches) listed.push_back(c->name);
  const std::string where = fmt::format("{}", fmt::join(names, ", "));
  if (matches.empty())
    throw SuiteError("no case named \"" + name + "\" in " + where + " (see `vsa-bench list cases SUITE`)");
  throw SuiteError("\"" + name + "\" matches " + std::to_string(matches.size()) +
                   " cases: " + fmt::format("{}", fmt::join(listed, ", ")));
}

std::string dump_case(const DumpOptions& o) {
  check_dump_spares_suites(o);
  const CaseSpec spec = find_case_in_suites(o.suites, o.case_name);
  BlockMap map;
  try {
    map = make_block_map(spec.shape, spec.pattern, spec.vbs, spec.seed);
  } catch (const std::invalid_argument& e) {
    throw SuiteError(spec.name + ": " + e.what());
  }
  const Shape& s = map.shape;
  const bool backward = runs_backward(spec.op);
  const double flops_fwd = forward_flops(s, map.pairs);
  const double reference_flops = flops_fwd + (backward ? backward_flops(flops_fwd) : 0.0);
  if (o.reference && reference_flops > o.reference_limit_flops)
    throw SuiteError(spec.name + ": the CPU reference would take " + format_number(reference_flops, 3) +
                     " FLOPs, above the limit of " + format_number(o.reference_limit_flops, 3) +
                     " (--reference-limit); dump without outputs (--no-reference) and check against a GPU "
                     "reference, or raise the limit");

  try {
    fs::create_directories(o.out_dir);
  } catch (const fs::filesystem_error& e) {
    throw SuiteError(o.out_dir + ": cannot create the output folder (" + e.code().message() + ")");
  }
  const auto path = [&](const std::string& file) { return (fs::path(o.out_dir) / file).string(); };
  // Read before this dump overwrites case.json; removed once it is complete (below), so a dump
  // that fails halfway loses nothing of the earlier one it did not overwrite.
  const std::set<std::string> previous_files = files_of_previous_dump(o.out_dir);
  const Dims bhsd{s.batch, s.heads, s.seq(), s.head_dim}, bhs{s.batch, s.heads, s.seq()};
  const Dims q2k_dims{s.batch, s.heads, s.num_blocks, s.max_kv}, k2q_dims{s.batch, s.heads, s.num_blocks, s.max_q};
  const Dims counts{s.batch, s.heads, s.num_blocks}, blocks{s.num_blocks};

  HostInputs in;
  const auto n = s.tensor_elems();
  in.q = generate_host(n, spec.seed, TensorId::q, spec.scale);
  in.k = generate_host(n, spec.seed, TensorId::k, spec.scale);
  in.v = generate_host(n, spec.seed, TensorId::v, spec.scale);
  in.d_out = generate_host(n, spec.seed, TensorId::d_out, spec.scale);
  npy::write(path("q.npy"), bhsd, in.q);
  npy::write(path("k.npy"), bhsd, in.k);
  npy::write(path("v.npy"), bhsd, in.v);
  npy::write(path("do.npy"), bhsd, in.d_out);
  npy::write(path("q2k_idx.npy"), q2k_dims, map.q2k_idx);
  npy::write(path("q2k_num.npy"), counts, map.q2k_num);
  npy::write(path("k2q_idx.npy"), k2q_dims, map.k2q_idx);
  npy::write(path("k2q_num.npy"), counts, map.k2q_num);
  npy::write(path("vbs.npy"), blocks, map.vbs);

  const std::string bf16_note = "bf16 bit patterns: float32 value = (uint32(x) << 16) viewed as float32";
  json files = {
      {"q", file_entry("q.npy", "uint16", bhsd, bf16_note)},
      {"k", file_entry("k.npy", "uint16", bhsd, bf16_note)},
      {"v", file_entry("v.npy", "uint16", bhsd, bf16_note)},
      {"do", file_entry("do.npy", "uint16", bhsd, "upstream gradient dO; " + bf16_note)},
      {"q2k_idx",
       file_entry("q2k_idx.npy", "int32", q2k_dims,
                  "selected kv blocks per q block; past q2k_num, blocks the row did not select (never read)")},
      {"q2k_num", file_entry("q2k_num.npy", "int32", counts, "valid entries per q2k_idx row")},
      {"k2q_idx",
       file_entry("k2q_idx.npy", "int32", k2q_dims, "q blocks selecting each kv block, ascending, -1 past k2q_num")},
      {"k2q_num", file_entry("k2q_num.npy", "int32", counts, "valid entries per k2q_idx row")},
      {"vbs",
       file_entry("vbs.npy", "int32", blocks, "valid tokens per block (keys at in-block position >= vbs are masked)")},
  };
  json reference = nullptr;
  if (o.reference) {
    const ReferenceOutputs ref = run_reference(map, in, backward);
    npy::write(path("o.npy"), bhsd, ref.o);
    npy::write(path("lse.npy"), bhs, ref.lse);
    files["o"] = file_entry("o.npy", "float32", bhsd, "reference O, fp32 (not rounded to bf16)");
    files["lse"] = file_entry("lse.npy", "float32", bhs, "reference lse, base-2 (M format), -inf for empty rows");
    if (backward) {
      npy::write(path("dq.npy"), bhsd, ref.dq);
      npy::write(path("dk.npy"), bhsd, ref.dk);
      npy::write(path("dv.npy"), bhsd, ref.dv);
      for (const char* t : {"dq", "dk", "dv"})
        files[t] = file_entry(std::string(t) + ".npy", "float32", bhsd, std::string("reference ") + t + ", fp32");
    }
    reference = {{"backend", "cpu-ref"},
                 {"precision", "fp32 products and sums from the bf16 inputs; outputs not rounded to bf16"},
                 {"outputs", backward ? json{"o", "lse", "dq", "dk", "dv"} : json{"o", "lse"}},
                 {"backward_input_o", "o rounded to bf16 (as every backend's backward gets it in vsa-bench run)"}};
  }
  const json doc = {
      {"schema", "vsa-bench/case-dump"},
      {"schema_version", 1},
      {"tool", {{"name", "vsa-bench"}, {"version", build::kVersion}, {"git_sha", build::git_sha()}}},
      {"argv", o.argv},
      {"created_at", utc_now_iso8601()},
      {"name", spec.name},
      {"spec", to_json(spec)},
      {"shape",
       {{"B", s.batch},
        {"H", s.heads},
        {"S", s.seq()},
        {"D", s.head_dim},
        {"blk", s.block},
        {"nb", s.num_blocks},
        {"max_kv", s.max_kv},
        {"max_q", s.max_q}}},
      {"seed", spec.seed},
      {"scale", spec.scale},
      {"softmax_scale", 1.0 / std::sqrt(double(s.head_dim))},
      {"layout", "C order; q, k, v, do and outputs [B, H, S, D] (BHSD, S = nb * blk)"},
      {"pairs", map.pairs},
      {"flops_fwd", flops_fwd},
      {"flops_bwd", backward_flops(flops_fwd)},
      {"files", files},
      {"reference", reference},
  };
  write_file_atomic(path("case.json"), doc.dump(2) + "\n");
  // An earlier dump's files this one did not write (its o.npy beside a --no-reference dump's
  // inputs would read as this case's reference).
  std::set<std::string> written;
  for (const auto& [key, entry] : files.items())
    if (entry.is_object() && entry.contains("file")) written.insert(entry["file"].get<std::string>());
  for (const auto& name : previous_files) {
    std::error_code ec;
    if (!written.count(name)) fs::remove(fs::path(o.out_dir) / name, ec);
  }
  return "dumped \"" + spec.name + "\" (B=" + std::to_string(s.batch) + " H=" + std::to_string(s.heads) +
         " S=" + std::to_string(s.seq()) + " D=" + std::to_string(s.head_dim) + ", pairs=" + std::to_string(map.pairs) +
         ") to " + o.out_dir + "; reference outputs: " + (o.reference ? "cpu-ref" : "not computed (--no-reference)") +
         "\n";
}

}  // namespace vsa
