#include "selftest/cases.hpp"

#include <algorithm>

namespace vsa {
namespace {

using nlohmann::json;

// Small enough for the CPU reference; the planted bug is all that can go wrong.
json gpu_check_case(const std::string& name, const std::string& backend) {
  return {{"name", name},
          {"mode", "check"},
          {"op", "fwd"},
          {"B", 1},
          {"H", 2},
          {"S", 512},
          {"D", 64},
          {"blk", 64},
          {"seed", 11},
          {"reference", "cpu-ref"},
          {"pattern", {{"kind", "topk"}, {"density", 0.5}}},
          {"backends", json::array({backend})},
          {"timeout_s", 120}};
}

json host_case(const std::string& name, const std::string& backend) {
  return {{"name", name},
          {"op", "fwd"},
          {"B", 1},
          {"H", 1},
          {"S", 128},
          {"D", 32},
          {"seed", 11},
          {"reference", "cpu-naive"},
          {"backends", json::array({backend})},
          {"timeout_s", 120}};
}

// Stability with no reference: the outputs are compared with each other only, which
// is how a race hunt runs (a correctness failure would end the case before the runs).
json race_case(const std::string& name, const SelftestOptions& o, bool probe) {
  json c = {{"name", name},
            {"mode", "stability"},
            {"op", "fwd"},
            {"B", 1},
            {"H", 2},
            {"S", 4096},
            {"D", 64},
            {"seed", 11},
            {"reference", "none"},
            {"pattern", {{"kind", "topk"}, {"density", 0.125}}},
            {"stability", {{"runs", o.race_runs}}},
            {"backends", json::array({"selftest-overlap-race"})},
            {"timeout_s", 300}};
  if (probe) c["probes"] = {{"selftest.overlap", o.probe_ns}};
  return c;
}

// A planted fault of the real sm100a kernels on the execution model (host, any machine).
json model_case(const std::string& name, const std::string& backend, const std::string& op,
                const json& pattern = {{"kind", "topk"}, {"density", 0.5}}) {
  return {{"name", name},
          {"mode", "check"},
          {"op", op},
          {"B", 1},
          {"H", 1},
          {"S", 256},
          {"D", 128},
          {"blk", 64},
          {"seed", 11},
          {"reference", "cpu-ref"},
          {"pattern", pattern},
          {"backends", json::array({backend})},
          {"timeout_s", 120}};
}

// What the model's report must say for each planted model backend: every one of these.
std::vector<std::string> model_finding_texts(const std::string& backend) {
  if (backend == "selftest-model-expect-tx-short") return {"waits on mbarrier k_full"};
  // The dq_reduce's tcgen05.ld, unwaited, against the next dQ MMA, each by its protocol op.
  if (backend == "selftest-model-skip-wait-ld")
    return {"(before its wait::ld)", "at protocol op \"dQ_i row", "at protocol op \"dQ_i = dS_n K"};
  if (backend == "selftest-model-tmem-overalloc") return {"tcgen05.alloc: 1024 columns"};
  if (backend == "selftest-model-dealloc-other-warp") return {"tcgen05.dealloc by warp"};
  // The two roles and operations and the TMEM cell: the dQ MMA's accumulator write over the
  // dP^T columns (64..127) that a dsoftmax warp's tcgen05.ld reads.
  if (backend == "selftest-model-tmem-overlap")
    return {"race in sm100a.bwd_blk64",
            "TMEM lane ",
            "tcgen05.ld read by",
            "(dsoftmax warp",
            "tcgen05.mma (D accumulator) write by",
            "(mma warp 9",
            "at protocol op \"dP^T row",
            "at protocol op \"dQ_i = dS_n K"};
  // The fences are happens-before edges: without the after-fence the softmax's S load is not
  // ordered after the S MMA it waited for; without the before-fence the dsoftmax's S^T load is
  // not ordered before the next S MMA that its release lets in.
  if (backend == "selftest-model-skip-fence-after")
    return {"race in sm100a.fwd_blk64", "tcgen05.ld read by", "(softmax warp", "tcgen05.mma (D accumulator) write by"};
  if (backend == "selftest-model-skip-fence-before")
    return {"race in sm100a.bwd_blk64", "tcgen05.ld read by", "(dsoftmax warp", "tcgen05.mma (D accumulator) write by"};
  // A plain C++ shared-memory load (ld_shared) against the producer's bulk copy of that stage.
  if (backend == "selftest-model-stat-next-stage")
    return {"race in sm100a.bwd_blk64", "ld.shared read by", "(dsoftmax warp", "cp.async.bulk load write by"};
  // The issuing thread ends with its bulk group never waited for (groups are per thread).
  if (backend == "selftest-model-store-wait-other-lane")
    return {"thread 0 (warp 0 lane 0, softmax) ended with", "bulk op(s) it issued and never waited for"};
  return {"(no model finding defined for " + backend + ")"};
}

bool has_all(const std::string& text, const std::vector<std::string>& parts) {
  return std::all_of(parts.begin(), parts.end(),
                     [&](const std::string& p) { return text.find(p) != std::string::npos; });
}

// The model's own report from a backend's reason, without the prefix that names the backend,
// op, kernel and CTA ("B backward: model: K CTA 0 (schedule seed 1): race in ..."), with the
// finding's seed in front: "seed 1: race in ...".
std::string model_report(const BackendResult& b) {
  const std::string marker = "(schedule seed ";
  const auto at = b.reason.find(marker);
  const auto end = at == std::string::npos ? std::string::npos : b.reason.find("): ", at);
  if (end == std::string::npos) return b.reason;
  return "seed " + b.reason.substr(at + marker.size(), end - at - marker.size()) + ": " + b.reason.substr(end + 3);
}

std::string clip(const std::string& s, std::size_t n = 110) {
  std::string one_line = s;
  std::replace(one_line.begin(), one_line.end(), '\n', ' ');
  return one_line.size() <= n ? one_line : one_line.substr(0, n - 3) + "...";
}

const BackendResult* find_backend(const CaseResult& r, const std::string& backend) {
  for (const auto& b : r.backends)
    if (b.backend == backend) return &b;
  return nullptr;
}

const TensorMetrics* find_metric(const BackendResult& b, const std::string& tensor) {
  for (const auto& m : b.metrics)
    if (m.tensor == tensor) return &m;
  return nullptr;
}

// "o: 29/29 runs differ from the first (up to 1234 elements)" for the output that differed
// most often, or "0/29 runs differ in any output".
std::string stability_text(const BackendResult& b, bool& differed) {
  differed = false;
  const StabilityOutput* worst = nullptr;
  for (const auto& s : b.stability) {
    if (s.mismatched_runs > 0) differed = true;
    if (!worst || s.mismatched_runs > worst->mismatched_runs) worst = &s;
  }
  if (!worst) return verdict_name(b.verdict) + ": no stability runs" + (b.reason.empty() ? "" : " (" + b.reason + ")");
  if (!differed) return "0/" + std::to_string(worst->runs - 1) + " runs differ in any output";
  return worst->tensor + ": " + std::to_string(worst->mismatched_runs) + "/" + std::to_string(worst->runs - 1) +
         " runs differ from the first (up to " + std::to_string(worst->max_mismatched_elems) + " elements)";
}

}  // namespace

std::vector<PlantedCase> planted_cases(const SelftestOptions& o) {
  json hang_gpu = gpu_check_case("barrier-never-completes", "selftest-deadlock");
  hang_gpu["pattern"]["zero_rows"] = 0.25;  // the rows whose hand-off never ends
  hang_gpu["timeout_s"] = o.hang_timeout_s;
  json hang_host = host_case("host-hang", "selftest-hang");
  hang_host["timeout_s"] = o.hang_timeout_s;
  return {
      {"out-of-bounds write", "FAULT (sticky)", "selftest-oob", Expectation::fault,
       gpu_check_case("out-of-bounds-write", "selftest-oob"), nullptr},
      {"barrier that never completes", "HANG", "selftest-deadlock", Expectation::hang, hang_gpu, nullptr},
      {"cross-warp overlap race + probe", "stability mismatch", "selftest-overlap-race", Expectation::stability,
       race_case("overlap-race-probe", o, true), race_case("overlap-race-no-probe", o, false)},
      {"NaN output", "NaN count", "selftest-nan", Expectation::nan_count, gpu_check_case("nan-output", "selftest-nan"),
       nullptr},
      {"unwritten output row", "unwritten (poison) count", "selftest-unwritten", Expectation::unwritten_count,
       gpu_check_case("unwritten-row", "selftest-unwritten"), nullptr},
      {"host abort", "FAULT with signal", "selftest-abort", Expectation::fault_signal,
       host_case("host-abort", "selftest-abort"), nullptr},
      {"host hang", "HANG", "selftest-hang", Expectation::hang, hang_host, nullptr},
      {"sm100a on the model: S MMA descriptor SBO 512", "correctness FAIL", "selftest-model-wrong-sbo",
       Expectation::wrong_values, model_case("model-wrong-sbo", "selftest-model-wrong-sbo", "fwd"), nullptr},
      {"sm100a on the model: k_full expect-tx 16 bytes short", "deadlock naming the barrier",
       "selftest-model-expect-tx-short", Expectation::model_finding,
       model_case("model-expect-tx-short", "selftest-model-expect-tx-short", "fwd"), nullptr},
      {"sm100a on the model: dq_empty released before wait::ld", "race reported", "selftest-model-skip-wait-ld",
       Expectation::model_finding, model_case("model-skip-wait-ld", "selftest-model-skip-wait-ld", "bwd"), nullptr},
      {"sm100a on the model: tcgen05.alloc of 1024 columns", "TMEM error", "selftest-model-tmem-overalloc",
       Expectation::model_finding, model_case("model-tmem-overalloc", "selftest-model-tmem-overalloc", "fwd"), nullptr},
      {"sm100a on the model: TMEM freed by another warp", "TMEM error", "selftest-model-dealloc-other-warp",
       Expectation::model_finding, model_case("model-dealloc-other-warp", "selftest-model-dealloc-other-warp", "fwd"),
       nullptr},
      {"sm100a on the model: dQ accumulator over the dP^T being read", "race reported", "selftest-model-tmem-overlap",
       Expectation::model_finding, model_case("model-tmem-overlap", "selftest-model-tmem-overlap", "bwd"), nullptr},
      {"sm100a on the model: softmax loads S with no tcgen05.fence::after_thread_sync", "race reported",
       "selftest-model-skip-fence-after", Expectation::model_finding,
       model_case("model-skip-fence-after", "selftest-model-skip-fence-after", "fwd"), nullptr},
      {"sm100a on the model: dsoftmax releases S^T with no tcgen05.fence::before_thread_sync", "race reported",
       "selftest-model-skip-fence-before", Expectation::model_finding,
       model_case("model-skip-fence-before", "selftest-model-skip-fence-before", "bwd"), nullptr},
      {"sm100a on the model: lse / Delta read from the stage being filled", "race reported",
       "selftest-model-stat-next-stage", Expectation::model_finding,
       model_case("model-stat-next-stage", "selftest-model-stat-next-stage", "bwd"), nullptr},
      {"sm100a on the model: O stores waited for by another lane than their issuer", "exit error",
       "selftest-model-store-wait-other-lane", Expectation::model_finding,
       model_case("model-store-wait-other-lane", "selftest-model-store-wait-other-lane", "fwd"), nullptr},
      // Pairs of q blocks with lists of 1 and 2 blocks: the shorter one's step past its count
      // reads the padding, which the harness fills with a block the row did not select.
      {"sm100a on the model: one key block past a row's count", "wrong values", "selftest-model-step-past-count",
       Expectation::wrong_values,
       model_case(
           "model-step-past-count", "selftest-model-step-past-count", "fwd",
           {{"kind", "explicit"},
            {"rows", json::array({json::array({1}), json::array({1, 2}), json::array({0, 3}), json::array({2})})}}),
       nullptr},
  };
}

json stream_case() {
  return {{"name", "stream-cache"},
          {"op", "fwd"},
          {"B", 1},
          {"H", 4},
          {"S", 4096},
          {"D", 64},
          {"seed", 11},
          {"pattern", {{"kind", "topk"}, {"density", 0.25}}},
          {"backends", json::array({"selftest-stream-cache"})}};
}

json planted_suite(const std::vector<PlantedCase>& cases) {
  json list = json::array();
  for (const auto& c : cases) {
    list.push_back(c.spec);
    if (!c.control.is_null()) list.push_back(c.control);
  }
  return {{"name", kSelftestSuiteName},
          {"description", "vsa-bench selftest: planted faults, each of which one check must catch"},
          {"cases", list}};
}

SelftestRow judge_planted_case(const PlantedCase& p, const CaseResult* result, const CaseResult* control) {
  SelftestRow row{p.fault, p.backend, p.expected, "", kMissed};
  const BackendResult* b = result ? find_backend(*result, p.backend) : nullptr;
  if (!b) {
    row.observed = result ? "no result for " + p.backend + (result->message.empty() ? "" : ": " + result->message)
                          : "case missing from the report";
    return row;
  }
  if (b->verdict == kSkip) {
    row.outcome = kNotRun;
    row.observed = clip(b->reason);
    return row;
  }
  bool caught = false;
  switch (p.expectation) {
    case Expectation::fault:
      caught = b->verdict == kFault;
      row.observed = verdict_name(b->verdict) + ": " + clip(b->reason, 90);
      break;
    case Expectation::fault_signal:
      caught = b->verdict == kFault && b->reason.find("signal") != std::string::npos;
      row.observed = verdict_name(b->verdict) + ": " + clip(b->reason, 90);
      break;
    case Expectation::hang:
      caught = b->verdict == kHang;
      row.observed = verdict_name(b->verdict) + ": " + clip(b->reason, 90);
      break;
    case Expectation::stability: {
      row.observed = "probe " + std::to_string(p.spec.at("probes").at("selftest.overlap").get<std::uint32_t>()) +
                     " ns: " + stability_text(*b, caught);
      const BackendResult* c = control ? find_backend(*control, p.backend) : nullptr;
      if (c && c->verdict != kSkip) {
        bool fired = false;
        const std::string text = stability_text(*c, fired);
        row.observed += "; no probe: " + text + (fired ? " (the race fired without the probe)" : "");
      }
      break;
    }
    case Expectation::nan_count: {
      const TensorMetrics* o = find_metric(*b, "o");
      caught = b->verdict == kFail && o && o->nan_count > 0;
      row.observed =
          verdict_name(b->verdict) + (o ? ": o has " + std::to_string(o->nan_count) + " NaN" : ": no metrics for o");
      break;
    }
    case Expectation::wrong_values: {
      const TensorMetrics* o = find_metric(*b, "o");
      caught = b->verdict == kFail && o && !o->pass;
      row.observed =
          verdict_name(b->verdict) + (o ? ": o max |err| " + std::to_string(o->max_abs_err) : ": no metrics for o");
      break;
    }
    case Expectation::model_finding:
      caught = b->verdict == kFault && has_all(b->reason, model_finding_texts(p.backend));
      row.observed = verdict_name(b->verdict) + ": " + clip(model_report(*b), 150);
      break;
    case Expectation::unwritten_count: {
      const TensorMetrics* o = find_metric(*b, "o");
      caught = b->verdict == kFail && o && o->unwritten > 0;
      row.observed = verdict_name(b->verdict) +
                     (o ? ": o has " + std::to_string(o->unwritten) + " unwritten elements" : ": no metrics for o");
      break;
    }
  }
  row.outcome = caught ? kDetected : kMissed;
  return row;
}

}  // namespace vsa
