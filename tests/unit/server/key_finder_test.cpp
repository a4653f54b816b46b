// Key finding from Redis 7.0.15's key specs and key functions (key_finder.h), and the reference
// rows behind them (command_reference.h).
#include "listd/server/key_finder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "listd/server/command_reference.h"
#include "listd/server/command_table.h"

namespace {

using listd::server::CommandTable;
using listd::server::find_command_keys;

const CommandTable& table() {
  static const CommandTable t = CommandTable::with_all_commands();
  return t;
}

// (position, flags) of each key found in `argv`.
std::vector<std::pair<int, int>> keys_of(std::vector<std::string_view> argv) {
  const auto* spec = table().find(argv[0]);
  if (spec && !spec->subcommands.empty() && argv.size() > 1) spec = spec->find_subcommand(argv[1]);
  EXPECT_NE(spec, nullptr) << argv[0];
  std::vector<std::pair<int, int>> out;
  if (spec)
    for (const auto& k : find_command_keys(*spec, argv)) out.emplace_back(k.pos, k.flags);
  return out;
}

using namespace listd::server;  // the KeySpecFlag constants
using Keys = std::vector<std::pair<int, int>>;

TEST(KeyFinder, RangeSpecsCarryTheirFlags) {
  EXPECT_EQ(keys_of({"get", "k"}), (Keys{{1, kKeySpecRo | kKeySpecAccess}}));
  EXPECT_EQ(
      keys_of({"lmove", "a", "b", "left", "left"}),
      (Keys{{1, kKeySpecRw | kKeySpecAccess | kKeySpecDelete}, {2, kKeySpecRw | kKeySpecInsert}}));
  EXPECT_EQ(keys_of({"mset", "a", "1", "b", "2"}),
            (Keys{{1, kKeySpecOw | kKeySpecUpdate}, {3, kKeySpecOw | kKeySpecUpdate}}));
}

TEST(KeyFinder, VariableFlagsComeFromTheKeyFunction) {
  EXPECT_EQ(keys_of({"set", "k", "v"}), (Keys{{1, kKeySpecOw | kKeySpecUpdate}}));
  EXPECT_EQ(keys_of({"set", "k", "v", "GET"}),
            (Keys{{1, kKeySpecRw | kKeySpecAccess | kKeySpecUpdate}}));
  EXPECT_EQ(keys_of({"bitfield", "k", "get", "u8", "0"}), (Keys{{1, kKeySpecRo | kKeySpecAccess}}));
  EXPECT_EQ(keys_of({"bitfield", "k", "get", "u8"}),
            (Keys{{1, kKeySpecRw | kKeySpecAccess | kKeySpecUpdate}}));
}

TEST(KeyFinder, KeywordSpecsSearchFromTheirStart) {
  // XREADGROUP's stream keys are RO + ACCESS in 7.0.15, after the first STREAMS from argv[4].
  EXPECT_EQ(keys_of({"xreadgroup", "group", "streams", "c", "streams", "s", ">"}),
            (Keys{{5, kKeySpecRo | kKeySpecAccess}}));
  EXPECT_EQ(keys_of({"georadius", "g", "0", "0", "1", "km", "storedist", "d"}),
            (Keys{{1, kKeySpecRo | kKeySpecAccess}, {7, kKeySpecOw | kKeySpecUpdate}}));
}

TEST(KeyFinder, AFailedSpecFallsBackOnTheKeyFunction) {
  // "2x" is no count for the spec; Redis' genericGetKeys reads it with atoi, keys without flags.
  EXPECT_EQ(keys_of({"zunion", "2x", "a", "b"}), (Keys{{2, 0}, {3, 0}}));
  // ... and lists the destination last.
  EXPECT_EQ(keys_of({"zunionstore", "d", " 1", "a"}), (Keys{{3, 0}, {1, 0}}));
  EXPECT_EQ(keys_of({"zunion", "0", "a"}), Keys{});
  // SORT's BY/GET spec is incomplete: its key function finds the key and the STORE key.
  EXPECT_EQ(keys_of({"sort", "k", "limit", "0", "1", "store", "d"}),
            (Keys{{1, kKeySpecRo | kKeySpecAccess}, {6, kKeySpecOw | kKeySpecUpdate}}));
}

TEST(KeyFinder, NotKeysAreNoKeys) {
  EXPECT_EQ(keys_of({"spublish", "ch", "m"}), Keys{});
  EXPECT_FALSE(command_has_keys(*table().find("spublish")));
  EXPECT_TRUE(command_has_keys(*table().find("eval")));
  EXPECT_TRUE(command_keys_optional(*table().find("fcall_ro")));
  EXPECT_FALSE(command_keys_optional(*table().find("zunion")));
}

TEST(CommandReference, EveryCommandButListdsOwnHasARow) {
  const std::vector<std::string_view> own = {"client|setinfo", "client|no-touch", "queues"};
  for (const auto* spec : table().by_slot()) {
    const bool listd_own = std::find(own.begin(), own.end(), spec->full_name) != own.end();
    EXPECT_EQ(command_reference(spec->full_name) == nullptr, listd_own) << spec->full_name;
  }
}

TEST(CommandReference, RowsHoldRedisKeySpecsAndDocs) {
  const CommandReference* xread = command_reference("xread");
  ASSERT_NE(xread, nullptr);
  EXPECT_EQ(xread->info_flags & kInfoMovableKeys, kInfoMovableKeys);
  ASSERT_EQ(xread->key_specs().size(), 1u);
  const ReferenceKeySpec& spec = xread->key_specs()[0];
  EXPECT_EQ(spec.begin_search, ReferenceKeySpec::BeginSearch::kKeyword);
  EXPECT_EQ(spec.keyword, "STREAMS");
  EXPECT_EQ(spec.find[2], 2);  // limit: the first half of what follows
  const auto docs = command_reference("get")->doc_tokens();
  ASSERT_GE(docs.size(), 2u);
  EXPECT_EQ(docs[0].text, "summary");
  EXPECT_EQ(command_reference("nosuch"), nullptr);
}

}  // namespace
