// TlsSession as a byte filter: a server and a client session talking in memory, no socket.
#include "listd/net/tls_session.h"

#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "listd/net/tls_context.h"
#include "tls_test_certs.h"

namespace listd::net {
namespace {

using config::TlsAuthClients;
using testing::tls_client_ctx;
using testing::tls_test_settings;

struct CtxFree {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};

// Moves the ciphertext one side has to send into the other, `chunk` bytes at a time (1: every
// record arrives in pieces).
bool pump(TlsSession& from, TlsSession& to, std::size_t chunk) {
  std::string bytes;
  if (!from.take_output(bytes)) return false;
  for (std::size_t i = 0; i < bytes.size(); i += chunk)
    to.feed(bytes.data() + i, std::min(chunk, bytes.size() - i));
  return true;
}

std::string drain(TlsSession& s) {
  std::string out;
  char buf[4096];
  while (const std::size_t n = s.read(buf, sizeof buf)) out.append(buf, n);
  return out;
}

// Runs both sides until neither has anything to send; returns what each one read.
std::pair<std::string, std::string> converse(TlsSession& server, TlsSession& client,
                                             std::size_t chunk = 1 << 20) {
  std::string at_server, at_client;
  for (int round = 0; round < 50; ++round) {
    const bool a = pump(client, server, chunk);
    at_server += drain(server);
    const bool b = pump(server, client, chunk);
    at_client += drain(client);
    if (!a && !b) break;
  }
  return {at_server, at_client};
}

class TlsSessionTest : public ::testing::Test {
 protected:
  std::unique_ptr<TlsContext> server_ctx(TlsAuthClients auth = TlsAuthClients::kYes) {
    std::string error;
    auto ctx = TlsContext::create(tls_test_settings(auth), error);
    EXPECT_NE(ctx, nullptr) << error;
    return ctx;
  }
};

TEST_F(TlsSessionTest, HandshakeThenRequestsAndRepliesBothWays) {
  auto sctx = server_ctx();
  std::unique_ptr<SSL_CTX, CtxFree> cctx(tls_client_ctx("client"));
  TlsSession server(sctx->native(), TlsSession::Role::kServer);
  TlsSession client(cctx.get(), TlsSession::Role::kClient);
  client.write("*1\r\n$4\r\nPING\r\n");  // held until the handshake is done
  auto [at_server, at_client] = converse(server, client);
  EXPECT_TRUE(server.handshake_done());
  EXPECT_TRUE(client.handshake_done());
  EXPECT_EQ(at_server, "*1\r\n$4\r\nPING\r\n");
  server.write("+PONG\r\n");
  std::tie(at_server, at_client) = converse(server, client);
  EXPECT_EQ(at_client, "+PONG\r\n");
  EXPECT_FALSE(server.failed()) << server.error();
}

TEST_F(TlsSessionTest, RecordsSplitIntoSingleBytesAndLargeRepliesArriveWhole) {
  auto sctx = server_ctx();
  std::unique_ptr<SSL_CTX, CtxFree> cctx(tls_client_ctx("client"));
  TlsSession server(sctx->native(), TlsSession::Role::kServer);
  TlsSession client(cctx.get(), TlsSession::Role::kClient);
  converse(server, client, 1);
  ASSERT_TRUE(server.handshake_done());
  std::string big;
  for (int i = 0; big.size() < 1'000'000; ++i) big += std::to_string(i) + ",";
  server.write(big);  // many records
  auto [at_server, at_client] = converse(server, client, 7);
  EXPECT_EQ(at_client, big);
  client.write(big);
  std::tie(at_server, at_client) = converse(server, client, 1000);
  EXPECT_EQ(at_server, big);
}

TEST_F(TlsSessionTest, AuthClientsYesRefusesAClientWithoutCertificate) {
  auto sctx = server_ctx(TlsAuthClients::kYes);
  std::unique_ptr<SSL_CTX, CtxFree> cctx(tls_client_ctx(""));
  TlsSession server(sctx->native(), TlsSession::Role::kServer, TlsAuthClients::kYes);
  TlsSession client(cctx.get(), TlsSession::Role::kClient);
  converse(server, client);
  EXPECT_TRUE(server.failed());
  EXPECT_NE(server.error().find("peer did not return a certificate"), std::string::npos)
      << server.error();
  EXPECT_TRUE(client.failed());  // it got the alert
}

TEST_F(TlsSessionTest, ACertificateFromAnotherCaIsRefused) {
  auto sctx = server_ctx(TlsAuthClients::kOptional);
  std::unique_ptr<SSL_CTX, CtxFree> cctx(tls_client_ctx("stranger"));
  TlsSession server(sctx->native(), TlsSession::Role::kServer, TlsAuthClients::kOptional);
  TlsSession client(cctx.get(), TlsSession::Role::kClient);
  converse(server, client);
  EXPECT_TRUE(server.failed());
  EXPECT_NE(server.error().find("certificate verify failed"), std::string::npos) << server.error();
}

TEST_F(TlsSessionTest, OptionalAndNoAcceptAClientWithoutCertificate) {
  for (TlsAuthClients auth : {TlsAuthClients::kOptional, TlsAuthClients::kNo}) {
    auto sctx = server_ctx(auth);
    std::unique_ptr<SSL_CTX, CtxFree> cctx(tls_client_ctx(""));
    TlsSession server(sctx->native(), TlsSession::Role::kServer, auth);
    TlsSession client(cctx.get(), TlsSession::Role::kClient);
    client.write("PING\r\n");
    auto [at_server, at_client] = converse(server, client);
    EXPECT_EQ(at_server, "PING\r\n");
    EXPECT_FALSE(server.failed()) << server.error();
  }
}

TEST_F(TlsSessionTest, PlaintextOnTheTlsPortFailsTheHandshakeWithOpenSslsText) {
  auto sctx = server_ctx();
  TlsSession server(sctx->native(), TlsSession::Role::kServer);
  const std::string plain = "*1\r\n$4\r\nPING\r\n";
  server.feed(plain.data(), plain.size());
  char buf[64];
  EXPECT_EQ(server.read(buf, sizeof buf), 0u);
  EXPECT_TRUE(server.failed());
  EXPECT_NE(server.error().find("SSL routines"), std::string::npos) << server.error();
  EXPECT_FALSE(server.handshake_done());
}

TEST_F(TlsSessionTest, CloseNotifyReachesThePeer) {
  auto sctx = server_ctx();
  std::unique_ptr<SSL_CTX, CtxFree> cctx(tls_client_ctx("client"));
  TlsSession server(sctx->native(), TlsSession::Role::kServer);
  TlsSession client(cctx.get(), TlsSession::Role::kClient);
  converse(server, client);
  client.close();
  converse(server, client);
  EXPECT_TRUE(server.peer_closed());
  EXPECT_FALSE(server.failed()) << server.error();
}

// The connection reads until has_buffered_input() is false (one SSL_read per record): it must
// stay true while a record is half read, while a second record waits, and while only part of
// a record has arrived, and be false only when a read could give nothing.
TEST_F(TlsSessionTest, BufferedInputIsTrueUntilEveryRecordFedIsRead) {
  auto sctx = server_ctx();
  std::unique_ptr<SSL_CTX, CtxFree> cctx(tls_client_ctx("client"));
  TlsSession server(sctx->native(), TlsSession::Role::kServer);
  TlsSession client(cctx.get(), TlsSession::Role::kClient);
  converse(server, client);
  ASSERT_TRUE(server.handshake_done());
  EXPECT_FALSE(server.has_buffered_input());

  client.write("first-record");
  client.write("second");  // a record of its own
  std::string bytes;
  ASSERT_TRUE(client.take_output(bytes));
  server.feed(bytes.data(), bytes.size());
  EXPECT_TRUE(server.has_buffered_input());
  char buf[64];
  ASSERT_EQ(server.read(buf, 5), 5u);  // "first": the rest of the record is pending plaintext
  EXPECT_TRUE(server.has_buffered_input());
  ASSERT_EQ(server.read(buf, sizeof buf), 7u);  // "-record"
  EXPECT_EQ(std::string(buf, 7), "-record");
  EXPECT_TRUE(server.has_buffered_input());  // the second record, still ciphertext
  ASSERT_EQ(server.read(buf, sizeof buf), 6u);
  EXPECT_EQ(std::string(buf, 6), "second");
  EXPECT_FALSE(server.has_buffered_input());

  client.write("split");
  bytes.clear();
  ASSERT_TRUE(client.take_output(bytes));
  server.feed(bytes.data(), bytes.size() - 1);  // all but the record's last byte
  EXPECT_TRUE(server.has_buffered_input());
  EXPECT_EQ(server.read(buf, sizeof buf), 0u);  // waits for the rest
  server.feed(bytes.data() + bytes.size() - 1, 1);
  ASSERT_EQ(server.read(buf, sizeof buf), 5u);
  EXPECT_FALSE(server.has_buffered_input());
  EXPECT_FALSE(server.failed()) << server.error();
}

}  // namespace
}  // namespace listd::net
