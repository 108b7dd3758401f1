// wgmma-serialized: ptxas falls back to waiting on every wgmma when it cannot prove
// the asynchronous pipeline safe (warning C7510 at best; nvcc 13.0 printed none for the
// case below). The
// kernel stays correct, so no test catches it; only the SASS shows it. Seen in the
// sm90a backward (kernels/sm90a/NOTES.md, run 6): a 20% loss from one branch.
#include <string>

#include "lint/checks.hpp"

namespace vsa::lint {

namespace {

bool is_full_wgmma_wait(const sass::Instruction& inst) {
  if (!inst.opcode_starts_with("WARPGROUP.DEPBAR")) return false;
  const auto comma = inst.operands.rfind(',');
  const std::string depth = comma == std::string::npos ? "" : inst.operands.substr(comma + 1);
  return depth.find("0x0") != std::string::npos;
}

}  // namespace

void check_wgmma_serialized(const sass::Kernel& kernel, Severity severity, std::vector<Finding>& out) {
  int hgmma = 0;
  bool open = false;  // an HGMMA issued since the last full wait
  std::uint32_t first = 0;
  for (const auto& inst : kernel.instructions) {
    if (inst.base_opcode() == "HGMMA") {
      if (hgmma == 0) first = inst.offset;
      if (open) return;  // two HGMMA in flight together: the pipeline is used
      open = true;
      ++hgmma;
    } else if (open && is_full_wgmma_wait(inst)) {
      open = false;
    }
  }
  if (hgmma < kWgmmaSerializedMinHgmma || open) return;  // the last one not waited alone either
  out.push_back({kRuleWgmmaSerialized, kernel.name, kernel.arch, first,
                 "all " + std::to_string(hgmma) +
                     " HGMMA are each waited on (WARPGROUP.DEPBAR.LE gsb0, 0x0) before the next issues: ptxas "
                     "serialised the wgmma pipeline; look for a branch or call between a "
                     "wgmma and its wait_group, or accumulators read while another group is in flight "
                     "(ptxas -v names the cause: C7514 / C7515 / C7519)",
                 severity});
}

}  // namespace vsa::lint
