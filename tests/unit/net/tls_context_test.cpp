// TlsContext::create: the context from the tls-* options, and Redis' texts when it cannot be.
#include "listd/net/tls_context.h"

#include <gtest/gtest.h>

#include <string>

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
  EXPECT_FALSE(is_tls_context_option("tls-port"));
  EXPECT_FALSE(is_tls_context_option("timeout"));
}

}  // namespace
}  // namespace listd::net
