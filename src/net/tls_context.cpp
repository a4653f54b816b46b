#include "listd/net/tls_context.h"

#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "listd/base/redis_text.h"

namespace listd::net {
namespace {

// The oldest error OpenSSL queued, in its own words (Redis ERR_error_string_n).
std::string tls_context_openssl_error() {
  char buf[256];
  ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

int tls_context_password_cb(char* buf, int size, int, void* user) {
  const auto* pass = static_cast<const std::string*>(user);
  if (pass == nullptr || pass->empty() || pass->size() > static_cast<std::size_t>(size)) return -1;
  std::memcpy(buf, pass->data(), pass->size());
  return static_cast<int>(pass->size());
}

struct CtxDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using CtxPtr = std::unique_ptr<SSL_CTX, CtxDeleter>;

void tls_context_set_protocols(SSL_CTX* ctx, int protocols) {
  SSL_CTX_set_options(ctx, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_COMPRESSION);
  if (!(protocols & kTlsProtoV1)) SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1);
  if (!(protocols & kTlsProtoV1_1)) SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1_1);
  if (!(protocols & kTlsProtoV1_2)) SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1_2);
  if (!(protocols & kTlsProtoV1_3)) SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1_3);
}

// Redis createSSLContext: the part common to the server and the client context; `client`
// picks the tls-client-* certificate and key.
CtxPtr tls_context_base(const config::ServerSettings& s, int protocols, bool client,
                        std::string& error) {
  const std::string& cert = client ? s.tls_client_cert_file : s.tls_cert_file;
  const std::string& key = client ? s.tls_client_key_file : s.tls_key_file;
  const std::string& pass = client ? s.tls_client_key_file_pass : s.tls_key_file_pass;
  CtxPtr ctx(SSL_CTX_new(TLS_method()));
  if (!ctx) {
    error = "Failed to create TLS context: " + tls_context_openssl_error();
    return nullptr;
  }
  SSL_CTX* c = ctx.get();
  tls_context_set_protocols(c, protocols);
  SSL_CTX_set_options(c, SSL_OP_DONT_INSERT_EMPTY_FRAGMENTS);
  SSL_CTX_set_mode(c, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_verify(c, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  // The callback reads the password during the key load below only: a pointer into `s` is safe.
  SSL_CTX_set_default_passwd_cb(c, &tls_context_password_cb);
  SSL_CTX_set_default_passwd_cb_userdata(c, const_cast<std::string*>(&pass));
  ERR_clear_error();
  if (SSL_CTX_use_certificate_chain_file(c, cert.c_str()) <= 0) {
    error = "Failed to load certificate: " + cert + ": " + tls_context_openssl_error();
    return nullptr;
  }
  if (SSL_CTX_use_PrivateKey_file(c, key.c_str(), SSL_FILETYPE_PEM) <= 0) {
    error = "Failed to load private key: " + key + ": " + tls_context_openssl_error();
    return nullptr;
  }
  SSL_CTX_set_default_passwd_cb_userdata(c, nullptr);
  const bool has_ca = !s.tls_ca_cert_file.empty() || !s.tls_ca_cert_dir.empty();
  if (has_ca && SSL_CTX_load_verify_locations(
                    c, s.tls_ca_cert_file.empty() ? nullptr : s.tls_ca_cert_file.c_str(),
                    s.tls_ca_cert_dir.empty() ? nullptr : s.tls_ca_cert_dir.c_str()) <= 0) {
    error = "Failed to configure CA certificate(s) file/directory: " + tls_context_openssl_error();
    return nullptr;
  }
  if (!s.tls_ciphers.empty() && !SSL_CTX_set_cipher_list(c, s.tls_ciphers.c_str())) {
    error = "Failed to configure ciphers: " + s.tls_ciphers;
    return nullptr;
  }
  if (!s.tls_ciphersuites.empty() && !SSL_CTX_set_ciphersuites(c, s.tls_ciphersuites.c_str())) {
    error = "Failed to configure ciphersuites: " + s.tls_ciphersuites;
    return nullptr;
  }
  return ctx;
}

bool tls_context_load_dh(SSL_CTX* c, const std::string& file, std::string& error) {
  std::FILE* f = std::fopen(file.c_str(), "r");
  if (f == nullptr) {
    error = "Failed to load " + file + ": " + std::strerror(errno);
    return false;
  }
  EVP_PKEY* pkey = nullptr;
  OSSL_DECODER_CTX* dctx = OSSL_DECODER_CTX_new_for_pkey(
      &pkey, "PEM", nullptr, "DH", OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS, nullptr, nullptr);
  const bool decoded = dctx != nullptr && OSSL_DECODER_from_fp(dctx, f);
  OSSL_DECODER_CTX_free(dctx);
  std::fclose(f);
  if (!decoded) {
    error = file + ": failed to read DH params.";
    return false;
  }
  if (SSL_CTX_set0_tmp_dh_pkey(c, pkey) <= 0) {  // owns pkey on success
    error = "Failed to load DH params file: " + file + ": " + tls_context_openssl_error();
    EVP_PKEY_free(pkey);
    return false;
  }
  return true;
}

void tls_context_session_cache(SSL_CTX* c, const config::ServerSettings& s) {
  if (!s.tls_session_caching) {
    SSL_CTX_set_session_cache_mode(c, SSL_SESS_CACHE_OFF);
    return;
  }
  SSL_CTX_set_session_cache_mode(c, SSL_SESS_CACHE_SERVER);
  SSL_CTX_sess_set_cache_size(c, s.tls_session_cache_size);
  SSL_CTX_set_timeout(c, s.tls_session_cache_timeout);
  static constexpr unsigned char kSessionContext[] = {'l', 'i', 's', 't', 'd'};
  SSL_CTX_set_session_id_context(c, kSessionContext, sizeof kSessionContext);
}

}  // namespace

int parse_tls_protocols(const std::string& text, std::string& error) {
  if (text.empty()) return kTlsProtoV1_2 | kTlsProtoV1_3;
  int protocols = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view word(text.data() + start, end - start);
    if (base::iequals(word, "tlsv1")) {
      protocols |= kTlsProtoV1;
    } else if (base::iequals(word, "tlsv1.1")) {
      protocols |= kTlsProtoV1_1;
    } else if (base::iequals(word, "tlsv1.2")) {
      protocols |= kTlsProtoV1_2;
    } else if (base::iequals(word, "tlsv1.3")) {
      protocols |= kTlsProtoV1_3;
    } else {
      error =
          "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' "
          "and 'TLSv1.3'.";
      return -1;
    }
    start = end + 1;
  }
  return protocols;
}

