// A small oracle for one command family: the commands a generator makes from a fixed seed are
// sent to listd and to a real redis-server, one at a time, and every reply must match byte for
// byte. The first mismatch fails the test with the seed, the step, the command and both
// replies. Used by the per-family oracle tests (bitmap_oracle_test.cpp, ...); the big mixed
// oracle is oracle/oracle_test.cpp.
//   FAMILY_ORACLE_SEED=42 FAMILY_ORACLE_STEPS=100000 integration_tests
//   --gtest_filter='BitmapOracle*'
// replays one seed, or runs longer.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "support/resp_client.h"
#include "support/server_process.h"

namespace listd::testing {

using OracleArgs = std::vector<std::string>;
/// Makes the next command; may keep state between calls (the keys it created, ...).
using OracleGenerator = std::function<OracleArgs(std::mt19937_64&)>;
/// Rewrites a reply of `cmd` before the comparison, where Redis' own output is not
/// deterministic (an unstable sort's ties): e.g. the elements in sorted order. Null: exact.
using OracleNormalizer = std::function<std::string(const OracleArgs& cmd, const std::string&)>;

inline std::string describe_command(const OracleArgs& args) {
  std::string out;
  for (const std::string& a : args)
    out += (out.empty() ? "\"" : " \"") + escape_bytes(a, 200) + '"';
  return out;
}

/// True for a reply that carries data: not an error, nil, 0 or an empty aggregate / bulk.
inline bool reply_has_data(const std::string& r) {
  return !r.empty() && r[0] != '-' && r != "$-1\r\n" && r != "*-1\r\n" && r != "_\r\n" &&
         r != ":0\r\n" && r != "*0\r\n" && r != "$0\r\n\r\n";
}

/// Runs `steps` generated commands per seed (FLUSHALL between seeds) against both servers, and
/// fails if fewer than `min_data_percent` of the replies carried data (a generator that only
/// makes errors proves nothing).
inline void run_family_oracle(std::vector<std::uint64_t> seeds, int steps,
                              const std::function<OracleGenerator()>& make_generator,
                              int min_data_percent = 40,
                              const OracleNormalizer& normalize = nullptr) {
  if (const char* seed = std::getenv("FAMILY_ORACLE_SEED"); seed && *seed)
    seeds = {std::strtoull(seed, nullptr, 10)};
  if (const char* n = std::getenv("FAMILY_ORACLE_STEPS"); n && *n) steps = std::atoi(n);
  long long total = 0, with_data = 0;
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  RespClient ours(listd.port());
  RespClient theirs(redis.port());
  for (std::uint64_t seed : seeds) {
    ASSERT_EQ(ours.call({"FLUSHALL"}), "+OK\r\n");
    ASSERT_EQ(theirs.call({"FLUSHALL"}), "+OK\r\n");
    std::mt19937_64 rng(seed);
    OracleGenerator next = make_generator();
    for (int i = 0; i < steps; ++i) {
      const OracleArgs cmd = next(rng);
      std::string want = theirs.call(cmd);
      std::string got = ours.call(cmd);
      if (normalize) {
        want = normalize(cmd, want);
        got = normalize(cmd, got);
      }
      if (got != want) {
        ADD_FAILURE() << "seed " << seed << " step " << i << ": " << describe_command(cmd)
                      << "\n  redis: " << escape_bytes(want) << "\n  listd: " << escape_bytes(got);
        return;
      }
      ++total;
      if (reply_has_data(want)) ++with_data;
    }
  }
  EXPECT_GE(with_data * 100, total * min_data_percent)
      << with_data << " of " << total << " replies carried data";
}

}  // namespace listd::testing
