// Wire-level tests of the real listd: RESP2 requests, inline commands, pipelining, fragmented
// requests and every protocol error (exact reply text, connection closed, server still serving
// others). Expected bytes were captured from redis-server 7.0.15 with the same requests.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/hiredis_ptr.h"
#include "support/resp_client.h"
#include "support/server_process.h"

namespace listd::testing {
namespace {

using namespace std::chrono_literals;

template <class... Args>
ReplyPtr command(redisContext* c, const char* format, Args... args) {
  return ReplyPtr(static_cast<redisReply*>(redisCommand(c, format, args...)));
}

/// Runs a shell command and returns its stdout (and exit status through status).
std::string run_shell(const std::string& cmd, int* status = nullptr) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int st = ::pclose(p);
  if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

constexpr std::string_view kPingRequest = "*1\r\n$4\r\nPING\r\n";

// True once the server has read everything sent on `c`: the server's end of the connection
// (local port = server_port, remote port = c's) has an empty receive queue in /proc/net/tcp.
bool server_has_read_all(const RespClient& c, int server_port) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  if (::getsockname(c.fd(), reinterpret_cast<sockaddr*>(&a), &len) != 0) return false;
  char local[32], remote[32];
  std::snprintf(local, sizeof local, "0100007F:%04X", server_port);
  std::snprintf(remote, sizeof remote, "0100007F:%04X", ntohs(a.sin_port));
  FILE* f = std::fopen("/proc/net/tcp", "r");
  if (!f) return false;
  char line[512];
  bool empty = false;
  while (std::fgets(line, sizeof line, f)) {
    char l[64], r[64];
    unsigned st = 0, tx = 0, rx = 0;
    if (std::sscanf(line, " %*d: %63s %63s %x %x:%x", l, r, &st, &tx, &rx) == 5 &&
        std::strcmp(l, local) == 0 && std::strcmp(r, remote) == 0) {
      empty = rx == 0;
      break;
    }
  }
  std::fclose(f);
  return empty;
}

// One listd for the suite, with small limits so the limit errors are cheap to provoke.
class ProtocolTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_.emplace(ServerProcess::start_listd(
        {"--proto-max-bulk-len", "1mb", "--client-query-buffer-limit", "1mb"}));
  }
  static void TearDownTestSuite() { server_.reset(); }

  static int port() { return server_->port(); }

  /// A fresh client still gets +PONG: the server survived whatever the test did.
  static void expect_server_still_serves() {
    RespClient other(port());
    EXPECT_EQ(other.call({"PING"}), "+PONG\r\n");
  }

  /// For a connection left mid-request, where no sentinel can follow: once the server has read
  /// all of c's bytes, two round trips on another connection let any reply to them be written
  /// (the reads of that turn are answered before the server reads the next PING), so c must
  /// have received nothing by then.
  static void expect_nothing_sent_back(RespClient& c) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!server_has_read_all(c, port()) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(server_has_read_all(c, port())) << "the server never read the request";
    RespClient other(port());
    EXPECT_EQ(other.call({"PING"}), "+PONG\r\n");
    EXPECT_EQ(other.call({"PING"}), "+PONG\r\n");
    EXPECT_EQ(c.read_for(10ms), "");
    EXPECT_FALSE(c.closed());
  }

  /// Sends request on a new connection; expects exactly `reply`, then the server closing it.
  static void expect_protocol_error(std::string_view request, std::string_view reply) {
    SCOPED_TRACE("request: " + escape_bytes(request, 80));
    RespClient c(port());
    c.send(request);
    EXPECT_EQ(c.read_reply(), reply);
    EXPECT_TRUE(c.wait_closed(5s)) << "connection still open after a protocol error";
    EXPECT_EQ(c.unread(), "") << "bytes after the error reply";
    expect_server_still_serves();
  }

  static inline std::optional<ServerProcess> server_;
};

