// SHA-1 against FIPS 180-4's vectors and padding boundaries (hashlib's digests), and Redis'
// rand48 against the first math.random values a fresh redis-server 7.0.15 gives.
#include <gtest/gtest.h>

#include <string>

#include "listd/script/rand48.h"
#include "listd/script/sha1.h"

namespace listd::script {
namespace {

TEST(Sha1, FipsVectors) {
  EXPECT_EQ(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(sha1_hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(sha1_hex(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST(Sha1, PaddingBoundaries) {
  const std::pair<std::size_t, const char*> cases[] = {
      {55, "c1c8bbdc22796e28c0e15163d20899b65621d65a"},
      {56, "c2db330f6083854c99d4b5bfb6e8f29f201be699"},
      {63, "03f09f5b158a7a8cdad920bddc29b81c18a551f5"},
      {64, "0098ba824b5c16427bd7a1122a5a442a25ec644d"},
      {65, "11655326c708d70319be2610e8a57d9a5b959d3b"},
      {119, "ee971065aaa017e0632a8ca6c77bb3bf8b1dfc56"},
      {120, "f34c1488385346a55709ba056ddd08280dd4c6d6"},
  };
  for (const auto& [n, hex] : cases) EXPECT_EQ(sha1_hex(std::string(n, 'a')), hex) << n;
}

double draw(Rand48& r) { return static_cast<double>(r.next() % 2147483647) / 2147483647.0; }

TEST(Rand48, MatchesRedisMathRandomFromStart) {
  Rand48 r;
  EXPECT_NEAR(draw(r), 0.39646477363839, 1e-14);
  EXPECT_EQ(static_cast<int>(draw(r) * 100) + 1, 85);  // math.random(100)
  r.seed(42);
  EXPECT_NEAR(draw(r), 0.74452500033403, 1e-14);
  EXPECT_EQ(static_cast<int>(draw(r) * 10) + 1, 4);  // math.random(10)
}

}  // namespace
}  // namespace listd::script
