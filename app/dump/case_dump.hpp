#pragma once
// `vsa-bench dump`: one case's inputs, index lists and CPU-reference outputs as
// .npy files plus a case.json, so tools outside vsa-bench (peer kernels in Python,
// notebooks) run and check exactly our cases. Needs no GPU: inputs come from the
// host counter generator, bit-identical to what the GPU generator gives.
//
// Files (all C order; [B, H, S, D] is the BHSD layout of docs/spec.md):
//   q, k, v, do        [B, H, S, D]       uint16: bf16 bit patterns (float32 = uint32(x) << 16)
//   q2k_idx, k2q_idx   [B, H, nb, max]    int32; past the row's count q2k_idx holds blocks the row
//                                          did not select, k2q_idx -1 (docs/spec.md: never read)
//   q2k_num, k2q_num   [B, H, nb]         int32
//   vbs                [nb]               int32
//   o, dq, dk, dv      [B, H, S, D]       float32, cpu-ref, not rounded to bf16
//   lse                [B, H, S]          float32, base-2 ("M format"), -inf for empty rows
//   case.json          schema "vsa-bench/case-dump": the spec, shape, files, reference
#include <string>
#include <vector>

#include "model/case_spec.hpp"

namespace vsa {

struct DumpOptions {
  std::vector<std::string> suites;  // built-in names or files; empty: every built-in suite
  std::string case_name;            // exact name, or text matching exactly one case
  std::string out_dir;
  bool reference = true;                // false: inputs and index lists only
  double reference_limit_flops = 1e12;  // most docs/spec.md FLOPs (fwd + bwd) the CPU reference may take
  std::vector<std::string> argv;
};

// The case named `name` in the suites (exact name first, else the one case whose
// name contains it). Throws SuiteError when none or several match.
[[nodiscard]] CaseSpec find_case_in_suites(const std::vector<std::string>& suites, const std::string& name);

// Writes the files above into out_dir (created) and returns the line to print. Throws
// SuiteError for bad input: an unknown or ambiguous case, or a case above the reference
// limit (the message says to use --no-reference or raise the limit); std::runtime_error
// when the reference or a file write fails. Every failure throws, so there is no status.
[[nodiscard]] std::string dump_case(const DumpOptions& options);

}  // namespace vsa
