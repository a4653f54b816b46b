// A connected client as the executor sees it: identity, selected db, protocol version,
// transaction and blocking state, and its output buffer. No socket: the transport (net) sits
// behind ClientTransport and flushes `out` after each loop turn.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "listd/blocking/waiter_registry.h"
#include "listd/protocol/reply_writer.h"
#include "listd/server/list_end.h"
#include "listd/server/pubsub.h"
#include "listd/store/db_key.h"
#include "listd/store/stream_id.h"

namespace listd::server {

class AclUser;

/// What the executor may ask of the transport behind a client (implemented by net).
class ClientTransport {
 public:
  virtual ~ClientTransport() = default;
  /// True when the peer has closed or half-closed its side: such a client must never be handed
  /// an element (checked just before serving a waiter).
  virtual bool peer_gone() = 0;
  /// Bytes buffered but not yet parsed (CLIENT LIST qbuf).
  virtual std::size_t query_buffer_bytes() const = 0;
  /// Room the query buffer holds beyond those bytes (CLIENT LIST qbuf-free; 0 once released).
  virtual std::size_t query_buffer_free() const = 0;
  /// Bytes flush() took from Client::out and has not yet written to the socket (with
  /// Client::out, the output the limits count: output_buffer_limits.h).
  virtual std::size_t pending_output_bytes() const = 0;
  /// The socket whose bytes reach the peer as written (plain TCP), or -1 (TLS, no socket): a
  /// diskless sync's child writes the RDB there itself (replication_master.h).
  virtual int raw_socket() const { return -1; }

  // The end of a loop turn (net::Server::finish_turn) drives the client through these.
  /// Writes Client::out; closes afterwards if close_after_reply. No-op once closed.
  virtual void flush() = 0;
  /// Runs the requests buffered while the client was blocked. No-op once closed.
  virtual void resume() = 0;
  /// Closes the connection (idle timeout); the client is destroyed with it.
  virtual void close() = 0;
};

/// What a blocked client is waiting to do once one of its keys is ready.
struct BlockSpec {
  enum class Kind : std::uint8_t {
    kPop,         ///< BLPOP/BRPOP: reply [key, element]
    kMove,        ///< BLMOVE/BRPOPLPUSH: push into `destination`, reply element
    kMultiPop,    ///< BLMPOP: reply [key, [elements...]] up to `count`
    kZPop,        ///< BZPOPMIN/BZPOPMAX: reply [key, member, score]
    kZMultiPop,   ///< BZMPOP: reply [key, [[member, score]...]]
    kXRead,       ///< XREAD: reply [[key, [entries after the key's id]]] up to `count`
    kXReadGroup,  ///< XREADGROUP >: new entries for `consumer` of `group`, up to `count`
  };
  Kind kind = Kind::kPop;
  End from = End::kHead;
  End to = End::kHead;
  bool zmax = false;
  long long count = 1;
  std::string destination;
  bool as_rpoplpush = false;  ///< kMove asked as BRPOPLPUSH: its effect is RPOPLPUSH, not LMOVE
  /// kXRead: per key, the id the entries served must be above (`$` resolved when blocking).
  std::vector<std::pair<std::string, store::StreamId>> stream_after;
  /// kXReadGroup: the group and consumer read for, and NOACK.
  std::string group;
  std::string consumer;
  bool noack = false;
};

enum class ReplyMode : std::uint8_t { kOn, kOff, kSkip };

/// A client's CLIENT TRACKING mode (Redis' CLIENT_TRACKING* flags), changed only by Tracking.
struct TrackingMode {
  bool on = false;
  bool bcast = false;
  bool optin = false;
  bool optout = false;
  bool noloop = false;
  /// CLIENT CACHING YES|NO given for the next command (or transaction).
  bool caching = false;
  bool broken_redirect = false;  ///< its redirect client is gone (CLIENT LIST flag R)
  std::uint64_t redirect = 0;    ///< 0: none
};

/// Output withheld until enough replicas acknowledged the writes it may show (sync-replicas,
/// sync_replication.h): the bytes in the order they were produced, cut into pieces, each
/// tagged with the stream offset that must be acknowledged before it may leave.
struct HeldReplies {
  struct Piece {
    std::size_t end = 0;         ///< of `bytes`, exclusive
    long long offset = 0;        ///< non-decreasing from piece to piece
    std::uint64_t since_ms = 0;  ///< monotonic, when it was held (sync-replicas-timeout)
  };
  std::string bytes;
  std::vector<Piece> pieces;
};

struct Client {
  explicit Client(std::uint64_t client_id) : id(client_id), waiter(this) {}
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  protocol::ReplyWriter reply() noexcept { return protocol::ReplyWriter(out, resp); }
  bool blocked() const noexcept { return waiter.blocked(); }
  /// Blocked on keys or postponed by CLIENT PAUSE: its buffered requests wait (flags `b`).
  bool waiting() const noexcept { return blocked() || postponed; }
  /// No more requests are run for this client (it is closed once its turn ends).
  bool closing() const noexcept { return close_after_reply || close_asap; }

