// The start-up choice of the I/O backend (choose_io_backend): `auto` falls back to epoll when
// io_uring is refused (the opener fails as under a seccomp profile), `io_uring` then fails with
// the reason, `epoll` never opens a ring; the reasons name what happened for the start-up log.
#include "listd/net/io_backend.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "listd/net/uring_loop.h"

namespace listd::net {
namespace {

int opener_calls = 0;

// What io_uring_queue_init answers under Docker's default seccomp profile.
std::unique_ptr<IoLoop> refused_like_seccomp(std::string& error) {
  ++opener_calls;
  error = std::string("io_uring_queue_init: ") + std::strerror(EPERM);
  return nullptr;
}

TEST(IoBackend, AutoFallsBackToEpollWhenIoUringIsRefused) {
  const ChosenBackend chosen = choose_io_backend(config::IoBackend::kAuto, &refused_like_seccomp);
  ASSERT_TRUE(chosen.loop);
  EXPECT_STREQ(chosen.loop->name(), "epoll");
  EXPECT_EQ(chosen.reason,
            "io-backend auto, io_uring unavailable: io_uring_queue_init: Operation not permitted");
}

TEST(IoBackend, IoUringAskedForFailsStartUpWithTheReason) {
  const ChosenBackend chosen =
      choose_io_backend(config::IoBackend::kIoUring, &refused_like_seccomp);
  EXPECT_FALSE(chosen.loop);
  EXPECT_EQ(chosen.reason, "io-backend io_uring: io_uring_queue_init: Operation not permitted");
}

TEST(IoBackend, EpollNeverOpensARing) {
  opener_calls = 0;
  const ChosenBackend chosen = choose_io_backend(config::IoBackend::kEpoll, &refused_like_seccomp);
  ASSERT_TRUE(chosen.loop);
  EXPECT_STREQ(chosen.loop->name(), "epoll");
  EXPECT_EQ(opener_calls, 0);
}

TEST(IoBackend, AutoIsIoUringWhereTheKernelAllowsIt) {
  const ChosenBackend chosen = choose_io_backend(config::IoBackend::kAuto, &UringLoop::open);
  ASSERT_TRUE(chosen.loop) << chosen.reason;
  EXPECT_STREQ(chosen.loop->name(), "io_uring");
  EXPECT_NE(chosen.loop->streams(), nullptr);
  EXPECT_EQ(chosen.reason, "io-backend auto");
}

}  // namespace
}  // namespace listd::net
