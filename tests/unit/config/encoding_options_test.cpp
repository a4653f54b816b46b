// The small forms' limits (encoding_options.cpp): acting options now, with the names, aliases,
// ranges, defaults, CONFIG GET texts and CONFIG REWRITE lines Redis 7.0.15 gives them (and
// that they had while inert), held in ServerSettings for the executor to hand to the store.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "listd/config/config.h"

namespace listd::config {
namespace {

std::string set_failed(std::string_view name, std::string_view why) {
  return "ERR CONFIG SET failed (possibly related to argument '" + std::string(name) + "') - " +
         std::string(why);
}

const RewriteEntry* entry_for(const std::vector<RewriteEntry>& entries, std::string_view name) {
  for (const RewriteEntry& e : entries) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

TEST(EncodingOptionsTest, DefaultsAndAliasesAreRedisOwn) {
  const Config cfg;
  EXPECT_EQ(*cfg.value("hash-max-listpack-entries"), "512");
  EXPECT_EQ(*cfg.value("hash-max-ziplist-entries"), "512");
  EXPECT_EQ(*cfg.value("hash-max-listpack-value"), "64");
  EXPECT_EQ(*cfg.value("hash-max-ziplist-value"), "64");
  EXPECT_EQ(*cfg.value("zset-max-listpack-entries"), "128");
  EXPECT_EQ(*cfg.value("zset-max-ziplist-entries"), "128");
  EXPECT_EQ(*cfg.value("zset-max-listpack-value"), "64");
  EXPECT_EQ(*cfg.value("zset-max-ziplist-value"), "64");
  EXPECT_EQ(*cfg.value("set-max-intset-entries"), "512");
  EXPECT_EQ(Config::find_option("zset-max-ziplist-value")->name, "zset-max-listpack-value");
  EXPECT_EQ(cfg.get("hash-max-*").size(), 4U);  // both names of both hash options
  EXPECT_TRUE(cfg.settings().inert.non_default.empty());
}

TEST(EncodingOptionsTest, SetStoresTheTypedValue) {
  Config cfg;
  EXPECT_EQ(cfg.set("hash-max-ziplist-entries", "3"), std::nullopt);
  EXPECT_EQ(cfg.set("hash-max-listpack-value", "1kb"), std::nullopt);
  EXPECT_EQ(cfg.set("zset-max-listpack-entries", "0"), std::nullopt);
  EXPECT_EQ(cfg.set("zset-max-ziplist-value", "9"), std::nullopt);
  EXPECT_EQ(cfg.set("set-max-intset-entries", "9223372036854775807"), std::nullopt);
  const ServerSettings& s = cfg.settings();
  EXPECT_EQ(s.hash_max_listpack_entries, 3U);
  EXPECT_EQ(s.hash_max_listpack_value, 1024U);
  EXPECT_EQ(s.zset_max_listpack_entries, 0U);
  EXPECT_EQ(s.zset_max_listpack_value, 9U);
  EXPECT_EQ(s.set_max_intset_entries, 9223372036854775807ULL);
  EXPECT_EQ(*cfg.value("hash-max-ziplist-value"), "1024");
  EXPECT_EQ(*cfg.value("hash-max-listpack-entries"), "3");
  EXPECT_TRUE(s.inert.non_default.empty());
}

TEST(EncodingOptionsTest, ErrorsAreRedisTexts) {
  Config cfg;
  EXPECT_EQ(cfg.set("set-max-intset-entries", "-1"),
            set_failed("set-max-intset-entries",
                       "argument must be between 0 and 9223372036854775807 inclusive"));
  EXPECT_EQ(cfg.set("zset-max-listpack-entries", "1kb"),
            set_failed("zset-max-listpack-entries", "argument couldn't be parsed into an integer"));
  EXPECT_EQ(cfg.set("hash-max-listpack-value", "-1"),
            set_failed("hash-max-listpack-value", "argument must be a memory value"));
  EXPECT_EQ(cfg.set("zset-max-listpack-value", "9223372036854775808"),
            set_failed("zset-max-listpack-value",
                       "argument must be between 0 and 9223372036854775807 inclusive"));
  EXPECT_EQ(cfg.settings().zset_max_listpack_value, 64U);
}

TEST(EncodingOptionsTest, RewriteWritesRedisLines) {
  Config cfg;
  ASSERT_EQ(cfg.set("hash-max-listpack-value", "1kb"), std::nullopt);
  ASSERT_EQ(cfg.set("zset-max-ziplist-entries", "7"), std::nullopt);
  const std::vector<RewriteEntry> entries = cfg.rewrite_entries();
  const RewriteEntry* value = entry_for(entries, "hash-max-listpack-value");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->lines, std::vector<std::string>{"hash-max-listpack-value 1kb"});
  EXPECT_TRUE(value->force);
  const RewriteEntry* zset = entry_for(entries, "zset-max-listpack-entries");
  ASSERT_NE(zset, nullptr);
  EXPECT_EQ(zset->lines, std::vector<std::string>{"zset-max-listpack-entries 7"});
  EXPECT_TRUE(zset->force);
  const RewriteEntry* intset = entry_for(entries, "set-max-intset-entries");
  ASSERT_NE(intset, nullptr);
  EXPECT_EQ(intset->lines, std::vector<std::string>{"set-max-intset-entries 512"});
  EXPECT_FALSE(intset->force);
}

TEST(EncodingOptionsTest, ConfigFileLinesUseEitherName) {
  Config cfg;
  using V = std::vector<std::string>;
  EXPECT_EQ(cfg.apply_directive(V{"hash-max-ziplist-entries", "100"}), std::nullopt);
  EXPECT_EQ(cfg.apply_directive(V{"zset-max-listpack-value", "2kb"}), std::nullopt);
  EXPECT_EQ(cfg.settings().hash_max_listpack_entries, 100U);
  EXPECT_EQ(cfg.settings().zset_max_listpack_value, 2048U);
}

}  // namespace
}  // namespace listd::config