TEST_F(ProtocolTest, PingRepliesPongOverHiredis) {
  ContextPtr c(server_->connect());
  ReplyPtr r = command(c.get(), "PING");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->type, REDIS_REPLY_STATUS);
  EXPECT_EQ(std::string(r->str, r->len), "PONG");
  r = command(c.get(), "PING %s", "hello");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->type, REDIS_REPLY_STRING);
  EXPECT_EQ(std::string(r->str, r->len), "hello");
}

TEST_F(ProtocolTest, PingRepliesPongOverRawSocket) {
  RespClient c(port());
  EXPECT_EQ(c.call({"PING"}), "+PONG\r\n");
  EXPECT_EQ(c.call({"ping", "x y"}), "$3\r\nx y\r\n");
}

TEST_F(ProtocolTest, EchoReturnsBinarySafeArgument) {
  ContextPtr c(server_->connect());
  const std::string payload("a\0b\r\nc\xff", 7);
  ReplyPtr r = command(c.get(), "ECHO %b", payload.data(), payload.size());
  ASSERT_TRUE(r);
  ASSERT_EQ(r->type, REDIS_REPLY_STRING);
  EXPECT_EQ(std::string(r->str, r->len), payload);

  RespClient raw(port());
  EXPECT_EQ(raw.call({"ECHO", payload}), "$7\r\n" + payload + "\r\n");
  EXPECT_EQ(raw.call({"ECHO", ""}), "$0\r\n\r\n");
  EXPECT_EQ(raw.call({"ECHO"}), "-ERR wrong number of arguments for 'echo' command\r\n");
}

TEST_F(ProtocolTest, TenThousandPipelinedPingsInOneWriteAreAllAnswered) {
  constexpr int kCount = 10000;
  std::string batch;
  for (int i = 0; i < kCount; ++i) batch += kPingRequest;
  RespClient c(port());
  ASSERT_TRUE(c.send(batch));  // one send() call of 140,000 bytes
  std::string expected;
  for (int i = 0; i < kCount; ++i) expected += "+PONG\r\n";
  EXPECT_EQ(c.read_exact(expected.size(), 30s), expected);
  EXPECT_EQ(c.read_for(100ms), "") << "more replies than requests";
  EXPECT_EQ(c.call({"ECHO", "sentinel"}), "$8\r\nsentinel\r\n") << "a late extra reply";
}

TEST_F(ProtocolTest, PipelinedRepliesKeepRequestOrder) {
  constexpr int kCount = 10000;
  ContextPtr c(server_->connect());
  for (int i = 0; i < kCount; ++i) {
    const std::string arg = std::to_string(i);
    ASSERT_EQ(redisAppendCommand(c.get(), "ECHO %b", arg.data(), arg.size()), REDIS_OK);
  }
  for (int i = 0; i < kCount; ++i) {
    void* raw = nullptr;
    ASSERT_EQ(redisGetReply(c.get(), &raw), REDIS_OK) << "reply " << i;
    ReplyPtr r(static_cast<redisReply*>(raw));
    ASSERT_EQ(r->type, REDIS_REPLY_STRING);
    ASSERT_EQ(std::string(r->str, r->len), std::to_string(i));
  }
}

TEST_F(ProtocolTest, InlineCommandsAreParsedLikeRedis) {
  RespClient c(port());
  c.send("PING\r\n");
  EXPECT_EQ(c.read_reply(), "+PONG\r\n");
  c.send("PING\n");  // telnet/nc may send a bare LF
  EXPECT_EQ(c.read_reply(), "+PONG\r\n");
  c.send("  ping   \r\n");
  EXPECT_EQ(c.read_reply(), "+PONG\r\n");
  c.send("ECHO \"a b\"\r\n");
  EXPECT_EQ(c.read_reply(), "$3\r\na b\r\n");
  c.send("ECHO \"a\\x41\\n\\\"b\"\r\n");  // hex and C escapes inside double quotes
  EXPECT_EQ(c.read_reply(), "$5\r\naA\n\"b\r\n");
  c.send("ECHO 'a\\'b'\r\n");  // only \' is an escape inside single quotes
  EXPECT_EQ(c.read_reply(), "$3\r\na'b\r\n");
  c.send("ECHO \"\"\r\n");
  EXPECT_EQ(c.read_reply(), "$0\r\n\r\n");
  c.send("echo a   b\r\n");
  EXPECT_EQ(c.read_reply(), "-ERR wrong number of arguments for 'echo' command\r\n");
}

