// UringLoop's byte streams on socket pairs: multishot receive (no re-arm per request, bytes
// delivered in order, end of file), more sockets with bytes waiting than the provided-buffer ring
// holds (the receive ended by ENOBUFS is re-armed), a paused stream, short sends resubmitted
// until the whole buffer is out, a close with a send in flight (no callback after it; ASan sees
// no use after free) and a nested wait from inside a handler.
#include "listd/net/uring_loop.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace listd::net {
namespace {

struct StreamPair {
  int ours = -1;
  int theirs = -1;
  StreamPair() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) == 0) {
      ours = fds[0];
      theirs = fds[1];
    }
  }
  ~StreamPair() {
    if (ours >= 0) ::close(ours);
    if (theirs >= 0) ::close(theirs);
  }
};

struct RecordingStream final : StreamHandler {
  std::string received;
  int ends = 0;
  int end_error = 1;
  long sent = 0;
  int done = 0;
  std::function<void()> on_bytes;
  void on_received(const char* data, std::size_t n) override {
    received.append(data, n);
    if (on_bytes) on_bytes();
  }
  void on_receive_end(int error) override {
    ++ends;
    end_error = error;
  }
  void on_sent(long result, bool all) override {
    if (result > 0) sent += result;
    done += all;
  }
};

void write_all(int fd, const std::string& s) {
  ASSERT_EQ(::write(fd, s.data(), s.size()), static_cast<ssize_t>(s.size()));
}

// Waits (bounded) until `done` holds.
bool wait_until(IoLoop& loop, const std::function<bool()>& done) {
  for (int i = 0; i < 200 && !done(); ++i) loop.wait_and_dispatch(10);
  return done();
}

class UringLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    loop_ = UringLoop::open(error);
    ASSERT_TRUE(loop_) << error;
    streams_ = loop_->streams();
    ASSERT_NE(streams_, nullptr);
  }
  std::unique_ptr<IoLoop> loop_;
  ByteStreams* streams_ = nullptr;
};

TEST_F(UringLoopTest, ReceivesEveryRequestWithOneArmedReceive) {
  StreamPair p;
  RecordingStream h;
  ASSERT_TRUE(streams_->open(p.ours, &h));
  EXPECT_FALSE(streams_->open(p.ours, &h));  // one stream per socket
  for (int i = 0; i < 5; ++i) {
    write_all(p.theirs, "PING\r\n");
    ASSERT_TRUE(wait_until(*loop_, [&] { return h.received.size() == 6u * (i + 1); }));
  }
  EXPECT_EQ(h.received, "PING\r\nPING\r\nPING\r\nPING\r\nPING\r\n");
  ::shutdown(p.theirs, SHUT_WR);
  ASSERT_TRUE(wait_until(*loop_, [&] { return h.ends == 1; }));
  EXPECT_EQ(h.end_error, 0);  // end of file
  streams_->close(p.ours);
}

TEST_F(UringLoopTest, MoreSocketsWithBytesThanBuffersAllArrive) {
  // 300 sockets (the ring has 256 buffers), each with bytes before the first wait.
  std::vector<std::unique_ptr<StreamPair>> pairs;
  std::vector<std::unique_ptr<RecordingStream>> handlers;
  for (int i = 0; i < 300; ++i) {
    pairs.push_back(std::make_unique<StreamPair>());
    handlers.push_back(std::make_unique<RecordingStream>());
    ASSERT_TRUE(streams_->open(pairs.back()->ours, handlers.back().get()));
  }
  loop_->wait_and_dispatch(0);  // every receive armed
  for (auto& p : pairs) write_all(p->theirs, std::string(4000, 'x'));
  auto all_arrived = [&] {
    for (auto& h : handlers)
      if (h->received.size() != 4000) return false;
    return true;
  };
  EXPECT_TRUE(wait_until(*loop_, all_arrived));
  for (auto& p : pairs) write_all(p->theirs, "more");  // and every receive still armed
  EXPECT_TRUE(wait_until(*loop_, [&] {
    for (auto& h : handlers)
      if (h->received.size() != 4004) return false;
    return true;
  }));
  for (auto& p : pairs) streams_->close(p->ours);
}

