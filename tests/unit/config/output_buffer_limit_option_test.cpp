// client-output-buffer-limit as Redis 7.0.15 parses, prints and rewrites it (texts captured from
// redis-server 7.0.15: CONFIG GET, CONFIG SET errors, CONFIG REWRITE lines).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "listd/config/config.h"
#include "listd/config/config_file.h"

namespace listd::config {
namespace {

constexpr std::string_view kOption = "client-output-buffer-limit";
constexpr std::string_view kDefaults =
    "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60";

std::string set_failed(const std::string& why) {
  return "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - " +
         why;
}

const OutputBufferLimit& limit(const Config& cfg, ClientClass c) {
  return cfg.settings().client_obuf_limits[static_cast<int>(c)];
}

TEST(OutputBufferLimitOption, DefaultsAreRedis70sAndPrintInBytes) {
  const Config cfg;
  EXPECT_EQ(cfg.value(kOption), std::string(kDefaults));
  EXPECT_EQ(limit(cfg, ClientClass::kPubsub), (OutputBufferLimit{32ULL << 20, 8ULL << 20, 60}));
  EXPECT_EQ(limit(cfg, ClientClass::kReplica), (OutputBufferLimit{256ULL << 20, 64ULL << 20, 60}));
  EXPECT_EQ(limit(cfg, ClientClass::kNormal), (OutputBufferLimit{0, 0, 0}));
}

TEST(OutputBufferLimitOption, SetTakesSeveralClassesWithUnitsAndKeepsTheOthers) {
  Config cfg;
  EXPECT_EQ(cfg.set(kOption, "pubsub 1mb 512kb 5 NORMAL 10k 2m 0"), std::nullopt);
  EXPECT_EQ(cfg.value(kOption),
            "normal 10000 2000000 0 slave 268435456 67108864 60 pubsub 1048576 524288 5");
  EXPECT_EQ(cfg.set(kOption, "replica 1gb 0 0"), std::nullopt);
  EXPECT_EQ(limit(cfg, ClientClass::kReplica), (OutputBufferLimit{1ULL << 30, 0, 0}));
  EXPECT_EQ(cfg.set(kOption, "slave 2gb 0 0"), std::nullopt);  // the old name, same class
  EXPECT_EQ(limit(cfg, ClientClass::kReplica).hard_bytes, 2ULL << 30);
  EXPECT_EQ(cfg.set(kOption, ""), std::nullopt);  // no group at all: nothing changes
  EXPECT_EQ(limit(cfg, ClientClass::kPubsub).hard_bytes, 1ULL << 20);
}

TEST(OutputBufferLimitOption, ErrorsAreRedisTextsAndRefuseTheWholeValue) {
  Config cfg;
  EXPECT_EQ(cfg.set(kOption, "pubsub 1mb 1mb"),
            set_failed("Wrong number of arguments in buffer limit configuration."));
  EXPECT_EQ(cfg.set(kOption, "pubsub 1mb 1mb 1 master 0 0 0"),
            set_failed("Invalid client class specified in buffer limit configuration."));
  EXPECT_EQ(cfg.set(kOption, "pubsub 1mb 1mb 1 nobody 0 0 0"),
            set_failed("Invalid client class specified in buffer limit configuration."));
  for (const char* bad : {"pubsub 1xb 0 0", "pubsub 0 -1 0", "pubsub 0 0 -1", "pubsub 0 0 1s"}) {
    EXPECT_EQ(cfg.set(kOption, bad),
              set_failed("Error in hard, soft or soft_seconds setting in buffer limit "
                         "configuration."))
        << bad;
  }
  EXPECT_EQ(cfg.value(kOption), std::string(kDefaults));  // nothing of a refused value applied
}

TEST(OutputBufferLimitOption, ConfigFileLinesSetOneClassEach) {
  Config cfg;
  EXPECT_EQ(load_config_text("client-output-buffer-limit pubsub 64mb 16mb 90\n"
                             "client-output-buffer-limit normal 1gb 512mb 10\n",
                             cfg),
            std::nullopt);
  EXPECT_EQ(limit(cfg, ClientClass::kPubsub), (OutputBufferLimit{64ULL << 20, 16ULL << 20, 90}));
  EXPECT_EQ(limit(cfg, ClientClass::kNormal), (OutputBufferLimit{1ULL << 30, 512ULL << 20, 10}));
  // The whole value quoted as one word is split again, as for save.
  EXPECT_EQ(load_config_text("client-output-buffer-limit \"pubsub 1mb 1mb 1\"\n", cfg),
            std::nullopt);
  EXPECT_EQ(limit(cfg, ClientClass::kPubsub).hard_bytes, 1ULL << 20);
}

TEST(OutputBufferLimitOption, RewriteWritesOnlyChangedClassesUnlessTheFileHasLines) {
  Config cfg;
  // At the defaults nothing is appended.
  EXPECT_EQ(rewrite_config_content("port 6379\n", cfg).find("client-output-buffer-limit"),
            std::string::npos);
  ASSERT_EQ(cfg.set(kOption, "pubsub 64mb 16mb 90"), std::nullopt);
  const std::string fresh = rewrite_config_content("port 6379\n", cfg);
  EXPECT_NE(fresh.find("client-output-buffer-limit pubsub 64mb 16mb 90\n"), std::string::npos);
  EXPECT_EQ(fresh.find("client-output-buffer-limit normal"), std::string::npos);
  EXPECT_EQ(fresh.find("client-output-buffer-limit replica"), std::string::npos);
  // Existing lines are reused in class order; Redis' memory format (gb/mb/kb or bytes).
  const std::string reused = rewrite_config_content(
      "client-output-buffer-limit normal 0 0 0\nclient-output-buffer-limit replica 1 2 3\n", cfg);
  EXPECT_NE(reused.find("client-output-buffer-limit normal 0 0 0\n"
                        "client-output-buffer-limit replica 256mb 64mb 60\n"),
            std::string::npos);
  EXPECT_NE(reused.find("client-output-buffer-limit pubsub 64mb 16mb 90\n"), std::string::npos);
}

}  // namespace
}  // namespace listd::config
