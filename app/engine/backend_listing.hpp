#pragma once
// What `vsa-bench list` shows: suites, backends with their images and support
// on this machine's GPUs, and a suite's expanded cases.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vsa {

class Registry;

[[nodiscard]] nlohmann::json list_suites_json();
[[nodiscard]] nlohmann::json list_backends_json();  // the built-in registry
[[nodiscard]] nlohmann::json list_backends_json(const Registry& registry);
// The cases SUITE expands to; with filters, only those whose suite-qualified name contains
// one of them (as `run --case` selects). A filter that keeps nothing is a SuiteError.
[[nodiscard]] nlohmann::json list_cases_json(const std::string& suite, const std::vector<std::string>& filters = {});
[[nodiscard]] std::string render_listing(const nlohmann::json& listing);

}  // namespace vsa
