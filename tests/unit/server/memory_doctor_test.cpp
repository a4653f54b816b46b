// MEMORY DOCTOR's report (Redis 7.0's texts for what listd measures), MALLOC-STATS and PURGE as
// Redis 7.0 answers them under libc malloc.
#include "listd/server/memory_doctor.h"

#include <gtest/gtest.h>

#include "support/test_server.h"

using listd::server::memory_doctor_report;
using listd::server::MemoryDoctorFigures;
using listd::testing::TestServer;

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

MemoryDoctorFigures healthy() {
  MemoryDoctorFigures f;
  f.used = f.peak = f.rss = 64 * kMiB;
  f.normal_clients = 2;
  return f;
}

}  // namespace

TEST(MemoryDoctor, AnInstanceUnderFiveMegabytesIsEmpty) {
  MemoryDoctorFigures f = healthy();
  f.used = 5 * kMiB - 1;
  f.peak = 100 * kMiB;  // not looked at when empty
  EXPECT_EQ(memory_doctor_report(f).substr(0, 57),
            "Hi Sam, this instance is empty or is using very little me");
}

TEST(MemoryDoctor, NoIssueFound) {
  EXPECT_EQ(memory_doctor_report(healthy()),
            "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
            "occurs on this base.\n");
}

TEST(MemoryDoctor, EachDetectedIssueGetsItsParagraphInRedisOrder) {
  MemoryDoctorFigures f = healthy();
  f.peak = f.used * 2;  // > 150 %
  f.rss = f.used * 3;   // > 1.4 and > 10 MB over
  f.replicas = 1;
  f.replica_bytes = 11 * kMiB;             // > 10 MB
  f.normal_client_bytes = 2 * 201 * 1024;  // > 200 KB per client
  f.cached_scripts = 1001;
  const std::string r = memory_doctor_report(f);
  EXPECT_EQ(r.substr(0, 70),
            "Sam, I detected a few issues in this Redis instance memory implants:\n\n");
  std::size_t at = 0;
  for (const char* title : {" * Peak memory:", " * High total RSS:", " * Big replica buffers:",
                            " * Big client buffers:", " * Many scripts:"}) {
    const std::size_t found = r.find(title, at);
    ASSERT_NE(found, std::string::npos) << title;
    at = found;
  }
  EXPECT_NE(r.find("Note: The currently used allocator is \"libc\".\n\n"), std::string::npos);
  EXPECT_EQ(r.substr(r.size() - 52), "I'm here to keep you safe, Sam. I want to help you.\n");
}

TEST(MemoryDoctor, ThresholdsAreStrict) {
  MemoryDoctorFigures f = healthy();
  f.peak = f.used * 3 / 2;                 // exactly 150 %
  f.normal_client_bytes = 2 * 200 * 1024;  // exactly 200 KB each
  f.cached_scripts = 1000;
  f.replicas = 1;
  f.replica_bytes = 10 * kMiB;
  EXPECT_EQ(memory_doctor_report(f).substr(0, 39), "Hi Sam, I can't find any memory issue i");
}

TEST(MemoryDoctor, MallocStatsAndPurgeAnswerAsRedisUnderLibc) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"MEMORY", "MALLOC-STATS"}),
            "$45\r\nStats not supported for the current allocator\r\n");
  EXPECT_EQ(t.run(c, {"MEMORY", "PURGE"}), "+OK\r\n");
  const std::string doctor = t.run(c, {"MEMORY", "DOCTOR"});
  EXPECT_EQ(doctor[0], '$');
  EXPECT_NE(doctor.find("Sam"), std::string::npos);
  EXPECT_EQ(t.run(c, {"MEMORY", "PURGE", "x"}),
            "-ERR wrong number of arguments for 'memory|purge' command\r\n");
}
