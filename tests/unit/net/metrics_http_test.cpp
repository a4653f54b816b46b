// The queue view's HTTP endpoint on listd's own EpollLoop, in-process: no asio exists here, so
// every answer below comes from the loop's own waits (a request wakes the wait at once). Each
// exchange pumps the loop a bounded number of times until the client has its whole response.
#include "listd/net/metrics_http.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "listd/net/epoll_loop.h"
#include "support/test_server.h"

namespace listd::net {
namespace {

class MetricsOnTheLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(metrics_.listen({"127.0.0.1"}, 0, error)) << error;
    ASSERT_NE(metrics_.bound_port(), 0);
  }

  int connect_client() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(metrics_.bound_port());
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);  // EINPROGRESS: the loop accepts
    return fd;
  }

  // Sends `request` and runs loop waits (each bounded by 2 s, at most 50) until `fd` has read
  // `until` or the end of the stream; returns what arrived.
  std::string exchange(int fd, const std::string& request, const std::string& until) {
    std::size_t sent = 0;
    std::string got;
    for (int turn = 0; turn < 50; ++turn) {
      if (sent < request.size()) {
        const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n > 0) sent += static_cast<std::size_t>(n);
      }
      loop_.wait_and_dispatch(2000);
      char buf[65536];
      ssize_t n;
      while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) got.append(buf, static_cast<std::size_t>(n));
      if (n == 0 || (!until.empty() && got.find(until) != std::string::npos)) break;
    }
    return got;
  }

  testing::TestServer t_;
  EpollLoop loop_;
  MetricsHttpServer metrics_{loop_, t_.exec()};
};

TEST_F(MetricsOnTheLoop, AnswersMetricsFromTheLoopsOwnWait) {
  auto& c = t_.client();
  t_.run(c, {"RPUSH", "jobs", "a", "b"});
  const int fd = connect_client();
  const std::string reply = exchange(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
                                     "listd_queue_length{db=\"0\",key=\"jobs\"} 2\n");
  EXPECT_EQ(reply.substr(0, 17), "HTTP/1.1 200 OK\r\n");
  EXPECT_NE(reply.find("listd_queue_length{db=\"0\",key=\"jobs\"} 2\n"), std::string::npos)
      << reply;
  EXPECT_EQ(metrics_.open_sessions(), 1u);  // keep-alive
  ::close(fd);
}

TEST_F(MetricsOnTheLoop, KeepAliveAnswersPipelinedRequestsInOrder) {
  const int fd = connect_client();
  const std::string reply = exchange(
      fd, "GET /nope HTTP/1.1\r\n\r\nHEAD / HTTP/1.1\r\n\r\nGET /queues.json HTTP/1.1\r\n\r\n",
      "\"queues\"");
  const std::size_t first = reply.find("HTTP/1.1 404 Not Found");
  const std::size_t second = reply.find("HTTP/1.1 200 OK\r\nContent-Type: text/html");
  const std::size_t third = reply.find("HTTP/1.1 200 OK\r\nContent-Type: application/json");
  EXPECT_EQ(first, 0u) << reply;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_NE(third, std::string::npos) << reply;
  ::close(fd);
}

TEST_F(MetricsOnTheLoop, ConnectionCloseEndsTheSessionAfterItsResponse) {
  const int fd = connect_client();
  const std::string reply = exchange(fd, "GET /metrics HTTP/1.0\r\n\r\n", "");  // to the end
  EXPECT_EQ(reply.substr(0, 17), "HTTP/1.1 200 OK\r\n");
  EXPECT_NE(reply.find("Connection: close\r\n"), std::string::npos);
  EXPECT_EQ(metrics_.open_sessions(), 0u);
  ::close(fd);
}

TEST_F(MetricsOnTheLoop, ABadOrOversizedHeadIsAnsweredAndClosed) {
  int fd = connect_client();
  EXPECT_EQ(exchange(fd, "BROKEN\r\n\r\n", "").substr(0, 24), "HTTP/1.1 400 Bad Request");
  ::close(fd);
  fd = connect_client();
  const std::string big = "GET / HTTP/1.1\r\nX: " + std::string(9000, 'a') + "\r\n\r\n";
  EXPECT_EQ(exchange(fd, big, "").substr(0, 13), "HTTP/1.1 431 ");
  ::close(fd);
  EXPECT_EQ(metrics_.open_sessions(), 0u);
}

TEST_F(MetricsOnTheLoop, APeerThatGoesAwayEndsItsSession) {
  const int fd = connect_client();
  exchange(fd, "GET / HTTP/1.1\r\n\r\n", "</html>");
  ASSERT_EQ(metrics_.open_sessions(), 1u);
  ::close(fd);
  for (int turn = 0; turn < 50 && metrics_.open_sessions() != 0; ++turn)
    loop_.wait_and_dispatch(2000);
  EXPECT_EQ(metrics_.open_sessions(), 0u);
}

}  // namespace
}  // namespace listd::net