TEST_F(ProtocolTest, EmptyInlineLinesGetNoReply) {
  RespClient c(port());
  c.send("\r\n");
  c.send("\n \r\n");
  EXPECT_EQ(c.read_for(150ms), "");
  c.send("\r\nPING\r\n*0\r\n*-1\r\nPING\r\n");
  EXPECT_EQ(c.read_reply(), "+PONG\r\n");
  EXPECT_EQ(c.read_reply(), "+PONG\r\n");
  EXPECT_EQ(c.read_for(100ms), "");
  // A reply that came after the window would come before the sentinel's.
  EXPECT_EQ(c.call({"ECHO", "sentinel"}), "$8\r\nsentinel\r\n");
}

TEST_F(ProtocolTest, InlineAndMultibulkRequestsMixInOneWrite) {
  RespClient c(port());
  c.send("*1\r\n$4\r\nPING\r\nECHO x\r\n*2\r\n$4\r\nECHO\r\n$1\r\ny\r\n");
  EXPECT_EQ(c.read_reply(), "+PONG\r\n");
  EXPECT_EQ(c.read_reply(), "$1\r\nx\r\n");
  EXPECT_EQ(c.read_reply(), "$1\r\ny\r\n");
}

TEST_F(ProtocolTest, RedisCliPipeSequenceGetsOneReplyPerCommand) {
  RespClient c(port());
  c.send_command({"DEL", "pl"});
  c.read_reply();
  // The exact bytes redis-cli --pipe writes: the user's data, an empty inline line, then a RESP
  // ECHO of 20 random bytes that it waits for (CLIENTS.md section 1.4).
  const std::string magic("=kQ\x97=\x9asI\x8b\x13\x8a\x9d)\xbb<\x19\xb2\xf0\xdf\x0c", 20);
  c.send("RPUSH pl a\r\nRPUSH pl b\r\n");
  c.send("\r\n*2\r\n$4\r\nECHO\r\n$20\r\n" + magic + "\r\n");
  EXPECT_EQ(c.read_reply(), ":1\r\n");
  EXPECT_EQ(c.read_reply(), ":2\r\n");
  EXPECT_EQ(c.read_reply(), "$20\r\n" + magic + "\r\n");
  EXPECT_EQ(c.read_for(100ms), "");
  EXPECT_EQ(c.call({"ECHO", "sentinel"}), "$8\r\nsentinel\r\n");
}

TEST_F(ProtocolTest, RedisCliPipeModeSeesNoErrors) {
  const std::string cmd =
      "printf 'PING\\r\\nECHO hello\\r\\n*1\\r\\n$4\\r\\nPING\\r\\n' | "
      "timeout 20 redis-cli -p " +
      std::to_string(port()) + " --pipe 2>&1";
  int status = -1;
  const std::string out = run_shell(cmd, &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("errors: 0, replies: 3"), std::string::npos) << out;
}