TEST_F(UringLoopTest, APausedStreamReceivesNothingUntilResumed) {
  StreamPair p;
  RecordingStream h;
  ASSERT_TRUE(streams_->open(p.ours, &h));
  loop_->wait_and_dispatch(0);
  streams_->set_receiving(p.ours, false);
  loop_->wait_and_dispatch(0);  // the cancel lands
  write_all(p.theirs, "later");
  for (int i = 0; i < 3; ++i) loop_->wait_and_dispatch(0);
  EXPECT_EQ(h.received, "");
  streams_->set_receiving(p.ours, true);
  EXPECT_TRUE(wait_until(*loop_, [&] { return h.received == "later"; }));
  streams_->close(p.ours);
}

TEST_F(UringLoopTest, ASendTheSocketCannotTakeAtOnceGoesOutWhole) {
  StreamPair p;
  RecordingStream h;
  ASSERT_TRUE(streams_->open(p.ours, &h));
  std::string big(4 * 1024 * 1024, 'b');
  for (std::size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>('a' + i % 26);
  const std::string expected = big;
  streams_->send(p.ours, big);
  EXPECT_TRUE(big.empty());  // swapped into the loop's buffer
  EXPECT_TRUE(streams_->sending(p.ours));
  loop_->wait_and_dispatch(1);
  // The socket pair holds far less than 4 MB: the rest is held until the reader reads.
  EXPECT_GT(streams_->unsent(p.ours), 0u);
  std::string got;
  char buf[65536];
  for (int i = 0; i < 5000 && got.size() < expected.size(); ++i) {
    loop_->wait_and_dispatch(1);
    const ssize_t n = ::read(p.theirs, buf, sizeof buf);
    if (n > 0) got.append(buf, static_cast<std::size_t>(n));
  }
  EXPECT_TRUE(got == expected) << got.size() << " of " << expected.size();
  EXPECT_TRUE(wait_until(*loop_, [&] { return h.done == 1; }));
  EXPECT_EQ(h.sent, static_cast<long>(expected.size()));
  EXPECT_FALSE(streams_->sending(p.ours));
  EXPECT_EQ(streams_->unsent(p.ours), 0u);
  streams_->close(p.ours);
}

TEST_F(UringLoopTest, ACloseWithASendInFlightCallsNoHandlerAfterIt) {
  StreamPair p;
  auto h = std::make_unique<RecordingStream>();
  ASSERT_TRUE(streams_->open(p.ours, h.get()));
  std::string big(8 * 1024 * 1024, 'c');  // more than the socket takes: the send waits
  streams_->send(p.ours, big);
  loop_->wait_and_dispatch(0);
  streams_->close(p.ours);
  ::shutdown(p.ours, SHUT_RDWR);
  h.reset();  // the handler is gone: a late completion must not reach it
  for (int i = 0; i < 5; ++i) loop_->wait_and_dispatch(1);
  SUCCEED();
}

TEST_F(UringLoopTest, NestedWaitFromAHandlerKeepsTheOrder) {
  StreamPair a, b;
  RecordingStream outer, inner;
  bool nested = false;
  outer.on_bytes = [&] {
    if (nested) return;
    nested = true;
    write_all(b.theirs, "from b");
    write_all(a.theirs, "second");
    wait_until(*loop_, [&] { return inner.received == "from b"; });
  };
  ASSERT_TRUE(streams_->open(a.ours, &outer));
  ASSERT_TRUE(streams_->open(b.ours, &inner));
  write_all(a.theirs, "first");
  EXPECT_TRUE(wait_until(*loop_, [&] { return outer.received == "firstsecond"; }))
      << outer.received;
  EXPECT_EQ(inner.received, "from b");
  streams_->close(a.ours);
  streams_->close(b.ours);
}

}  // namespace
}  // namespace listd::net
