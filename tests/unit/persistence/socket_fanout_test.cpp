// SocketFanout over socket pairs: every live socket gets every byte (a write larger than the
// socket buffer waits for room with poll), each its own preamble first; a socket whose peer is
// gone is given up and shut down while the others go on; a socket nobody reads is given up
// after the stall timeout.
#include "listd/persistence/socket_fanout.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

namespace {

using listd::persistence::SocketFanout;

struct Pair {
  Pair() {
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0);
    ::fcntl(fd[0], F_SETFL, ::fcntl(fd[0], F_GETFL) | O_NONBLOCK);  // the writer's side, as net's
  }
  ~Pair() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  int fd[2] = {-1, -1};
};

// Reads `peer` until it reports the end (the writer shut its side down), bounded.
std::string read_to_end(int peer) {
  std::string got;
  char buf[65536];
  for (int i = 0; i < 100000; ++i) {
    const ssize_t n = ::read(peer, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  return got;
}

TEST(SocketFanoutTest, EverySocketGetsItsPreambleThenEveryByte) {
  Pair a, b;
  const std::string big(1 << 20, 'x');  // larger than a socket buffer: the writer must wait
  std::string got_a, got_b;
  std::thread reader([&] { got_a = read_to_end(a.fd[1]); });
  std::thread reader_b([&] { got_b = read_to_end(b.fd[1]); });
  {
    SocketFanout fanout({a.fd[0], b.fd[0]}, 10'000);
    EXPECT_TRUE(fanout.write_each({"pre-a:", "pre-b:"}));
    EXPECT_TRUE(fanout.write_all(big));
    EXPECT_EQ(fanout.alive(), 2u);
    ::shutdown(a.fd[0], SHUT_WR);
    ::shutdown(b.fd[0], SHUT_WR);
  }
  reader.join();
  reader_b.join();
  EXPECT_EQ(got_a, "pre-a:" + big);
  EXPECT_EQ(got_b, "pre-b:" + big);
}

TEST(SocketFanoutTest, ASocketWhosePeerIsGoneIsGivenUpAndShutDown) {
  Pair gone, live;
  ::close(gone.fd[1]);
  gone.fd[1] = -1;
  SocketFanout fanout({gone.fd[0], live.fd[0]}, 10'000);
  EXPECT_TRUE(fanout.write_all("abc"));
  EXPECT_EQ(fanout.alive(), 1u);
  EXPECT_TRUE(fanout.write_all("def"));
  char buf[16];
  EXPECT_EQ(::read(live.fd[1], buf, sizeof buf), 6);
  // Given up: the socket is shut down, so the parent's next read of it sees the end.
  EXPECT_EQ(::recv(gone.fd[0], buf, sizeof buf, MSG_DONTWAIT), 0);
}

TEST(SocketFanoutTest, ASocketThatTakesNothingIsGivenUpAfterTheStallTimeout) {
  Pair stuck;
  SocketFanout fanout({stuck.fd[0]}, 50);
  EXPECT_FALSE(fanout.write_all(std::string(4 << 20, 'x')));  // nobody reads: the buffer fills
  EXPECT_EQ(fanout.alive(), 0u);
}

}  // namespace
