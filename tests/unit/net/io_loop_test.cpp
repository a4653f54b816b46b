// The readiness half of both I/O backends (EpollLoop, UringLoop) on socket pairs: registered
// once, level-triggered reports, interest changes, removal, and a nested wait from inside a
// handler (a busy script's hook does that). Each test runs once per backend.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>

#include "listd/net/epoll_loop.h"
#include "listd/net/uring_loop.h"

namespace listd::net {
namespace {

struct SocketPair {
  int ours = -1;
  int theirs = -1;
  SocketPair() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) == 0) {
      ours = fds[0];
      theirs = fds[1];
    }
  }
  ~SocketPair() {
    if (ours >= 0) ::close(ours);
    if (theirs >= 0) ::close(theirs);
  }
};

struct RecordingHandler final : IoHandler {
  int readable = 0;
  int writable = 0;
  int hangup = 0;
  std::function<void()> action;
  void on_io(bool r, bool w, bool h) override {
    readable += r;
    writable += w;
    hangup += h;
    if (action) action();
  }
};

void write_all(int fd, const std::string& s) {
  ASSERT_EQ(::write(fd, s.data(), s.size()), static_cast<ssize_t>(s.size()));
}

TEST(EpollLoop, OpensAnInstance) {
  EpollLoop loop;
  std::string error;
  EXPECT_TRUE(loop.ok(error)) << error;
  EXPECT_GE(loop.fd(), 0);
  EXPECT_EQ(loop.streams(), nullptr);  // its connections read and write themselves
}

// The backend under test, by name.
class IoLoopTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string error;
    if (GetParam() == "epoll") {
      loop_ = std::make_unique<EpollLoop>();
    } else {
      loop_ = UringLoop::open(error);
    }
    ASSERT_TRUE(loop_) << error;
  }
  std::unique_ptr<IoLoop> loop_;
};

TEST_P(IoLoopTest, NothingReadyIsZeroWithoutBlocking) {
  IoLoop& loop = *loop_;
  SocketPair p;
  RecordingHandler h;
  ASSERT_TRUE(loop.add(p.ours, &h, true, false));
  EXPECT_EQ(loop.wait_and_dispatch(0), 0);
  EXPECT_EQ(h.readable, 0);
}

TEST_P(IoLoopTest, UnreadBytesAreReportedAgainLevelTriggered) {
  IoLoop& loop = *loop_;
  SocketPair p;
  RecordingHandler h;
  ASSERT_TRUE(loop.add(p.ours, &h, true, false));
  write_all(p.theirs, "PING\r\n");
  EXPECT_EQ(loop.wait_and_dispatch(0), 1);
  EXPECT_EQ(loop.wait_and_dispatch(0), 1);  // still unread: reported without any re-arm
  EXPECT_EQ(h.readable, 2);
  char buf[16];
  ASSERT_EQ(::read(p.ours, buf, sizeof buf), 6);
  EXPECT_EQ(loop.wait_and_dispatch(0), 0);
  write_all(p.theirs, "PING\r\n");  // registered once: the next request is reported too
  EXPECT_EQ(loop.wait_and_dispatch(0), 1);
  EXPECT_EQ(h.readable, 3);
}

TEST_P(IoLoopTest, WriteInterestIsReportedOnlyWhileAsked) {
  IoLoop& loop = *loop_;
  SocketPair p;
  RecordingHandler h;
  ASSERT_TRUE(loop.add(p.ours, &h, true, false));
  EXPECT_EQ(loop.wait_and_dispatch(0), 0);  // writable, but nobody asked
  ASSERT_TRUE(loop.modify(p.ours, &h, true, true));
  EXPECT_EQ(loop.wait_and_dispatch(0), 1);
  EXPECT_EQ(h.writable, 1);
  EXPECT_EQ(h.readable, 0);
  ASSERT_TRUE(loop.modify(p.ours, &h, false, false));
  write_all(p.theirs, "x");
  EXPECT_EQ(loop.wait_and_dispatch(0), 0);  // reading stopped (a busy script's caller)
  ASSERT_TRUE(loop.modify(p.ours, &h, true, false));
  EXPECT_EQ(loop.wait_and_dispatch(0), 1);  // what arrived meanwhile is reported now
  EXPECT_EQ(h.readable, 1);
}

