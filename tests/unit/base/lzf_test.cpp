// Unit tests for listd::base's LZF codec: round trips of random, repetitive and
// incompressible data at edge sizes, the output bound, Redis-produced bytes, and malformed
// input.
#include "listd/base/lzf.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace listd::base {
namespace {

// Compresses with room for the input's own size; returns "" when it did not fit.
std::string compress(const std::string& in, std::size_t cap) {
  std::string out(cap, '\0');
  const std::size_t n = lzf_compress(in.data(), in.size(), out.data(), cap);
  out.resize(n);
  return out;
}

std::string decompress(const std::string& in, std::size_t len, bool* ok) {
  std::string out(len, '\0');
  *ok = lzf_decompress(in.data(), in.size(), out.data(), len);
  return out;
}

// Round trip with an output buffer of in.size() + in.size() / 16 + 64 (always enough: a
// literal run costs one byte per 32).
void expect_round_trip(const std::string& in) {
  const std::string c = compress(in, in.size() + in.size() / 16 + 64);
  ASSERT_FALSE(in.empty() ? !c.empty() : c.empty()) << in.size();
  if (in.empty()) return;
  bool ok = false;
  ASSERT_EQ(decompress(c, in.size(), &ok), in) << in.size();
  ASSERT_TRUE(ok);
}

std::string random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::string s(n, '\0');
  for (char& ch : s) ch = static_cast<char>(rng() & 0xff);
  return s;
}

std::string json_jobs(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; s.size() < n; ++i) {
    s += R"({"id":")" + std::to_string(100000 + i * 7919) +
         R"(","task":"tasks.send_email","args":["user)" + std::to_string(i % 97) +
         R"(@example.com"],"kwargs":{},"retries":0})";
  }
  s.resize(n);
  return s;
}

TEST(LzfTest, RoundTripsEdgeSizes) {
  std::mt19937_64 rng(7);
  for (std::size_t n : {0u, 1u, 2u, 3u, 4u, 31u, 32u, 33u, 47u, 48u, 64u, 263u, 264u, 265u, 8191u,
                        8192u, 8193u, 8194u, 65536u}) {
    expect_round_trip(random_bytes(rng, n));
    expect_round_trip(std::string(n, 'a'));
    expect_round_trip(json_jobs(n));
  }
}

TEST(LzfTest, RoundTripsRandomMixes) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    std::string s;
    const std::size_t target = rng() % 20000;
    while (s.size() < target) {
      switch (rng() % 4) {
        case 0: s += random_bytes(rng, rng() % 40); break;
        case 1: s += std::string(rng() % 600, static_cast<char>(rng())); break;
        case 2:
          if (!s.empty()) {  // a copy of something earlier, near or beyond the window
            const std::size_t from = rng() % s.size();
            s += s.substr(from, rng() % 300);
          }
          break;
        default: s += json_jobs(rng() % 500);
      }
    }
    expect_round_trip(s);
  }
}

TEST(LzfTest, RepetitiveDataShrinksAndLongRunsUseLongReferences) {
  const std::string run(100000, 'x');
  const std::string c = compress(run, run.size());
  ASSERT_FALSE(c.empty());
  // 264 bytes per 3-byte reference at best: about 1,137 bytes, far below 1%.
  EXPECT_LT(c.size(), run.size() / 80);
  const std::string jobs = json_jobs(8136);
  const std::string cj = compress(jobs, jobs.size());
  EXPECT_LT(cj.size() * 2, jobs.size());  // JSON jobs with repeated keys: under half
  bool ok = false;
  EXPECT_EQ(decompress(cj, jobs.size(), &ok), jobs);
  EXPECT_TRUE(ok);
}

TEST(LzfTest, IncompressibleDataDoesNotFitASmallerBuffer) {
  std::mt19937_64 rng(3);
  const std::string noise = random_bytes(rng, 8136);
  // Random bytes cannot come out 8 bytes shorter: the caller keeps them raw.
  EXPECT_EQ(lzf_compress(noise.data(), noise.size(), std::string(8127, '\0').data(), 8127), 0u);
  // And with room to spare they round-trip at a cost of about one byte per 32.
  expect_round_trip(noise);
}

TEST(LzfTest, OutputNeverPassesTheGivenCapacity) {
  std::mt19937_64 rng(5);
  const std::string in = json_jobs(3000) + random_bytes(rng, 500);
  const std::size_t full = compress(in, in.size() * 2).size();
  ASSERT_GT(full, 0u);
  for (std::size_t cap = 0; cap <= full + 2; ++cap) {
    std::string out(cap + 16, '\x5a');
    const std::size_t n = lzf_compress(in.data(), in.size(), out.data(), cap);
    if (cap < full) {
      EXPECT_EQ(n, 0u) << cap;
    } else {
      EXPECT_EQ(n, full) << cap;
    }
    EXPECT_EQ(out.substr(cap), std::string(16, '\x5a')) << cap;  // nothing written past cap
  }
}

TEST(LzfTest, DecodesRedisOutput) {
  // "ab" x 200 as redis-server 7.0.15 stores it in an RDB string (tests/unit/persistence).
  const std::string redis = "\x02\x61\x62\x61\xe0\xff\x01\xe0\x7a\x01\x01\x61\x62";
  bool ok = false;
  std::string want;
  for (int i = 0; i < 200; ++i) want += "ab";
  EXPECT_EQ(decompress(redis, 400, &ok), want);
  EXPECT_TRUE(ok);
}

TEST(LzfTest, RejectsMalformedInput) {
  bool ok = true;
  decompress(std::string("\x05"
                         "abc",
                         4),
             6, &ok);  // literal run longer than the input
  EXPECT_FALSE(ok);
  decompress(std::string("\x20\x00", 2), 3, &ok);  // reference before the start
  EXPECT_FALSE(ok);
  decompress(std::string("\x00"
                         "a"
                         "\xe0",
                         3),
             20, &ok);  // truncated reference
  EXPECT_FALSE(ok);
  decompress(std::string("\x02"
                         "abc",
                         4),
             2, &ok);  // longer than announced
  EXPECT_FALSE(ok);
  decompress(std::string("\x02"
                         "abc",
                         4),
             4, &ok);  // shorter than announced
  EXPECT_FALSE(ok);
  decompress(std::string("\x00"
                         "a"
                         "\x20\x00",
                         4),
             4, &ok);  // "a" then a run of 3: valid
  EXPECT_TRUE(ok);
}

}  // namespace
}  // namespace listd::base
