#include "listd/persistence/aof_manifest.h"

#include <gtest/gtest.h>

using namespace listd::persistence;

namespace {

ManifestError parse_error(std::string_view text) {
  AofManifest m;
  ManifestError e;
  EXPECT_FALSE(parse_manifest(text, m, e)) << text;
  return e;
}

}  // namespace

TEST(AofManifest, ParsesWhatRedisWrites) {
  AofManifest m;
  ManifestError e;
  ASSERT_TRUE(
      parse_manifest("file appendonly.aof.1.base.rdb seq 1 type b\n"
                     "file appendonly.aof.1.incr.aof seq 1 type i\n",
                     m, e))
      << e.message;
  ASSERT_TRUE(m.base);
  EXPECT_EQ(m.base->name, "appendonly.aof.1.base.rdb");
  EXPECT_EQ(m.curr_base_seq, 1);
  ASSERT_EQ(m.incrs.size(), 1u);
  EXPECT_EQ(m.incrs[0].name, "appendonly.aof.1.incr.aof");
  EXPECT_EQ(m.curr_incr_seq, 1);
}

TEST(AofManifest, KeysInAnyOrderExtraPairsAndCommentsAreAccepted) {
  AofManifest m;
  ManifestError e;
  ASSERT_TRUE(
      parse_manifest("# listd\n"
                     "type b seq 4 file b.rdb\n"
                     "file i2 seq 2 type i future yes\n"
                     "FILE i5 SEQ 5 TYPE i\n",
                     m, e))
      << e.message;
  EXPECT_EQ(m.base->seq, 4);
  ASSERT_EQ(m.incrs.size(), 2u);
  EXPECT_EQ(m.incrs[1].name, "i5");
  EXPECT_EQ(m.curr_incr_seq, 5);
}

TEST(AofManifest, RoundTripsInRedisOrderWithQuotedNames) {
  AofManifest m;
  m.base = AofFileInfo{"base one.rdb", 3, AofFileType::kBase};
  m.history.push_back({"old.aof", 2, AofFileType::kHistory});
  m.incrs.push_back({"a.4.incr.aof", 4, AofFileType::kIncr});
  m.incrs.push_back({"a\"5\n.aof", 5, AofFileType::kIncr});
  m.curr_base_seq = 3;
  m.curr_incr_seq = 5;
  const std::string text = m.to_string();
  EXPECT_EQ(text,
            "file \"base one.rdb\" seq 3 type b\n"
            "file old.aof seq 2 type h\n"
            "file a.4.incr.aof seq 4 type i\n"
            "file \"a\\\"5\\n.aof\" seq 5 type i\n");
  AofManifest back;
  ManifestError e;
  ASSERT_TRUE(parse_manifest(text, back, e)) << e.message;
  EXPECT_EQ(back, m);
}

TEST(AofManifest, ErrorsAreRedisOnes) {
  EXPECT_EQ(parse_error("").message, "Found an empty AOF manifest");
  EXPECT_EQ(parse_error("file a seq 1 type b").message,
            "The AOF manifest file contains too long line");
  EXPECT_EQ(parse_error("file a seq 1 type b\n\n").message, "Invalid AOF manifest file format");
  EXPECT_EQ(parse_error("file a seq 1\n").message, "Invalid AOF manifest file format");
  EXPECT_EQ(parse_error("file a seq 1 type\n").message, "Invalid AOF manifest file format");
  EXPECT_EQ(parse_error("file a seq 0 type i\n").message, "Invalid AOF manifest file format");
  EXPECT_EQ(parse_error("file \"a seq 1 type i\n").message, "Invalid AOF manifest file format");
  EXPECT_EQ(parse_error("file dir/a seq 1 type i\n").message,
            "File can't be a path, just a filename");
  EXPECT_EQ(parse_error("file a seq 1 type b\nfile b seq 2 type b\n").message,
            "Found duplicate base file information");
  EXPECT_EQ(parse_error("file a seq 2 type i\nfile b seq 2 type i\n").message,
            "Found a non-monotonic sequence number");
  EXPECT_EQ(parse_error("file a seq 1 type x\n").message, "Unknown AOF file type");
  EXPECT_EQ(parse_error(std::string(1100, 'f') + "\n").message,
            "The AOF manifest file contains too long line");
}

TEST(AofManifest, ErrorNamesTheLine) {
  const ManifestError e = parse_error("file a seq 1 type b\n# c\nfile b seq 1 type z\n");
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.text, "file b seq 1 type z");
}

TEST(AofManifest, FileNames) {
  EXPECT_EQ(base_file_name("appendonly.aof", 1, true), "appendonly.aof.1.base.rdb");
  EXPECT_EQ(base_file_name("appendonly.aof", 2, false), "appendonly.aof.2.base.aof");
  EXPECT_EQ(incr_file_name("appendonly.aof", 7), "appendonly.aof.7.incr.aof");
  EXPECT_EQ(manifest_file_name("appendonly.aof"), "appendonly.aof.manifest");
}