  std::uint64_t id;
  std::string addr;   ///< "ip:port" of the peer
  std::string laddr;  ///< "ip:port" of our side
  int fd = -1;
  std::string name;
  std::string lib_name;
  std::string lib_ver;
  int db = 0;
  protocol::RespVersion resp = protocol::RespVersion::kResp2;
  bool authenticated = false;
  /// The ACL user it runs as (acl.h); null for internal clients (AOF loading, scripts' own
  /// client), which are never checked. Moved to `default` before its user is deleted.
  AclUser* user = nullptr;
  bool close_after_reply = false;  ///< QUIT, protocol error, CLIENT KILL: close once flushed
  /// Over its output-buffer limit (output_buffer_limits.h): gets no more output, runs no more
  /// commands, and is closed at the end of the turn without its output being written.
  bool close_asap = false;
  /// When the output first reached the soft limit (whole monotonic seconds); empty while under.
  std::optional<std::uint64_t> obuf_soft_limit_since_s;
  bool monitor = false;
  /// A replica of ours (PSYNC/SYNC, replication_master.h): its output is the replication
  /// stream and its class the `replica` output-buffer limit.
  bool replica = false;
  /// The link to our own master (replication_replica.h): its commands are the replication
  /// stream, applied without replies or checks, and it sees logically expired keys as live.
  bool master = false;
  /// Its script runs past busy-reply-threshold (Redis protectClient): while the event loop runs
  /// from the script's hook, the transport neither runs its requests nor moves its read buffer
  /// (its argv points there) nor frees it; it picks up after the script.
  bool script_running = false;
  ReplyMode reply_mode = ReplyMode::kOn;
  bool no_evict = false;
  bool no_touch = false;
  /// Its last measure in client eviction's running total (client_eviction.h); 0 when uncounted.
  std::size_t eviction_measure = 0;

  // MULTI/EXEC
  bool in_multi = false;
  bool multi_error = false;  ///< a command failed to queue: EXEC answers EXECABORT
  std::vector<std::vector<std::string>> queued;
  std::uint32_t queued_flags = 0;  ///< the queued commands' flags, OR-ed (Redis mstate.cmd_flags)
  bool queued_shows_data = false;  ///< a queued command's reply may show data (sync-replicas)
  // WATCH
  bool watch_dirty = false;
  std::vector<store::DbKey> watched;

  // Blocking
  blocking::Waiter waiter;
  BlockSpec block;
  std::uint64_t blocked_since_ms = 0;  ///< monotonic, when it last blocked (the queue view)
  /// Its request waits for the end of a CLIENT PAUSE (client_pause.h): it stays unconsumed in
  /// the transport's buffer and runs again, from the start, when the pause ends.
  bool postponed = false;

  PubSubState pubsub;     ///< channels, patterns, shard channels (pubsub.h)
  TrackingMode tracking;  ///< CLIENT TRACKING (tracking.h)

  // Output produced by commands, flushed by the transport.
  std::string out;
  bool queued_for_flush = false;
  /// Some output queued since `out` was last consumed may show data (anything but the reply
  /// of a command that reads and writes no key: ClientRegistry::queue_flush): with
  /// sync-replicas it waits for the replicas' acknowledgement.
  bool out_needs_ack = false;
  /// Output waiting for replicas' acknowledgement (sync-replicas); null while none waits.
  std::unique_ptr<HeldReplies> held;
  std::size_t held_bytes() const noexcept { return held ? held->bytes.size() : 0; }

  // Stats for CLIENT LIST / INFO.
  std::uint64_t created_ms = 0;
  std::uint64_t last_interaction_ms = 0;
  /// The running or last command's full name: a view of its CommandSpec::full_name (the
  /// command table outlives every client), so recording it costs no copy per command.
  std::string_view last_command = "NULL";

  ClientTransport* transport = nullptr;
};

}  // namespace listd::server