TEST_P(IoLoopTest, PeerCloseIsReportedAsReadable) {
  IoLoop& loop = *loop_;
  SocketPair p;
  RecordingHandler h;
  ASSERT_TRUE(loop.add(p.ours, &h, true, false));
  ::close(p.theirs);
  p.theirs = -1;
  EXPECT_EQ(loop.wait_and_dispatch(0), 1);
  EXPECT_EQ(h.readable + h.hangup > 0, true);
}

TEST_P(IoLoopTest, RemovedDescriptorIsNotReported) {
  IoLoop& loop = *loop_;
  SocketPair p;
  RecordingHandler h;
  ASSERT_TRUE(loop.add(p.ours, &h, true, false));
  loop.remove(p.ours);
  write_all(p.theirs, "x");
  EXPECT_EQ(loop.wait_and_dispatch(0), 0);
  EXPECT_FALSE(loop.modify(p.ours, &h, true, false));  // no longer registered
}

TEST_P(IoLoopTest, AddingTwiceFails) {
  IoLoop& loop = *loop_;
  SocketPair p;
  RecordingHandler h;
  ASSERT_TRUE(loop.add(p.ours, &h, true, false));
  EXPECT_FALSE(loop.add(p.ours, &h, true, false));
}

TEST_P(IoLoopTest, NestedWaitFromAHandlerLosesNoReport) {
  IoLoop& loop = *loop_;
  SocketPair a, b;
  RecordingHandler outer, inner;
  int nested_ready = -1;
  outer.action = [&] {
    char c;
    ASSERT_EQ(::read(a.ours, &c, 1), 1);
    if (nested_ready < 0) nested_ready = loop.wait_and_dispatch(0);
  };
  ASSERT_TRUE(loop.add(a.ours, &outer, true, false));
  write_all(a.theirs, "x");
  ASSERT_EQ(loop.wait_and_dispatch(0), 1);  // b not registered yet: only a
  ASSERT_TRUE(loop.add(b.ours, &inner, true, false));
  write_all(b.theirs, "y");
  write_all(a.theirs, "x");
  nested_ready = -1;
  const int outer_ready = loop.wait_and_dispatch(0);
  EXPECT_GE(outer_ready, 1);
  EXPECT_GE(inner.readable, 1);  // seen by the nested wait or the outer one, never lost
}

// A handler retired while a wait runs (a session closed by another handler, or by a busy
// script's nested wait) gets none of that wait's remaining events and is freed after it.
struct CountedHandler final : IoHandler {
  int* calls;
  bool* destroyed;
  CountedHandler(int* c, bool* d) : calls(c), destroyed(d) {}
  ~CountedHandler() override { *destroyed = true; }
  void on_io(bool, bool, bool) override { ++*calls; }
};

TEST_P(IoLoopTest, ARetiredHandlerGetsNoMoreEventsAndIsFreedAfterTheWait) {
  IoLoop& loop = *loop_;
  SocketPair a, b;
  int b_calls = 0, b_calls_at_retire = -1;
  bool b_destroyed = false, destroyed_at_retire = true;
  auto owned = std::make_unique<CountedHandler>(&b_calls, &b_destroyed);
  RecordingHandler retirer;
  retirer.action = [&] {
    if (!owned) return;
    loop.remove(b.ours);
    loop.retire(std::move(owned));
    b_calls_at_retire = b_calls;
    destroyed_at_retire = b_destroyed;
  };
  ASSERT_TRUE(loop.add(a.ours, &retirer, true, false));
  ASSERT_TRUE(loop.add(b.ours, owned.get(), true, false));
  write_all(a.theirs, "x");
  write_all(b.theirs, "y");
  // Both ready before one wait, in either order (io_uring does not count an event it dropped).
  EXPECT_GE(loop.wait_and_dispatch(1000), 1);
  EXPECT_FALSE(destroyed_at_retire);
  EXPECT_EQ(b_calls, b_calls_at_retire);  // nothing after the retirement
  EXPECT_TRUE(b_destroyed);
  loop.retire(std::make_unique<CountedHandler>(&b_calls, &b_destroyed));  // outside: at once
}

INSTANTIATE_TEST_SUITE_P(Backends, IoLoopTest, ::testing::Values("epoll", "io_uring"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace listd::net