TEST_F(ProtocolTest, RedisCliOneShotPingPrintsPong) {
  int status = -1;
  const std::string out =
      run_shell("timeout 20 redis-cli -p " + std::to_string(port()) + " PING 2>&1", &status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(out, "PONG\n");
}

TEST_F(ProtocolTest, UnknownCommandErrorQuotesCommandAndArguments) {
  RespClient c(port());
  EXPECT_EQ(c.call({"foo", "a", "b"}),
            "-ERR unknown command 'foo', with args beginning with: 'a' 'b' \r\n");
  EXPECT_EQ(c.call({"NOPE"}), "-ERR unknown command 'NOPE', with args beginning with: \r\n");
  // CR/LF inside an argument become spaces; the argument list stops at 128 characters.
  EXPECT_EQ(c.call({"foo", "a\r\nb"}),
            "-ERR unknown command 'foo', with args beginning with: 'a  b' \r\n");
  EXPECT_EQ(
      c.call({"foo", std::string(200, 'x'), "b"}),
      "-ERR unknown command 'foo', with args beginning with: '" + std::string(128, 'x') + "' \r\n");
  c.send("foo a b\r\n");
  EXPECT_EQ(c.read_reply(), "-ERR unknown command 'foo', with args beginning with: 'a' 'b' \r\n");
  EXPECT_EQ(c.call({"PING"}), "+PONG\r\n");  // not a protocol error: the connection stays
}

TEST_F(ProtocolTest, RequestSplitIntoOneByteWritesParsesLikeOneWrite) {
  RespClient c(port());
  ASSERT_TRUE(c.send_bytewise("*2\r\n$4\r\nECHO\r\n$5\r\nhe\r\no\r\n"));
  EXPECT_EQ(c.read_reply(), "$5\r\nhe\r\no\r\n");
  ASSERT_TRUE(c.send_bytewise("ECHO \"a b\"\r\n"));
  EXPECT_EQ(c.read_reply(), "$3\r\na b\r\n");
  ASSERT_TRUE(c.send_bytewise("\r\n*1\r\n$4\r\nPING\r\nPING\r\n"));
  EXPECT_EQ(c.read_reply(), "+PONG\r\n");
  EXPECT_EQ(c.read_reply(), "+PONG\r\n");
  const std::string big(40000, 'z');  // a "big argument" (>= 32 KB) arriving in pieces
  ASSERT_TRUE(c.send_bytewise("*2\r\n$4\r\nECHO\r\n$40000\r\n"));
  for (std::size_t at = 0; at < big.size(); at += 1000) c.send(big.substr(at, 1000));
  c.send("\r\n");
  EXPECT_EQ(c.read_reply(), "$40000\r\n" + big + "\r\n");
}

TEST_F(ProtocolTest, InvalidMultibulkLengthClosesConnection) {
  expect_protocol_error("*a\r\n", "-ERR Protocol error: invalid multibulk length\r\n");
  // Redis 7.0 accepts counts up to INT_MAX; one more is invalid.
  expect_protocol_error("*2147483648\r\n", "-ERR Protocol error: invalid multibulk length\r\n");
}

TEST_F(ProtocolTest, NonBulkArgumentClosesConnection) {
  expect_protocol_error("*1\r\n+PING\r\n", "-ERR Protocol error: expected '$', got '+'\r\n");
}

TEST_F(ProtocolTest, InvalidBulkLengthClosesConnection) {
  expect_protocol_error("*1\r\n$x\r\n", "-ERR Protocol error: invalid bulk length\r\n");
  expect_protocol_error("*1\r\n$-5\r\n", "-ERR Protocol error: invalid bulk length\r\n");
}

TEST_F(ProtocolTest, BulkLongerThanProtoMaxBulkLenClosesConnection) {
  // proto-max-bulk-len is 1mb here: one byte more is refused before any payload arrives.
  expect_protocol_error("*2\r\n$4\r\nECHO\r\n$1048577\r\n",
                        "-ERR Protocol error: invalid bulk length\r\n");
  expect_protocol_error("*2\r\n$4\r\nECHO\r\n$2000000\r\n",
                        "-ERR Protocol error: invalid bulk length\r\n");
}

TEST_F(ProtocolTest, BulkBelowProtoMaxBulkLenIsServed) {
  RespClient c(port());
  const std::string payload(1000000, 'p');
  EXPECT_EQ(c.call({"ECHO", payload}), "$1000000\r\n" + payload + "\r\n");
}

TEST_F(ProtocolTest, UnbalancedQuotesCloseConnection) {
  expect_protocol_error("ECHO \"a b\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n");
  expect_protocol_error("ECHO 'a\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n");
  // A closing quote must be followed by a space or the end of the line.
  expect_protocol_error("ECHO \"a\"b\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n");
}

TEST_F(ProtocolTest, DollarLineIsAnInlineCommandNotAProtocolError) {
  RespClient c(port());
  c.send("$4\r\nPING\r\n");
  EXPECT_EQ(c.read_reply(), "-ERR unknown command '$4', with args beginning with: \r\n");
  EXPECT_EQ(c.read_reply(), "+PONG\r\n");
  EXPECT_EQ(c.call({"PING"}), "+PONG\r\n");
}

TEST_F(ProtocolTest, InlineLineOver64KbWithoutNewlineClosesConnection) {
  expect_protocol_error(std::string(70 * 1024, 'A'),
                        "-ERR Protocol error: too big inline request\r\n");
}

TEST_F(ProtocolTest, InlineLineOf64KbIsStillBuffered) {
  RespClient c(port());
  c.send(std::string(64 * 1024, 'A'));
  EXPECT_EQ(c.read_for(200ms), "");
  EXPECT_FALSE(c.closed());
  // Ending the line makes it one (unknown) command: its reply, then the sentinel's, and nothing
  // before them. The name is quoted up to 128 characters, as Redis does.
  c.send("\r\nPING\r\n");
  EXPECT_EQ(c.read_reply(),
            "-ERR unknown command '" + std::string(128, 'A') + "', with args beginning with: \r\n");
  EXPECT_EQ(c.read_reply(), "+PONG\r\n");
}

TEST_F(ProtocolTest, MultibulkCountLineOver64KbClosesConnection) {
  expect_protocol_error("*" + std::string(70000, '1'),
                        "-ERR Protocol error: too big mbulk count string\r\n");
}

// Redis 7.0.15 accepts any `*<n>` up to INT_MAX and waits for the arguments (its limit was 1M
// in 6.2). These connections stay mid-request, so no sentinel can follow on them.
TEST_F(ProtocolTest, MultibulkCountUpToIntMaxWaitsForArguments) {
  RespClient c(port());
  c.send("*2000000\r\n");
  expect_nothing_sent_back(c);
  RespClient d(port());
  d.send("*2147483647\r\n$4\r\nECHO\r\n");
  expect_nothing_sent_back(d);
  expect_server_still_serves();
}

TEST_F(ProtocolTest, QuitRepliesOkAndCloses) {
  RespClient c(port());
  c.send("*1\r\n$4\r\nQUIT\r\n*1\r\n$4\r\nPING\r\n");
  EXPECT_EQ(c.read_reply(), "+OK\r\n");
  EXPECT_TRUE(c.wait_closed(5s));
  EXPECT_EQ(c.unread(), "");
}

// The query buffer limit needs the default proto-max-bulk-len, so the bulk itself is legal.
class QueryBufferLimitTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_.emplace(ServerProcess::start_listd({"--client-query-buffer-limit", "1mb"}));
  }
  static void TearDownTestSuite() { server_.reset(); }
  static inline std::optional<ServerProcess> server_;
};

