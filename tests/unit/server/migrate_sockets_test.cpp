// MigrateSockets: MIGRATE's kept connections, against a listening socket of the test's own on
// 127.0.0.1 (the python tests drive MIGRATE itself against real servers).
#include "listd/server/migrate_sockets.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace listd::server {
namespace {

// A socket listening on a free port of every loopback address (127.0.0.0/8); connections wait
// in its backlog until accepted.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 256), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = std::to_string(ntohs(a.sin_port));
  }
  ~Listener() { ::close(fd_); }
  const std::string& port() const { return port_; }
  int accept() { return ::accept(fd_, nullptr, nullptr); }

 private:
  int fd_ = -1;
  std::string port_;
};

TEST(MigrateSockets, AConnectionIsKeptPerTargetAndClosedAfterTenIdleSeconds) {
  Listener target, other;
  MigrateSockets sockets;
  MigrateSockets::Link* a = sockets.get("127.0.0.1", target.port(), 1000, 100);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->last_dbid, -1);
  a->last_dbid = 3;
  EXPECT_EQ(sockets.get("127.0.0.1", target.port(), 1000, 105), a);  // the same, kept
  ASSERT_NE(sockets.get("127.0.0.1", other.port(), 1000, 108), nullptr);
  EXPECT_EQ(sockets.size(), 2u);
  sockets.close_idle(115);  // `target` last used at 105: exactly 10 s is not yet idle
  EXPECT_EQ(sockets.size(), 2u);
  sockets.close_idle(116);
  EXPECT_EQ(sockets.size(), 1u);
  MigrateSockets::Link* again = sockets.get("127.0.0.1", target.port(), 1000, 116);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->last_dbid, -1);  // a new connection: SELECT is sent again
  sockets.close("127.0.0.1", other.port());
  EXPECT_EQ(sockets.size(), 1u);
}

TEST(MigrateSockets, AnUnknownHostIsNoConnection) {
  MigrateSockets sockets;
  EXPECT_EQ(sockets.get("no-such-host.invalid", "6379", 500, 0), nullptr);
  EXPECT_EQ(sockets.size(), 0u);
}

TEST(MigrateSockets, AtMostSixtyFourAreKept) {
  Listener target;
  MigrateSockets sockets;
  for (int i = 1; i <= 70; ++i) {  // 70 targets: 127.0.0.1 .. 127.0.0.70, one listener
    const std::string host = "127.0.0." + std::to_string(i);
    ASSERT_NE(sockets.get(host, target.port(), 1000, 0), nullptr) << host;
    EXPECT_EQ(sockets.size(), std::min<std::size_t>(i, MigrateSockets::kMaxCached));
  }
}

TEST(MigrateSockets, LinesAreReadAcrossReceivesAndASilentTargetTimesOut) {
  Listener target;
  MigrateSockets sockets;
  MigrateSockets::Link* link = sockets.get("127.0.0.1", target.port(), 1000, 0);
  ASSERT_NE(link, nullptr);
  const int peer = target.accept();
  ASSERT_GE(peer, 0);
  bool timed_out = false;
  ASSERT_TRUE(MigrateSockets::write_all(*link, "*1\r\n$4\r\nPING\r\n", 1000, timed_out));
  char buf[64];
  EXPECT_EQ(::recv(peer, buf, sizeof buf, 0), 14);
  ASSERT_EQ(::send(peer, "+OK\r\n-ERR x\r\n+PAR", 17, 0), 17);
  std::string line;
  ASSERT_TRUE(MigrateSockets::read_line(*link, line, 1000, timed_out));
  EXPECT_EQ(line, "+OK");
  ASSERT_TRUE(MigrateSockets::read_line(*link, line, 1000, timed_out));
  EXPECT_EQ(line, "-ERR x");
  ASSERT_EQ(::send(peer, "TIAL\r\n", 6, 0), 6);
  ASSERT_TRUE(MigrateSockets::read_line(*link, line, 1000, timed_out));
  EXPECT_EQ(line, "+PARTIAL");
  EXPECT_FALSE(MigrateSockets::read_line(*link, line, 50, timed_out));  // nothing more comes
  EXPECT_TRUE(timed_out);
  ::close(peer);
  EXPECT_FALSE(MigrateSockets::read_line(*link, line, 1000, timed_out));  // closed: not a timeout
  EXPECT_FALSE(timed_out);
}

}  // namespace
}  // namespace listd::server
