// The tls-* options that act (Redis 7.0's names, defaults, parsing and texts) and the apply
// hook CONFIG SET runs before a change takes effect (the TLS context reload).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "listd/config/config.h"
#include "listd/config/config_file.h"

namespace listd::config {
namespace {

std::string tls_value_of(const Config& cfg, std::string_view name) {
  return cfg.value(name).value_or("<unknown>");
}

TEST(TlsOptionTest, DefaultsAreRedis) {
  Config cfg;
  EXPECT_EQ(tls_value_of(cfg, "tls-port"), "0");
  EXPECT_EQ(tls_value_of(cfg, "tls-auth-clients"), "yes");
  EXPECT_EQ(tls_value_of(cfg, "tls-session-caching"), "yes");
  EXPECT_EQ(tls_value_of(cfg, "tls-session-cache-size"), "20480");
  EXPECT_EQ(tls_value_of(cfg, "tls-session-cache-timeout"), "300");
  EXPECT_EQ(tls_value_of(cfg, "tls-prefer-server-ciphers"), "no");
  EXPECT_EQ(tls_value_of(cfg, "tls-cert-file"), "");
  EXPECT_EQ(tls_value_of(cfg, "tls-protocols"), "");
  EXPECT_EQ(tls_value_of(cfg, "tls-replication"), "no");
  EXPECT_EQ(tls_value_of(cfg, "tls-client-cert-file"), "");
  EXPECT_EQ(cfg.settings().tls_auth_clients, TlsAuthClients::kYes);
}

TEST(TlsOptionTest, FileLinesSetTheTypedValues) {
  Config cfg;
  const std::optional<std::string> err = load_config_text(
      "tls-port 6380\ntls-cert-file /c/server.crt\ntls-key-file /c/server.key\n"
      "tls-auth-clients optional\ntls-protocols \"TLSv1.2 TLSv1.3\"\ntls-session-caching no\n",
      cfg);
  ASSERT_EQ(err, std::nullopt) << *err;
  const ServerSettings& s = cfg.settings();
  EXPECT_EQ(s.tls_port, 6380);
  EXPECT_EQ(s.tls_cert_file, "/c/server.crt");
  EXPECT_EQ(s.tls_key_file, "/c/server.key");
  EXPECT_EQ(s.tls_auth_clients, TlsAuthClients::kOptional);
  EXPECT_EQ(s.tls_protocols, "TLSv1.2 TLSv1.3");
  EXPECT_FALSE(s.tls_session_caching);
  EXPECT_TRUE(s.inert.non_default.empty());  // none of them is inert any more
}

TEST(TlsOptionTest, ConfigSetTextsAreRedis) {
  Config cfg;
  EXPECT_EQ(cfg.set("tls-auth-clients", "sometimes"),
            "ERR CONFIG SET failed (possibly related to argument 'tls-auth-clients') - "
            "argument(s) must be one of the following: no, yes, optional");
  EXPECT_EQ(cfg.set("tls-session-cache-size", "-1"),
            "ERR CONFIG SET failed (possibly related to argument 'tls-session-cache-size') - "
            "argument must be between 0 and 2147483647 inclusive");
  // Mutable, as `port`: with no net::Server (no apply hook) only the value changes.
  EXPECT_EQ(cfg.set("tls-port", "6380"), std::nullopt);
  EXPECT_EQ(cfg.settings().tls_port, 6380);
  EXPECT_EQ(cfg.set("tls-auth-clients", "no"), std::nullopt);
  EXPECT_EQ(cfg.settings().tls_auth_clients, TlsAuthClients::kNo);
  // The replica's link to its master over TLS: acting options, read at each connection.
  EXPECT_EQ(cfg.set("tls-replication", "yes"), std::nullopt);
  EXPECT_TRUE(cfg.settings().tls_replication);
  EXPECT_EQ(cfg.set("tls-client-cert-file", "/c/client.crt"), std::nullopt);
  EXPECT_EQ(cfg.settings().tls_client_cert_file, "/c/client.crt");
  EXPECT_EQ(tls_value_of(cfg, "tls-client-cert-file"), "/c/client.crt");
  EXPECT_TRUE(cfg.settings().inert.non_default.empty());
}

TEST(TlsOptionTest, AFailingApplyHookChangesNothing) {
  Config cfg;
  std::vector<std::vector<std::string>> seen;
  cfg.on_apply([&seen](const ServerSettings& next,
                       std::span<const std::string_view> changed) -> std::optional<ApplyFailure> {
    seen.emplace_back(changed.begin(), changed.end());
    if (next.tls_cert_file == "bad.crt") return ApplyFailure{"tls-cert-file", "no good"};
    return std::nullopt;
  });
  const Config::NameValue batch[] = {{"timeout", "5"}, {"tls-cert-file", "bad.crt"}};
  EXPECT_EQ(cfg.set_many(batch),
            "ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - no good");
  EXPECT_EQ(cfg.settings().timeout, 0);
  EXPECT_EQ(cfg.settings().tls_cert_file, "");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], (std::vector<std::string>{"timeout", "tls-cert-file"}));
  EXPECT_EQ(cfg.set("tls-cert-file", "good.crt"), std::nullopt);
  EXPECT_EQ(cfg.settings().tls_cert_file, "good.crt");
  EXPECT_EQ(cfg.set("tls-cert-file", "good.crt"), std::nullopt);  // unchanged: nothing to apply
  EXPECT_EQ(seen.back(), std::vector<std::string>{});
}

}  // namespace
}  // namespace listd::config
