// Redis 7.0's protected mode at accept (net::protected_mode_refuses): only a peer at exactly
// 127.0.0.1 or ::1 is local (Redis islocalClient). The network tests use 127.0.0.1 only, so the
// refusal of another address is proved here; python tests show loopback clients accepted.
#include <gtest/gtest.h>

#include "listd/net/server.h"

namespace listd::net {
namespace {

TEST(ProtectedMode, RefusesNonLoopbackPeersOnlyWithoutADefaultPassword) {
  EXPECT_FALSE(protected_mode_refuses(true, true, "127.0.0.1:51000"));
  EXPECT_FALSE(protected_mode_refuses(true, true, "::1:51000"));
  EXPECT_FALSE(protected_mode_refuses(true, true, "::ffff:127.0.0.1:51000"));  // dual stack
  EXPECT_TRUE(protected_mode_refuses(true, true, "10.1.2.3:51000"));
  EXPECT_TRUE(protected_mode_refuses(true, true, "127.0.0.2:51000"));  // not 127.0.0.1
  EXPECT_TRUE(protected_mode_refuses(true, true, "fe80::1:51000"));
  EXPECT_TRUE(protected_mode_refuses(true, true, "::ffff:10.0.0.1:51000"));
  EXPECT_FALSE(protected_mode_refuses(false, true, "10.1.2.3:51000"));  // protected-mode no
  EXPECT_FALSE(protected_mode_refuses(true, false, "10.1.2.3:51000"));  // a default password
}

}  // namespace
}  // namespace listd::net
