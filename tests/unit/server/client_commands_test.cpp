// CLIENT LIST / INFO output-memory fields and CLIENT KILL / LIST TYPE by client class, on the
// executor (no sockets): Redis 7.0's getClientType and catClientInfoString.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "listd/server/output_buffer_limits.h"
#include "support/test_server.h"

using listd::server::Client;
using listd::server::kReplyChunkBytes;
using listd::testing::TestServer;

namespace {

// The value of `field=` in a CLIENT LIST / INFO reply.
std::string field(const std::string& line, const std::string& name) {
  const std::size_t at = line.find(" " + name + "=");
  if (at == std::string::npos) return "<missing>";
  const std::size_t begin = at + name.size() + 2;
  return line.substr(begin, line.find_first_of(" \n", begin) - begin);
}

std::vector<Client*> sorted(std::vector<Client*> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(ClientInfoOutputMemory, IdleClientShowsNothingHeld) {
  TestServer t;
  Client& c = t.client();
  const std::string info = t.run(c, {"CLIENT", "INFO"});
  EXPECT_EQ(field(info, "obl"), "0");
  EXPECT_EQ(field(info, "oll"), "0");
  EXPECT_EQ(field(info, "omem"), "0");
  EXPECT_EQ(field(info, "rbs"), "16384");
}

TEST(ClientInfoOutputMemory, BacklogBeyondTheStaticBufferCountsAsBlocks) {
  TestServer t;
  Client& slow = t.client();
  Client& other = t.client();
  t.run(slow, {"SUBSCRIBE", "ch"});
  t.take_output(slow);
  t.transport(slow).pending = 3 * kReplyChunkBytes + 100;  // the socket took none of it yet
  const std::string list = t.run(other, {"CLIENT", "LIST", "ID", std::to_string(slow.id)});
  EXPECT_EQ(field(list, "obl"), std::to_string(kReplyChunkBytes));
  EXPECT_EQ(field(list, "oll"), "3");
  EXPECT_EQ(field(list, "omem"), std::to_string(2 * kReplyChunkBytes + 100));
  EXPECT_EQ(field(list, "flags"), "P");
}

TEST(ClientInfoQueryBuffer, QbufFreeAndTotMemAreTheTransportsReadBufferRoom) {
  TestServer t;
  Client& idle = t.client();
  Client& other = t.client();
  const auto list = [&] { return t.run(other, {"CLIENT", "LIST", "ID", std::to_string(idle.id)}); };
  t.transport(idle).qbuf_free = 16384;  // a read buffer allocated, nothing in it
  const std::string with_buffer = list();
  EXPECT_EQ(field(with_buffer, "qbuf"), "0");
  EXPECT_EQ(field(with_buffer, "qbuf-free"), "16384");
  t.transport(idle).qbuf_free = 0;  // given back by the cron (net::Connection)
  const std::string released = list();
  EXPECT_EQ(field(released, "qbuf-free"), "0");
  // Redis' tot-mem counts the query buffer's whole allocation.
  EXPECT_EQ(std::stoll(field(with_buffer, "tot-mem")) - std::stoll(field(released, "tot-mem")),
            16384);
}

TEST(ClientKillType, PubsubKillsSubscribersAndNormalSparesThem) {
  TestServer t;
  Client& admin = t.client();
  Client& worker = t.client();
  Client& sub = t.client();
  Client& psub = t.client();
  t.run(sub, {"SUBSCRIBE", "ch"});
  t.run(psub, {"HELLO", "3"});
  t.run(psub, {"PSUBSCRIBE", "p*"});
  EXPECT_EQ(t.run(admin, {"CLIENT", "KILL", "TYPE", "normal"}), ":1\r\n");  // skipme: admin
  EXPECT_EQ(t.exec().clients().take_kill_list(), std::vector<Client*>{&worker});
  EXPECT_EQ(t.run(admin, {"CLIENT", "KILL", "TYPE", "PUBSUB", "SKIPME", "no"}), ":2\r\n");
  EXPECT_EQ(sorted(t.exec().clients().take_kill_list()), sorted({&sub, &psub}));
  EXPECT_EQ(t.run(admin, {"CLIENT", "KILL", "TYPE", "replica"}), ":0\r\n");
  EXPECT_EQ(t.run(admin, {"CLIENT", "KILL", "TYPE", "master"}), ":0\r\n");
  EXPECT_EQ(t.run(admin, {"CLIENT", "KILL", "TYPE", "other"}),
            "-ERR Unknown client type 'other'\r\n");
}

TEST(ClientListType, FiltersByTheSameClasses) {
  TestServer t;
  Client& admin = t.client();
  Client& sub = t.client();
  t.run(sub, {"SSUBSCRIBE", "s"});
  const std::string pubsub = t.run(admin, {"CLIENT", "LIST", "TYPE", "pubsub"});
  EXPECT_EQ(field(pubsub, "id"), "<missing>");  // the first field has no leading space
  EXPECT_EQ(pubsub.find("id=" + std::to_string(admin.id) + " "), std::string::npos);
  EXPECT_NE(pubsub.find("id=" + std::to_string(sub.id) + " "), std::string::npos);
  const std::string normal = t.run(admin, {"CLIENT", "LIST", "TYPE", "normal"});
  EXPECT_NE(normal.find("id=" + std::to_string(admin.id) + " "), std::string::npos);
  EXPECT_EQ(normal.find("id=" + std::to_string(sub.id) + " "), std::string::npos);
}

}  // namespace

// Redis 7.0 (read off redis-server 7.0.15): an unknown user is an error before anything is
// killed; user names are case-sensitive; `default` is every connection's user here.
TEST(ClientKillUser, UnknownUserIsAnErrorAndDefaultMatchesEveryone) {
  TestServer t;
  Client& admin = t.client();
  Client& worker = t.client();
  EXPECT_EQ(t.run(admin, {"CLIENT", "KILL", "USER", "nobody"}), "-ERR No such user 'nobody'\r\n");
  EXPECT_EQ(t.run(admin, {"CLIENT", "KILL", "USER", "Default"}), "-ERR No such user 'Default'\r\n");
  EXPECT_TRUE(t.exec().clients().take_kill_list().empty());
  EXPECT_EQ(t.run(admin, {"CLIENT", "KILL", "USER", "default"}), ":1\r\n");  // skipme: admin
  EXPECT_EQ(t.exec().clients().take_kill_list(), std::vector<Client*>{&worker});
}
