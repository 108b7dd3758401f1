#pragma once
// What the engine's host tests share: a small case (ragged rows, random vbs, checked against
// the naive CPU reference) for one backend, and a run of it with that backend registered
// beside the CPU backends.
#include <functional>
#include <memory>
#include <string>

#include "engine/case_runner.hpp"

namespace vsa::test {

inline CaseSpec small_host_case(const std::string& backend, Mode mode = Mode::check) {
  CaseSpec c;
  c.name = backend + "-case";  // (a one-letter literal here trips GCC 12's -Wrestrict false positive)
  c.mode = mode;
  c.shape = Shape{1, 2, 4, 16, 16, 1, 1};
  c.pattern.kind = "ragged";
  c.pattern.density = 0.5;
  c.vbs.kind = "random";
  c.backends = {backend};
  c.reference = "cpu-naive";
  c.stability.runs = 4;
  return c;
}

inline CaseResult run_host_case(std::unique_ptr<Backend> backend, const CaseSpec& spec,
                                std::function<void(const nlohmann::json&)> emit = {}) {
  Registry reg;
  register_cpu_backends(reg);
  reg.add(std::move(backend));
  WorkerContext ctx;
  ctx.registry = &reg;
  ctx.emit = std::move(emit);
  return run_case(spec, ctx).result;
}

}  // namespace vsa::test
