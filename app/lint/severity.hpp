#pragma once
// How much a lint finding weighs (app/lint/README.md, "Severity").
//   error:   a correctness defect (docs/spec.md bug classes: an empty body, a missing MMA, a
//            release before the load completes), or a performance defect in one of our own
//            kernels (the default rule table's families); fails `lint` (exit 1).
//   warning: a performance property of a kernel someone else wrote (local memory or a
//            serialised wgmma pipeline in a family a plugin declares): reported, and fails
//            `lint` only under --strict. Such a kernel computes the right values.
namespace vsa::lint {

enum class Severity { error, warning };

[[nodiscard]] constexpr const char* to_string(Severity severity) {
  return severity == Severity::warning ? "warning" : "error";
}

}  // namespace vsa::lint
