// The TLS unit tests' certificates (tests/support/make-test-certs.sh) and a client-side SSL_CTX
// like redis-cli's.
#pragma once

#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "listd/config/config.h"

namespace listd::net::testing {

// Made once per build tree (every test runs in its own process): into a fresh directory, then
// renamed into place, so two tests starting at once never see half a set.
inline const std::string& tls_cert_dir() {
  static const std::string dir = [] {
    const std::string final_dir = LISTD_TEST_CERT_DIR;
    if (std::filesystem::exists(final_dir + "/ca.crt")) return final_dir;
    std::string templ = final_dir + ".XXXXXX";
    const char* made = ::mkdtemp(templ.data());
    EXPECT_NE(made, nullptr) << templ;
    const std::string cmd =
        std::string(LISTD_SOURCE_DIR) + "/tests/support/make-test-certs.sh " + templ;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::error_code ec;
    std::filesystem::rename(templ, final_dir, ec);
    if (ec) std::filesystem::remove_all(templ, ec);  // another test was first: use its set
    return final_dir;
  }();
  return dir;
}

inline std::string tls_cert(const std::string& name) { return tls_cert_dir() + "/" + name; }

/// Server settings with the test CA, server certificate and key, auth as given.
inline config::ServerSettings tls_test_settings(
    config::TlsAuthClients auth = config::TlsAuthClients::kYes) {
  config::ServerSettings s;
  s.tls_port = 6380;
  s.tls_cert_file = tls_cert("server.crt");
  s.tls_key_file = tls_cert("server.key");
  s.tls_ca_cert_file = tls_cert("ca.crt");
  s.tls_auth_clients = auth;
  return s;
}

/// A client context trusting the test CA, with the certificate `name` ("" for none).
inline SSL_CTX* tls_client_ctx(const std::string& name) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_load_verify_locations(ctx, tls_cert("ca.crt").c_str(), nullptr);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  if (!name.empty()) {
    SSL_CTX_use_certificate_chain_file(ctx, tls_cert(name + ".crt").c_str());
    SSL_CTX_use_PrivateKey_file(ctx, tls_cert(name + ".key").c_str(), SSL_FILETYPE_PEM);
  }
  return ctx;
}

}  // namespace listd::net::testing
