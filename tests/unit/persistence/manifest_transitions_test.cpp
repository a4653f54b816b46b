#include "listd/persistence/manifest_transitions.h"

#include <gtest/gtest.h>

using namespace listd::persistence;

namespace {

AofFileInfo base(long long seq) {
  return {"p." + std::to_string(seq) + ".base.rdb", seq, AofFileType::kBase};
}
AofFileInfo incr(long long seq) {
  return {"p." + std::to_string(seq) + ".incr.aof", seq, AofFileType::kIncr};
}
AofFileInfo history(AofFileInfo f) {
  f.type = AofFileType::kHistory;
  return f;
}

// base 1, incrs 1 and 2 (what a compacting rewrite leaves while its child runs).
AofManifest two_incrs() {
  AofManifest m;
  m.base = base(1);
  m.curr_base_seq = 1;
  m.incrs = {incr(1), incr(2)};
  m.curr_incr_seq = 2;
  return m;
}

}  // namespace

TEST(ManifestTransitions, NextIncrTakesTheNextSequenceNumber) {
  const AofManifest m = with_next_incr(two_incrs(), "p");
  ASSERT_EQ(m.incrs.size(), 3u);
  EXPECT_EQ(m.incrs.back(), incr(3));
  EXPECT_EQ(m.curr_incr_seq, 3);
  EXPECT_EQ(m.base, base(1));
  EXPECT_TRUE(m.history.empty());
}

TEST(ManifestTransitions, CompactingKeepsTheIncrOpenedAtTheFork) {
  const AofManifest m = with_new_base(two_incrs(), "p", 2, 1);
  EXPECT_EQ(m.base, base(2));
  EXPECT_EQ(m.curr_base_seq, 2);
  EXPECT_EQ(m.incrs, (std::vector<AofFileInfo>{incr(2)}));
  EXPECT_EQ(m.curr_incr_seq, 2);
  EXPECT_EQ(m.history, (std::vector<AofFileInfo>{history(base(1)), history(incr(1))}));
  EXPECT_EQ(m.to_string(),
            "file p.2.base.rdb seq 2 type b\n"
            "file p.1.base.rdb seq 1 type h\n"
            "file p.1.incr.aof seq 1 type h\n"
            "file p.2.incr.aof seq 2 type i\n");
}

TEST(ManifestTransitions, ReplacingMoreIncrsThanThereAreReplacesThemAll) {
  const AofManifest m = with_new_base(two_incrs(), "p", 2, 99);
  EXPECT_TRUE(m.incrs.empty());
  EXPECT_EQ(m.history.size(), 3u);
  EXPECT_EQ(m.curr_incr_seq, 2);  // sequence numbers never go back
}

TEST(ManifestTransitions, TheFirstBaseHasNoHistory) {
  const AofManifest m = with_new_base(AofManifest{}, "p", 1, 0);
  EXPECT_EQ(m.base, base(1));
  EXPECT_TRUE(m.history.empty());
  EXPECT_TRUE(m.incrs.empty());
}

TEST(ManifestTransitions, FreshFilesTurnEverythingIntoHistory) {
  AofManifest old = two_incrs();
  old.history = {history(incr(0))};
  const AofManifest m = with_fresh_files(old, "p");
  EXPECT_EQ(m.base, base(2));
  EXPECT_EQ(m.incrs, (std::vector<AofFileInfo>{incr(3)}));
  EXPECT_EQ(m.history, (std::vector<AofFileInfo>{history(incr(0)), history(base(1)),
                                                 history(incr(1)), history(incr(2))}));
  EXPECT_EQ(m.curr_base_seq, 2);
  EXPECT_EQ(m.curr_incr_seq, 3);
}

TEST(ManifestTransitions, FreshFilesFromNothingAreBaseOneAndIncrOne) {
  const AofManifest m = with_fresh_files(AofManifest{}, "appendonly.aof");
  EXPECT_EQ(m.to_string(),
            "file appendonly.aof.1.base.rdb seq 1 type b\n"
            "file appendonly.aof.1.incr.aof seq 1 type i\n");
}