TEST_F(QueryBufferLimitTest, ClientOverQueryBufferLimitIsClosedWithoutReply) {
  RespClient c(server_->port());
  c.send("*2\r\n$4\r\nECHO\r\n$3000000\r\n");
  // Redis closes such a client without a reply; the rest of our write may then be refused.
  c.send(std::string(1600 * 1024, 'q'));
  EXPECT_TRUE(c.wait_closed(5s));
  EXPECT_EQ(c.unread(), "");
  RespClient other(server_->port());
  EXPECT_EQ(other.call({"PING"}), "+PONG\r\n");
}

TEST_F(QueryBufferLimitTest, RequestsUnderTheLimitAreServed) {
  RespClient c(server_->port());
  const std::string payload(900 * 1024, 'v');
  EXPECT_EQ(c.call({"ECHO", payload}),
            "$" + std::to_string(payload.size()) + "\r\n" + payload + "\r\n");
  // Pipelined requests are executed as they arrive: 2 MB of them never fill the buffer.
  std::string batch;
  for (int i = 0; i < 150000; ++i) batch += kPingRequest;
  ASSERT_TRUE(c.send(batch));
  std::string expected;
  for (int i = 0; i < 150000; ++i) expected += "+PONG\r\n";
  EXPECT_EQ(c.read_exact(expected.size(), 60s), expected);
}

}  // namespace
}  // namespace listd::testing
