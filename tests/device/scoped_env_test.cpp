// ScopedEnv (scoped_env.hpp), which the GPU tests use to force a kernel layout for one test:
// the variable's earlier value comes back, and a variable that was not set is unset again.
// Runs without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "scoped_env.hpp"

namespace vsa::test {
namespace {

constexpr const char* kName = "VSA_SCOPED_ENV_TEST";

TEST(ScopedEnv, RestoresTheEarlierValue) {
  setenv(kName, "exported", 1);
  {
    const ScopedEnv forced(kName, "0");
    EXPECT_STREQ(std::getenv(kName), "0");
  }
  EXPECT_STREQ(std::getenv(kName), "exported");
  unsetenv(kName);
}

TEST(ScopedEnv, UnsetsAVariableThatWasNotSet) {
  unsetenv(kName);
  {
    const ScopedEnv forced(kName, "1");
    EXPECT_STREQ(std::getenv(kName), "1");
  }
  EXPECT_EQ(std::getenv(kName), nullptr);
}

}  // namespace
}  // namespace vsa::test