bool is_tls_context_option(std::string_view name) noexcept {
  return name.starts_with("tls-") && name != "tls-auth-clients" && name != "tls-port" &&
         name != "tls-replication";
}

namespace {

// Redis tlsConfigure's checks, common to both contexts.
bool tls_context_checks(const config::ServerSettings& s, std::string& error) {
  if (s.tls_cert_file.empty()) {
    error = "No tls-cert-file configured!";
    return false;
  }
  if (s.tls_key_file.empty()) {
    error = "No tls-key-file configured!";
    return false;
  }
  if ((s.tls_auth_clients != config::TlsAuthClients::kNo || s.tls_replication) &&
      s.tls_ca_cert_file.empty() && s.tls_ca_cert_dir.empty()) {
    error =
        "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
        "tls-replication or tls-auth-clients are enabled!";
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<TlsContext> TlsContext::create(const config::ServerSettings& s,
                                               std::string& error) {
  if (!tls_context_checks(s, error)) return nullptr;
  const int protocols = parse_tls_protocols(s.tls_protocols, error);
  if (protocols < 0) return nullptr;
  CtxPtr ctx = tls_context_base(s, protocols, false, error);
  if (!ctx) return nullptr;
  tls_context_session_cache(ctx.get(), s);
  // OpenSSL 3.0 refuses client-initiated renegotiation by default (Redis sets
  // SSL_OP_NO_CLIENT_RENEGOTIATION where it exists: the same effect).
  SSL_CTX_set_options(ctx.get(), SSL_OP_SINGLE_DH_USE);
  if (s.tls_prefer_server_ciphers) SSL_CTX_set_options(ctx.get(), SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (!s.tls_dh_params_file.empty()) {
    if (!tls_context_load_dh(ctx.get(), s.tls_dh_params_file, error)) return nullptr;
  } else {
    SSL_CTX_set_dh_auto(ctx.get(), 1);
  }
  return std::unique_ptr<TlsContext>(new TlsContext(ctx.release()));
}

std::unique_ptr<TlsContext> TlsContext::create_client(const config::ServerSettings& s,
                                                      std::string& error) {
  if (!tls_context_checks(s, error)) return nullptr;
  const int protocols = parse_tls_protocols(s.tls_protocols, error);
  if (protocols < 0) return nullptr;
  // Redis makes a client context only when both tls-client files are set; otherwise its
  // outgoing links use the server context, which is the same but for the certificate.
  const bool own = !s.tls_client_cert_file.empty() && !s.tls_client_key_file.empty();
  CtxPtr ctx = tls_context_base(s, protocols, own, error);
  if (!ctx) return nullptr;
  return std::unique_ptr<TlsContext>(new TlsContext(ctx.release()));
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

}  // namespace listd::net
