#include "listd/base/scope_exit.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace listd::base {
namespace {

TEST(ScopeExit, RunsOnceWhenTheScopeEnds) {
  int runs = 0;
  {
    ScopeExit guard([&] { ++runs; });
    EXPECT_EQ(runs, 0);
  }
  EXPECT_EQ(runs, 1);
}

TEST(ScopeExit, RunsWhenAnExceptionLeavesTheScope) {
  int runs = 0;
  try {
    ScopeExit guard([&] { ++runs; });
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(runs, 1);
}

TEST(ScopeExit, ReleasedGuardDoesNotRun) {
  int runs = 0;
  {
    ScopeExit guard([&] { ++runs; });
    guard.release();
  }
  EXPECT_EQ(runs, 0);
}

}  // namespace
}  // namespace listd::base
