#include "model/verdict.hpp"

#include <array>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

namespace vsa {
namespace {

constexpr std::array<std::pair<Verdict, std::string_view>, 6> kNames{
    {{kSkip, "SKIP"}, {kPass, "PASS"}, {kFail, "FAIL"}, {kFault, "FAULT"}, {kHang, "HANG"}, {kPending, "PENDING"}}};

}  // namespace

std::string_view to_string(Verdict verdict) {
  for (const auto& [v, name] : kNames)
    if (v == verdict) return name;
  throw std::logic_error("verdict out of range: " + std::to_string(static_cast<int>(verdict)));
}

std::string verdict_name(Verdict verdict) { return std::string(to_string(verdict)); }

Verdict verdict_from_string(std::string_view text) {
  for (const auto& [v, name] : kNames)
    if (name == text) return v;
  throw std::invalid_argument("not a verdict: \"" + std::string(text) + "\" (PASS, SKIP, FAIL, FAULT, HANG, PENDING)");
}

int verdict_severity(Verdict verdict) { return static_cast<int>(verdict); }

std::ostream& operator<<(std::ostream& out, Verdict verdict) { return out << to_string(verdict); }

void to_json(nlohmann::json& j, Verdict verdict) { j = to_string(verdict); }

void from_json(const nlohmann::json& j, Verdict& verdict) { verdict = verdict_from_string(j.get<std::string>()); }

}  // namespace vsa
