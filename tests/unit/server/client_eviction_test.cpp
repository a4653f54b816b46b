// Client eviction's limit (Redis getClientEvictionLimit): off at 0, bytes as set, a percentage
// of maxmemory (off while maxmemory is 0), and never under 128 KiB. The evictions themselves
// run against real sockets in python.client_eviction (on listd and on redis-server).
#include "listd/server/client_eviction.h"

#include <gtest/gtest.h>

namespace listd::server {
namespace {

std::size_t limit_for(long long maxmemory_clients, unsigned long long maxmemory) {
  config::ServerSettings s;
  s.maxmemory_clients = maxmemory_clients;
  s.maxmemory = maxmemory;
  return ClientEvictor::limit(s);
}

TEST(ClientEvictionLimit, FollowsRedisGetClientEvictionLimit) {
  EXPECT_EQ(limit_for(0, 0), 0u);
  EXPECT_EQ(limit_for(0, 1 << 30), 0u);
  EXPECT_EQ(limit_for(4 << 20, 0), std::size_t{4} << 20);
  EXPECT_EQ(limit_for(-10, 0), 0u);                             // 10% of no ceiling
  EXPECT_EQ(limit_for(-10, 100 << 20), std::size_t{10} << 20);  // 10% of 100 MiB
  EXPECT_EQ(limit_for(-100, 64 << 20), std::size_t{64} << 20);
  EXPECT_EQ(limit_for(1000, 0), 128u * 1024);      // the floor
  EXPECT_EQ(limit_for(-1, 1 << 20), 128u * 1024);  // 1% of 1 MiB is under the floor
}

}  // namespace
}  // namespace listd::server
