// The server's OpenSSL context, as Redis 7.0's tlsConfigure builds it (tls.c): certificate
// chain, private key (tls-key-file-pass), the CA file or directory clients are verified
// against, protocols, ciphers, the session cache and DH parameters. Built whole or not at all:
// a bad file or value gives no context and Redis' log text, so a reload that fails leaves the
// current context in place. Sessions (tls_session.h) hold their own reference to the SSL_CTX
// they were made from, so replacing the context never disturbs a connected client.
#pragma once

#include <memory>
#include <string>

#include "listd/config/config.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace listd::net {

class TlsContext {
 public:
  /// The server-side context from the tls-* options; nullptr and `error` (Redis' log line,
  /// e.g. "Failed to load certificate: <file>: <OpenSSL error>") when they do not make one.
  static std::unique_ptr<TlsContext> create(const config::ServerSettings& s, std::string& error);
  /// The context of a replica's link to its master (tls-replication): tls-client-cert-file and
  /// -key-file when both are set, else tls-cert-file's; the master is verified against
  /// tls-ca-cert-file/dir. Built per connection, so a CONFIG SET acts on the next one.
  static std::unique_ptr<TlsContext> create_client(const config::ServerSettings& s,
                                                   std::string& error);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* native() const noexcept { return ctx_; }

 private:
  explicit TlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  SSL_CTX* ctx_;
};

/// Redis parseProtocolsConfig: the protocol bits of "TLSv1 TLSv1.1 TLSv1.2 TLSv1.3" (any case,
/// any subset; empty: TLSv1.2 and TLSv1.3), or -1 with `error` set.
int parse_tls_protocols(const std::string& text, std::string& error);
inline constexpr int kTlsProtoV1 = 1 << 0;
inline constexpr int kTlsProtoV1_1 = 1 << 1;
inline constexpr int kTlsProtoV1_2 = 1 << 2;
inline constexpr int kTlsProtoV1_3 = 1 << 3;

/// The options whose change rebuilds the context (Redis' applyTlsCfg; not tls-auth-clients,
/// which each new connection reads, nor tls-replication, read at each link to the master,
/// nor tls-port, which re-listens and builds a context only when there is none).
bool is_tls_context_option(std::string_view name) noexcept;

}  // namespace listd::net
