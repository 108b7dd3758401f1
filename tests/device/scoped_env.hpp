#pragma once
// An environment variable set for one scope: the value it had before (or its absence) comes
// back when the scope ends, so a test that forces a layout does not leave the next test, or a
// variable the developer exported for the whole run, changed.
//
//   const ScopedEnv persistent("VSA_SM90A_FWD_FOUR_CTAS", "0");
#include <cstdlib>
#include <optional>
#include <string>

namespace vsa::test {

class ScopedEnv {
 public:
  ScopedEnv(std::string name, const char* value) : m_name(std::move(name)) {
    if (const char* old = std::getenv(m_name.c_str())) m_old = old;
    setenv(m_name.c_str(), value, 1);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (m_old)
      setenv(m_name.c_str(), m_old->c_str(), 1);
    else
      unsetenv(m_name.c_str());
  }

 private:
  std::string m_name;
  std::optional<std::string> m_old;
};

}  // namespace vsa::test
