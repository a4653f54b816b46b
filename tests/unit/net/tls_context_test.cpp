// TlsContext::create and create_client: the contexts from the tls-* options, and Redis' texts
// when they cannot be made.
#include "listd/net/tls_context.h"

#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

#include "listd/net/tls_session.h"
#include "tls_test_certs.h"

namespace listd::net {
namespace {

using config::TlsAuthClients;
using testing::tls_cert;
using testing::tls_test_settings;

std::string create_error(const config::ServerSettings& s) {
  std::string error;
  EXPECT_EQ(TlsContext::create(s, error), nullptr);
  return error;
}

std::string create_client_error(const config::ServerSettings& s) {
  std::string error;
  EXPECT_EQ(TlsContext::create_client(s, error), nullptr);
  return error;
}

// The common name of the certificate a context presents ("" when it has none).
std::string presented_name(const TlsContext& ctx) {
  X509* cert = SSL_CTX_get0_certificate(ctx.native());
  if (cert == nullptr) return "";
  char name[256] = "";
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, name, sizeof name);
  return name;
}

// A replica's handshake (client context) with a master (server context), in memory; the
// client session, for its outcome.
std::unique_ptr<TlsSession> handshake(const TlsContext& replica, const TlsContext& master) {
  auto client = std::make_unique<TlsSession>(replica.native(), TlsSession::Role::kClient);
  TlsSession server(master.native(), TlsSession::Role::kServer, TlsAuthClients::kYes);
  std::string bytes;
  char sink[64];  // read() drives a side's handshake with what was fed to it
  for (int round = 0; round < 20; ++round) {
    bytes.clear();
    const bool sent = client->take_output(bytes);
    server.feed(bytes.data(), bytes.size());
    server.read(sink, sizeof sink);
    bytes.clear();
    const bool answered = server.take_output(bytes);
    client->feed(bytes.data(), bytes.size());
    client->read(sink, sizeof sink);
    if (!sent && !answered) break;
  }
  return client;
}

TEST(TlsContext, BuildsFromTheTestCertificates) {
  std::string error;
  EXPECT_NE(TlsContext::create(tls_test_settings(), error), nullptr) << error;
}

TEST(TlsContext, RefusesWhatRedisRefusesWithItsTexts) {
  config::ServerSettings s = tls_test_settings();
  s.tls_cert_file.clear();
  EXPECT_EQ(create_error(s), "No tls-cert-file configured!");
  s = tls_test_settings();
  s.tls_key_file.clear();
  EXPECT_EQ(create_error(s), "No tls-key-file configured!");
  s = tls_test_settings();
  s.tls_ca_cert_file.clear();
  EXPECT_EQ(create_error(s),
            "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
            "tls-replication or tls-auth-clients are enabled!");
  s.tls_auth_clients = TlsAuthClients::kNo;  // no CA needed then
  std::string error;
  EXPECT_NE(TlsContext::create(s, error), nullptr) << error;
}

TEST(TlsContext, ABadFileNamesTheFileAndOpenSslsReason) {
  config::ServerSettings s = tls_test_settings();
  s.tls_cert_file = "/nonexistent/server.crt";
  EXPECT_TRUE(
      create_error(s).starts_with("Failed to load certificate: /nonexistent/server.crt: "
                                  "error:"));
  s = tls_test_settings();
  s.tls_key_file = tls_cert("client.key");  // not the certificate's key
  EXPECT_TRUE(create_error(s).starts_with("Failed to load private key: " + s.tls_key_file))
      << create_error(s);
  s = tls_test_settings();
  s.tls_ca_cert_file = "/nonexistent/ca.crt";
  EXPECT_TRUE(
      create_error(s).starts_with("Failed to configure CA certificate(s) file/directory: "));
  s = tls_test_settings();
  s.tls_ciphers = "NO-SUCH-CIPHER";
  EXPECT_EQ(create_error(s), "Failed to configure ciphers: NO-SUCH-CIPHER");
  s = tls_test_settings();
  s.tls_ciphersuites = "TLS_NO_SUCH";
  EXPECT_EQ(create_error(s), "Failed to configure ciphersuites: TLS_NO_SUCH");
  s = tls_test_settings();
  s.tls_dh_params_file = "/nonexistent/dh.pem";
  EXPECT_EQ(create_error(s), "Failed to load /nonexistent/dh.pem: No such file or directory");
}

TEST(TlsContext, AnEncryptedKeyNeedsItsPassword) {
  config::ServerSettings s = tls_test_settings();
  s.tls_key_file = tls_cert("server-pass.key");
  EXPECT_TRUE(create_error(s).starts_with("Failed to load private key: "));
  s.tls_key_file_pass = "wrong";
  EXPECT_TRUE(create_error(s).starts_with("Failed to load private key: "));
  s.tls_key_file_pass = "key-pass";
  std::string error;
  EXPECT_NE(TlsContext::create(s, error), nullptr) << error;
}

TEST(TlsContext, ClientContextPresentsTheClientCertificateOnlyWhenBothFilesAreSet) {
  config::ServerSettings s = tls_test_settings();
  std::string error;
  auto ctx = TlsContext::create_client(s, error);
  ASSERT_NE(ctx, nullptr) << error;
  EXPECT_EQ(presented_name(*ctx), "listd test server");  // tls-cert-file's, as Redis
  s.tls_client_cert_file = tls_cert("client.crt");       // the key missing: still the server's
  ctx = TlsContext::create_client(s, error);
  ASSERT_NE(ctx, nullptr) << error;
  EXPECT_EQ(presented_name(*ctx), "listd test server");
  s.tls_client_key_file = tls_cert("client.key");
  ctx = TlsContext::create_client(s, error);
  ASSERT_NE(ctx, nullptr) << error;
  EXPECT_EQ(presented_name(*ctx), "listd test client");
}

TEST(TlsContext, ClientContextCompletesAHandshakeWithAMasterItsCaSigned) {
  std::string error;
  auto master = TlsContext::create(tls_test_settings(), error);
  ASSERT_NE(master, nullptr) << error;
  config::ServerSettings s = tls_test_settings();
  s.tls_client_cert_file = tls_cert("client.crt");
  s.tls_client_key_file = tls_cert("client.key");
  auto replica = TlsContext::create_client(s, error);
  ASSERT_NE(replica, nullptr) << error;
  auto session = handshake(*replica, *master);
  EXPECT_TRUE(session->handshake_done());
  EXPECT_FALSE(session->failed()) << session->error();
}

TEST(TlsContext, ClientContextRefusesAMasterFromAnotherCa) {
  std::string error;
  auto master = TlsContext::create(tls_test_settings(), error);
  ASSERT_NE(master, nullptr) << error;
  config::ServerSettings s = tls_test_settings();
  s.tls_ca_cert_file = tls_cert("other-ca.crt");  // the master's certificate is not its
  auto replica = TlsContext::create_client(s, error);
  ASSERT_NE(replica, nullptr) << error;
  auto session = handshake(*replica, *master);
  EXPECT_FALSE(session->handshake_done());
  EXPECT_NE(session->error().find("certificate verify failed"), std::string::npos)
      << session->error();
}

TEST(TlsContext, ClientContextRefusesWhatRedisRefusesWithItsTexts) {
  config::ServerSettings s = tls_test_settings();
  s.tls_client_cert_file = tls_cert("client.crt");
  s.tls_client_key_file = tls_cert("client.key");
  s.tls_cert_file.clear();  // checked even with both client files set (Redis tlsConfigure)
  EXPECT_EQ(create_client_error(s), "No tls-cert-file configured!");
  s = tls_test_settings(TlsAuthClients::kNo);
  s.tls_replication = true;  // the master must be verified: a CA is needed
  s.tls_ca_cert_file.clear();
  EXPECT_EQ(create_client_error(s),
            "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
            "tls-replication or tls-auth-clients are enabled!");
  s = tls_test_settings();
  s.tls_client_cert_file = tls_cert("server.crt");
  s.tls_client_key_file = tls_cert("server-pass.key");
  s.tls_key_file_pass = "key-pass";  // the server key's password is not the client key's
  EXPECT_TRUE(
      create_client_error(s).starts_with("Failed to load private key: " + s.tls_client_key_file))
      << create_client_error(s);
  s.tls_client_key_file_pass = "key-pass";
  std::string error;
  EXPECT_NE(TlsContext::create_client(s, error), nullptr) << error;
  s.tls_client_cert_file = "/nonexistent/client.crt";
  EXPECT_TRUE(create_client_error(s).starts_with(
      "Failed to load certificate: /nonexistent/client.crt: error:"));
  s = tls_test_settings();
  s.tls_protocols = "TLSv9";
  EXPECT_TRUE(create_client_error(s).starts_with("Invalid tls-protocols specified."));
}

TEST(TlsContext, ProtocolsParseAsRedisParsesThem) {
  std::string error;
  EXPECT_EQ(parse_tls_protocols("", error), kTlsProtoV1_2 | kTlsProtoV1_3);
  EXPECT_EQ(parse_tls_protocols("TLSv1.2", error), kTlsProtoV1_2);
  EXPECT_EQ(parse_tls_protocols("tlsv1 TLSV1.1 tlsv1.3", error),
            kTlsProtoV1 | kTlsProtoV1_1 | kTlsProtoV1_3);
  EXPECT_EQ(parse_tls_protocols("TLSv1.2  TLSv1.3", error), -1);  // an empty word
  EXPECT_EQ(parse_tls_protocols("SSLv3", error), -1);
  EXPECT_EQ(error,
            "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' "
            "and 'TLSv1.3'.");
  config::ServerSettings s = tls_test_settings();
  s.tls_protocols = "TLSv9";
  EXPECT_EQ(create_error(s), error);
}

TEST(TlsContext, ContextOptionsAreTheOnesRedisReloadsFor) {
  EXPECT_TRUE(is_tls_context_option("tls-cert-file"));
  EXPECT_TRUE(is_tls_context_option("tls-session-cache-size"));
  EXPECT_FALSE(is_tls_context_option("tls-auth-clients"));
  EXPECT_FALSE(is_tls_context_option("tls-port"));  // re-listens (net::Server::apply_config)
  EXPECT_FALSE(is_tls_context_option("timeout"));
}

}  // namespace
}  // namespace listd::net
