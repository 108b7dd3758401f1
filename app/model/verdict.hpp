#pragma once
// Verdicts of a backend and of a case. Typed in the code; in reports and over the worker
// pipe they are the upper-case names ("PASS", "SKIP", ...).
#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace vsa {

// Declared in severity order (verdict_severity): a case takes its most severe backend
// verdict, and PASS beats SKIP. kPending marks a backend not yet run, inside a worker or
// when a worker was lost before reaching it; a finished result never holds it.
enum class Verdict { kSkip, kPass, kFail, kFault, kHang, kPending };

inline constexpr Verdict kSkip = Verdict::kSkip;
inline constexpr Verdict kPass = Verdict::kPass;
inline constexpr Verdict kFail = Verdict::kFail;
inline constexpr Verdict kFault = Verdict::kFault;
inline constexpr Verdict kHang = Verdict::kHang;
inline constexpr Verdict kPending = Verdict::kPending;

[[nodiscard]] std::string_view to_string(Verdict verdict);
[[nodiscard]] std::string verdict_name(Verdict verdict);  // to_string as a std::string
// Throws std::invalid_argument naming the text when it is not a verdict name.
[[nodiscard]] Verdict verdict_from_string(std::string_view text);
[[nodiscard]] int verdict_severity(Verdict verdict);
std::ostream& operator<<(std::ostream& out, Verdict verdict);

void to_json(nlohmann::json& j, Verdict verdict);
void from_json(const nlohmann::json& j, Verdict& verdict);

}  // namespace vsa
