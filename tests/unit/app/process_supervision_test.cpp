// The pidfile rule (Redis: the configured path, else /var/run/redis.pid when daemonized) and
// sd_notify by hand: the datagram a systemd NOTIFY_SOCKET receives (a path here; "@name" is the
// abstract namespace), 0 without NOTIFY_SOCKET, an error for an address that is no socket.
#include "listd/app/process_supervision.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace {

using listd::app::notify_systemd;
using listd::app::pidfile_path;

TEST(ProcessSupervision, PidfileIsTheConfiguredOneElseRedisDefaultWhenDaemonized) {
  listd::config::ServerSettings s;
  EXPECT_EQ(pidfile_path(s), "");
  s.daemonize = true;
  EXPECT_EQ(pidfile_path(s), "/var/run/redis.pid");
  s.pidfile = "/tmp/x.pid";
  EXPECT_EQ(pidfile_path(s), "/tmp/x.pid");
  s.daemonize = false;
  EXPECT_EQ(pidfile_path(s), "/tmp/x.pid");
}

class NotifySocket : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/listd-notify-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/notify.sock";
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, path_.c_str());
    ASSERT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  }
  void TearDown() override {
    ::close(fd_);
    ::unsetenv("NOTIFY_SOCKET");
    std::filesystem::remove_all(dir_);
  }
  std::string receive() {
    char buf[256];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);  // sent already: no wait
    return n < 0 ? "<nothing>" : std::string(buf, static_cast<std::size_t>(n));
  }
  std::string dir_, path_;
  int fd_ = -1;
};

TEST_F(NotifySocket, EachMessageIsOneDatagramToNotifySocket) {
  ::unsetenv("NOTIFY_SOCKET");
  EXPECT_EQ(notify_systemd("READY=1\n"), 0);
  ::setenv("NOTIFY_SOCKET", path_.c_str(), 1);
  EXPECT_EQ(notify_systemd("READY=1\n"), 1);
  EXPECT_EQ(notify_systemd("STOPPING=1\n"), 1);
  EXPECT_EQ(receive(), "READY=1\n");
  EXPECT_EQ(receive(), "STOPPING=1\n");
  ::setenv("NOTIFY_SOCKET", (dir_ + "/missing.sock").c_str(), 1);
  EXPECT_LT(notify_systemd("READY=1\n"), 0);
  ::setenv("NOTIFY_SOCKET", "relative.sock", 1);
  EXPECT_LT(notify_systemd("READY=1\n"), 0);
}

}  // namespace
