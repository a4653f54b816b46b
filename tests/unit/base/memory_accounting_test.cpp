#include "listd/base/memory_accounting.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace listd::base {
namespace {

constexpr std::size_t kBlock = 1 << 20;

// The pointer escapes, so the compiler cannot elide the allocation ([expr.new] allows it).
void* volatile g_sink = nullptr;

// Sanitizer builds keep ASan's own operator new, which is not counted
// (src/base/counting_operator_new.cpp): these two run in the optimized build, where
// scripts/run-tests.sh builds unit_base too (tests/CMakeLists.txt).
#if !defined(__SANITIZE_ADDRESS__)
TEST(MemoryAccounting, OperatorNewIsCountedUntilDeleted) {
  const std::size_t before = used_memory();
  auto block = std::make_unique<char[]>(kBlock);
  g_sink = block.get();
  EXPECT_GE(used_memory(), before + kBlock);
  block.reset();
  EXPECT_LT(used_memory(), before + kBlock);
}

#endif

TEST(MemoryAccounting, MallocReallocAndFreeAreCounted) {
  const std::size_t before = used_memory();
  void* p = std::malloc(kBlock);
  ASSERT_NE(p, nullptr);
  g_sink = p;
  EXPECT_GE(used_memory(), before + kBlock);
  p = std::realloc(p, 4 * kBlock);
  ASSERT_NE(p, nullptr);
  EXPECT_GE(used_memory(), before + 4 * kBlock);
  std::free(p);
  EXPECT_LT(used_memory(), before + kBlock);
}

#if !defined(__SANITIZE_ADDRESS__)
TEST(MemoryAccounting, CallocAndAlignedNewAreCounted) {
  const std::size_t before = used_memory();
  void* p = std::calloc(kBlock, 1);
  struct alignas(64) Wide {
    char bytes[kBlock];
  };
  auto* wide = new Wide;
  g_sink = p;
  g_sink = wide;
  EXPECT_GE(used_memory(), before + 2 * kBlock);
  delete wide;
  std::free(p);
  EXPECT_LT(used_memory(), before + kBlock);
}
#endif

}  // namespace
}  // namespace listd::base
