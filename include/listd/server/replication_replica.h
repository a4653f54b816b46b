// The replica side of Redis 7.0's replication protocol (replication.c): REPLICAOF, the
// handshake a replica sends (PING, AUTH, REPLCONF listening-port / ip-address / capa eof capa
// psync2, PSYNC), the master's RDB in either form (`$<len>` or diskless `$EOF:<40 bytes>`)
// loaded into a fresh keyspace, then the stream applied by the master client without replies
// (REPLCONF GETACK is answered with REPLCONF ACK), and REPLCONF ACK once a second.
//
// API: set_master / unset_master (REPLICAOF), the link's events from net (on_connected,
// on_bytes, on_link_closed; the socket is net::ReplicaLink behind MasterLinkTransport), cron,
// and the INFO / ROLE figures.
// Invariants: the applied offset is ReplicationMaster's master_repl_offset (the chain shares
// the master's replid and offsets); it advances by the bytes of each complete command, and a
// MULTI ... EXEC only at its EXEC, as Redis' reploff; those exact bytes go to our backlog and
// sub-replicas. While a master is set, keys never expire here (reads hide expired keys; the
// master's DEL removes them) and normal clients' writes get -READONLY.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "listd/protocol/reply_writer.h"
#include "listd/protocol/request_parser.h"
#include "listd/server/client.h"
#include "listd/server/persistence_log.h"

namespace listd::persistence {
struct RdbLoadResult;
}

namespace listd::store {
class Keyspace;
}

namespace listd::server {

class Executor;
class MasterLinkTransport;

class ReplicationReplica final : public ClientTransport {
 public:
  /// Redis REPL_STATE_*, with the handshake's steps folded into kHandshake.
  enum class State { kNone, kConnect, kConnecting, kHandshake, kTransfer, kConnected };

  explicit ReplicationReplica(Executor& exec);
  ~ReplicationReplica() override;
  ReplicationReplica(const ReplicationReplica&) = delete;
  ReplicationReplica& operator=(const ReplicationReplica&) = delete;

  void set_logger(PersistenceLog::Sink sink) { log_.set_sink(std::move(sink)); }
  void log_notice(std::string_view msg) const { log_.notice(msg); }
  /// net installs the link (null uninstalls it); with `replicaof` configured this starts
  /// connecting.
  void set_transport(MasterLinkTransport* transport);

  // ---- REPLICAOF ------------------------------------------------------------------------
  /// True while a master is set (role:slave).
  bool active() const noexcept { return !host_.empty(); }
  bool link_up() const noexcept { return state_ == State::kConnected; }
  /// A replica whose link is down with replica-serve-stale-data no: only the commands flagged
  /// stale run (Redis' MASTERDOWN condition).
  bool stale_refused() const;
  /// REPLICAOF host port. False when already following that master (no change). On a master,
  /// blocked clients get -UNBLOCKED and are closed, and our own replid/offset are kept for the
  /// PSYNC (Redis replicationCacheMasterUsingMyself).
  bool set_master(const std::string& host, int port);
  /// REPLICAOF NO ONE: back to master, the replid shifted to replid2 (no-op on a master).
  void unset_master();

  // ---- the link (net) -------------------------------------------------------------------
  void on_connected();
  /// Bytes from the master: handshake replies, the RDB, then the stream.
  void on_bytes(std::string_view bytes);
  /// The connection failed or was lost.
  void on_link_closed(std::string_view why);

  /// Once a second (Redis replicationCron): connect, REPLCONF ACK, repl-timeout, and the
  /// stream buffered while a script was busy.
  void cron();

  // ---- INFO / ROLE ----------------------------------------------------------------------
  /// The replica fields of `# Replication` from role:slave to replica_announced.
  void info(std::string& out) const;
  /// ROLE's reply on a replica: [slave, host, port, state, offset].
  void role(protocol::ReplyWriter& reply) const;

  // ---- ClientTransport of the master client: its replies are dropped --------------------
  bool peer_gone() override { return false; }
  std::size_t query_buffer_bytes() const override { return in_.size(); }
  std::size_t query_buffer_free() const override { return in_.capacity() - in_.size(); }
  std::size_t pending_output_bytes() const override { return 0; }
  void flush() override;
  void resume() override {}
  void close() override;

 private:
  /// What the next handshake line from the master answers.
  enum class Awaiting { kPing, kAuth, kPort, kIp, kCapa, kPsync, kBulkHeader };

  void connect_now();
  /// Logs `why`, closes the connection and forgets the session (the history stays for a PSYNC).
  void drop_link(std::string_view why, bool reconnect_now);
  void drop_master_client();
  void process();
  bool process_line(std::string_view line);
  void send_handshake();
  void send_psync();
  bool on_psync_reply(std::string_view line);
  bool on_bulk_header(std::string_view line);
  bool read_payload();
  void load_payload();
  void send_loading_newline();
  void install_payload(const persistence::RdbLoadResult& loaded, store::Keyspace& fresh);
  void start_stream(int db);
  void apply_stream();
  void apply_command(std::span<const std::string_view> argv, std::string_view raw);
  void send_ack();
  void send_command(std::initializer_list<std::string_view> argv);
  void unblock_clients_for_demotion();
  std::int64_t unix_s() const;

  Executor& exec_;
  PersistenceLog log_;
  MasterLinkTransport* transport_ = nullptr;
  std::string host_;
  int port_ = 0;
  State state_ = State::kNone;
  std::vector<Awaiting> awaiting_;  // handshake replies expected, in order
  std::string in_;                  // bytes received and not yet consumed
  protocol::RequestParser parser_;
  Client* master_ = nullptr;  // the master client, while the link is up
  std::string pending_raw_;   // a MULTI's bytes until its EXEC
  std::string deferred_;      // read while the stream's own command ran the loop (busy script)
  bool applying_ = false;
  bool loading_ = false;             // load_payload is serving clients: no re-entrant input
  std::uint64_t session_ = 0;        // bumped when the link's session ends (drop_master_client)
  std::int64_t newline_sent_s_ = 0;  // the loading keep-alive's last second
  bool have_history_ = false;        // a replid/offset worth a PSYNC (cached master or ourselves)
  // The transfer.
  std::string sync_replid_;
  long long sync_offset_ = 0;
  std::string eof_mark_;  // the diskless form's 40-byte mark; empty: `$<len>`
  long long transfer_size_ = -1;
  std::string payload_;
  std::int64_t transfer_last_io_s_ = 0;
  // Timers and counters (unix seconds).
  std::int64_t last_io_s_ = 0;
  std::int64_t down_since_s_ = 0;  // 0: never up
};

}  // namespace listd::server
