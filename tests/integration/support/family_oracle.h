// A small oracle for one command family: the commands a generator makes from a fixed seed are
// sent to listd and to a real redis-server, one at a time, and every reply must match byte for
// byte. The first mismatch fails the test with the seed, the step, the command and both
// replies. Used by the per-family oracle tests (bitmap_oracle_test.cpp, ...); the big mixed
// oracle is oracle/oracle_test.cpp. A generator may also see redis' previous reply
// (OracleReplyGenerator), and a run may check coverage per command (FamilyOracleOptions).
//   FAMILY_ORACLE_SEED=42 FAMILY_ORACLE_STEPS=100000 integration_tests
//   --gtest_filter='BitmapOracle*'
// replays one seed, or runs longer; FAMILY_ORACLE_TRACE=<file> writes every command and both
// replies, FAMILY_ORACLE_COVERAGE=1 prints each seed's coverage counts.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
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

/// A generator that is also told redis' reply to the command it made before (empty at the start
/// of a seed), so it can draw arguments from earlier answers (the ids a read returned). The
/// commands then depend only on the seed and redis' replies, so a seed still replays.
using OracleReplyGenerator =
    std::function<OracleArgs(std::mt19937_64&, const std::string& previous_reply)>;

struct FamilyOracleOptions {
  /// The run fails if fewer of all replies carried data (a generator that only makes errors
  /// proves nothing).
  int min_data_percent = 40;
  OracleNormalizer normalize;
  /// Every second seed runs on RESP3 (HELLO 3 on both servers' connections).
  bool resp3_every_other_seed = false;
  /// Per-command coverage: the class a data-bearing reply is credited to ("" for none; the
  /// default is the command's name upper-cased), and the fewest replies each class must reach
  /// per seed at `steps` (scaled for FAMILY_ORACLE_STEPS); classes absent are not checked.
  std::function<std::string(const OracleArgs& cmd, const std::string& redis_reply)> credit;
  std::map<std::string, int> min_data_per_class;
};

inline std::string upper_command_name(const OracleArgs& cmd) {
  std::string name = cmd.empty() ? "" : cmd[0];
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

/// Fails the test (seed named) when a coverage class of `counts` is under its minimum.
inline void expect_family_coverage(std::uint64_t seed,
                                   const std::map<std::string, long long>& counts,
                                   const std::map<std::string, int>& minimums, double scale) {
  std::string all;
  for (const auto& [name, n] : counts) all += " " + name + "=" + std::to_string(n);
  for (const auto& [name, minimum] : minimums) {
    const auto it = counts.find(name);
    const long long got = it == counts.end() ? 0 : it->second;
    EXPECT_GE(static_cast<double>(got), minimum * scale)
        << "seed " << seed << ": " << name << " carried data in " << got << " replies, below "
        << minimum * scale << "; all:" << all;
  }
  if (std::getenv("FAMILY_ORACLE_COVERAGE")) std::cout << "seed " << seed << ":" << all << '\n';
}

/// Runs `steps` generated commands per seed (FLUSHALL between seeds) against both servers,
/// comparing each reply byte for byte (after `options.normalize`), then checks the coverage.
inline void run_family_oracle(std::vector<std::uint64_t> seeds, int steps,
                              const std::function<OracleReplyGenerator()>& make_generator,
                              const FamilyOracleOptions& options) {
  const int default_steps = steps;
  if (const char* seed = std::getenv("FAMILY_ORACLE_SEED"); seed && *seed)
    seeds = {std::strtoull(seed, nullptr, 10)};
  if (const char* n = std::getenv("FAMILY_ORACLE_STEPS"); n && *n) steps = std::atoi(n);
  long long total = 0, with_data = 0;
  std::ofstream trace;
  if (const char* path = std::getenv("FAMILY_ORACLE_TRACE"); path && *path) trace.open(path);
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  RespClient ours(listd.port());
  RespClient theirs(redis.port());
  for (std::size_t s = 0; s < seeds.size(); ++s) {
    const std::uint64_t seed = seeds[s];
    const std::string protocol = options.resp3_every_other_seed && s % 2 == 1 ? "3" : "2";
    if (options.resp3_every_other_seed) {
      ASSERT_EQ(ours.call({"HELLO", protocol}).substr(0, 1),
                theirs.call({"HELLO", protocol}).substr(0, 1));
    }
    ASSERT_EQ(ours.call({"FLUSHALL"}), "+OK\r\n");
    ASSERT_EQ(theirs.call({"FLUSHALL"}), "+OK\r\n");
    std::mt19937_64 rng(seed);
    OracleReplyGenerator next = make_generator();
    std::map<std::string, long long> credited;
    std::string previous;
    for (int i = 0; i < steps; ++i) {
      const OracleArgs cmd = next(rng, previous);
      previous = theirs.call(cmd);
      std::string want = previous;
      std::string got = ours.call(cmd);
      if (trace.is_open())
        trace << seed << ' ' << i << ' ' << describe_command(cmd)
              << "\n  redis: " << escape_bytes(previous) << "\n  listd: " << escape_bytes(got)
              << '\n';
      if (options.normalize) {
        want = options.normalize(cmd, want);
        got = options.normalize(cmd, got);
      }
      if (got != want) {
        ADD_FAILURE() << "seed " << seed << " (RESP" << protocol << ") step " << i << ": "
                      << describe_command(cmd) << "\n  redis: " << escape_bytes(want)
                      << "\n  listd: " << escape_bytes(got);
        return;
      }
      ++total;
      if (!reply_has_data(previous)) continue;
      ++with_data;
      const std::string name =
          options.credit ? options.credit(cmd, previous) : upper_command_name(cmd);
      if (!name.empty()) ++credited[name];
    }
    expect_family_coverage(seed, credited, options.min_data_per_class,
                           static_cast<double>(steps) / default_steps);
  }
  EXPECT_GE(with_data * 100, total * options.min_data_percent)
      << with_data << " of " << total << " replies carried data";
}

/// The same for a generator that needs no replies.
inline void run_family_oracle(std::vector<std::uint64_t> seeds, int steps,
                              const std::function<OracleGenerator()>& make_generator,
                              int min_data_percent = 40,
                              const OracleNormalizer& normalize = nullptr) {
  FamilyOracleOptions options;
  options.min_data_percent = min_data_percent;
  options.normalize = normalize;
  run_family_oracle(
      std::move(seeds), steps,
      [&make_generator]() -> OracleReplyGenerator {
        return
            [next = make_generator()](std::mt19937_64& r, const std::string&) { return next(r); };
      },
      options);
}

}  // namespace listd::testing
