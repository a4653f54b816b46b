// The master side of Redis 7.0's replication protocol (replication.c): replicas that connect
// as clients (REPLCONF, PSYNC/SYNC), a full sync from a forked child: a BGSAVE sent as
// `$<len>\r\n<rdb>`, or (repl-diskless-sync, replicas with capa eof) the RDB written by the child
// straight to the replicas' sockets as `$EOF:<mark>\r\n<rdb><mark>` (replication_socket_sync.cpp),
// then the replication stream: the executor's effect stream encoded as the AOF encodes it, a
// SELECT whenever the db changes (forced after each full sync), and a `ping` every
// repl-ping-replica-period. The stream goes through a byte backlog (repl-backlog-size) so that
// a replica that lost its link continues with `+CONTINUE` (PSYNC <replid> <offset>).
//
// API: the effect consumer (wants_effects / on_effect), the commands' operations (replconf_*,
// psync, ack, role rows, info), cron (pings, keep-alive newlines, repl-timeout, backlog ttl),
// forget (a client is destroyed), and the INFO/ROLE figures.
// Invariants: a replica client gets the stream on its output and never a reply to what it
// sends (REPLCONF ACK); master_repl_offset() counts every stream byte since the backlog was
// created; a replica waiting for its RDB buffers the stream from the fork's offset; nothing
// is written to a replica's socket while a diskless child writes there, and after a diskless
// transfer the stream waits for the replica's first REPLCONF ACK (it finds the mark at the end
// of what it read, so nothing may follow the mark before it answers).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "listd/persistence/aof_encoder.h"
#include "listd/persistence/rdb.h"
#include "listd/server/effect_stream.h"
#include "listd/server/persistence_log.h"
#include "listd/server/replication_backlog.h"
#include "listd/server/status.h"

namespace listd::server {

class Executor;
struct Client;

/// A 40-character lower-case hex id (Redis getRandomHexChars: replid, run_id).
std::string random_hex_id(std::mt19937_64& rng);

class ReplicationMaster final : public EffectConsumer {
 public:
  /// Where a replica is in its sync (Redis SLAVE_STATE_*; send_bulk is never observable here,
  /// the RDB goes into the client's output in one piece).
  enum class State { kWaitBgsaveStart, kWaitBgsaveEnd, kOnline };

  /// One row of INFO's slaveN lines / ROLE.
  struct ReplicaRow {
    std::string ip;
    int port = 0;
    State state = State::kOnline;
    long long ack_offset = 0;
    long long lag_s = 0;
  };

  explicit ReplicationMaster(Executor& exec);
  ~ReplicationMaster() override;
  ReplicationMaster(const ReplicationMaster&) = delete;
  ReplicationMaster& operator=(const ReplicationMaster&) = delete;

  void set_logger(PersistenceLog::Sink sink) { log_.set_sink(std::move(sink)); }
  /// Replication's log (SyncReplication writes there too).
  const PersistenceLog& log() const noexcept { return log_; }

  // ---- the effect stream -----------------------------------------------------------------
  /// Effects are streamed once the backlog exists (the first replica created it).
  bool wants_effects() const noexcept override { return backlog_ != nullptr && !following_; }
  void on_effect(int db, std::span<const std::string_view> argv) override;

  /// An effect for replicas only, never the AOF (PUBLISH: Redis forceCommandPropagation with
  /// PROPAGATE_REPL). It goes out at once, so inside MULTI or a script it precedes the unit's
  /// other effects where Redis keeps it in place.
  void propagate_to_replicas(int db, std::span<const std::string_view> argv);

  // ---- what replicas send ----------------------------------------------------------------
  /// REPLCONF listening-port / ip-address / capa (before PSYNC).
  void set_listening_port(const Client& c, int port);
  void set_announced_ip(const Client& c, std::string_view ip);
  void add_capa(const Client& c, std::string_view capa);
  /// REPLCONF rdb-only 0|1 (7.0): the replica wants the RDB only, no stream; it is closed once
  /// the RDB is written (Redis CLIENT_REPL_RDBONLY).
  void set_rdb_only(const Client& c, bool on);
  /// REPLCONF rdb-filter-only (7.0): what `c`'s RDB leaves out (Redis slave_req). A filtered
  /// full sync is always diskless, and shares its child only with replicas of the same filter.
  void set_rdb_filter(const Client& c, const persistence::RdbFilter& filter);
  /// Why PSYNC/SYNC from `c` is refused before it becomes a replica ("" when it is not): a
  /// filtered RDB goes to sockets only, so it needs capa eof (Redis' text) and, in listd, a
  /// plain TCP connection (the diskless child cannot write into a TLS session).
  std::string_view filtered_sync_refusal(const Client& c) const;
  /// PSYNC <replid> <offset> (`sync` false) or SYNC (`sync` true): makes `c` a replica and
  /// writes its first bytes (+CONTINUE and the backlog tail, or +FULLRESYNC, the RDB later).
  void sync(Client& c, std::string_view replid, long long offset, bool legacy_sync);
  /// REPLCONF ACK <offset> from a replica (no reply); ignored from other clients.
  void ack(Client& c, long long offset);
  /// A replica's empty line (its newline while it loads our RDB): it is alive, no offset.
  void refresh_ack_time(Client& c);
  bool is_replica(const Client& c) const noexcept { return find(c) != nullptr; }

  // ---- when we are a replica ourselves (ReplicationReplica) -------------------------------
  /// While following a master, our own effects are not streamed: the master's exact bytes are
  /// (feed_upstream), so a chain shares one replid and one offset space. `upstream` is the
  /// master client once the link is up (its db is a sub-replica's repl-stream-db), or null.
  /// Becoming a replica closes the clients sync-replicas holds (SyncReplication::demoted).
  void set_following(bool following, const Client* upstream);
  /// The master's bytes of one applied command (a whole MULTI ... EXEC at its EXEC).
  void feed_upstream(std::string_view bytes) { feed(bytes); }
  /// After a full sync from a master: its history (replid at offset), a new backlog, and our
  /// replicas dropped (they must sync again from the new data).
  void adopt_history(std::string_view replid, long long offset);
  /// +CONTINUE with another id than ours (the master was promoted): our id becomes replid2 up
  /// to our offset, and our replicas are dropped so that they learn the new id.
  void switch_history(std::string_view replid);
  /// REPLICAOF NO ONE (Redis shiftReplicationId): a new replid, the old one as replid2 up to
  /// offset + 1; our replicas are dropped (they continue partially) and the next effect after
  /// the promotion starts with a SELECT.
  void shift_replid();
  /// Closes every replica of ours (CLIENT KILL semantics: after their pending output).
  void disconnect_replicas();
  const std::string& replid2() const noexcept { return replid2_; }

  // ---- WAIT -----------------------------------------------------------------------------
  /// `c` ran a command (not one queued in MULTI): WAIT waits for the stream's end as it was
  /// then (Redis 7.0 sets c->woff after every command processCommand runs).
  void note_command(const Client& c) {
    if (backlog_) record_write_offset(c);  // no replicas ever: nothing to wait for
  }
  long long write_offset(const Client& c) const;
  /// Asks every replica for its offset: one `REPLCONF GETACK *` joins the stream at the end
  /// of the turn (end_turn), however many WAITs and writes asked (Redis
  /// replicationRequestAckFromSlaves and beforeSleep).
  void request_acks() noexcept { acks_requested_ = true; }
  /// Once per loop turn, before its replies (net::Server::finish_turn).
  void end_turn();
  /// The offset the `n`-th most advanced replica acknowledged (replicas that stream and ack
  /// only); 0 when fewer than `n` do (sync-replicas).
  long long nth_acked_offset(int n) const;
  /// The stream offset after the last data change (pings, GETACKs and PUBLISH move
  /// master_repl_offset but change nothing a reply could show).
  long long last_effect_offset() const noexcept {
    return std::min(last_effect_offset_, master_repl_offset_);
  }
  /// Online replicas whose acknowledged offset reached `offset` (replicationCountAcksByOffset).
  long long count_acks(long long offset) const;
  /// Online replicas whose last ACK is at most min-replicas-max-lag seconds old (Redis'
  /// good slaves), counted now rather than cached by the cron as Redis does.
  int good_replicas() const;
  /// False while min-replicas-to-write and -max-lag are both set and this master has fewer
  /// good replicas (Redis checkGoodReplicasStatus; a replica's state is always good).
  bool enough_good_replicas() const;
  /// Blocks `c` until `needed` replicas acked `offset` or `timeout_ms` passed (0: no limit),
  /// then replies the count; asks every replica for an ACK (a REPLCONF GETACK in the stream).
  void wait(Client& c, long long offset, long long needed, long long timeout_ms);
  /// Answers the WAITs whose deadline is at or before `now_ms` (Executor::tick).
  void fire_wait_timeouts(std::uint64_t now_ms);
  /// WAITs blocked with a deadline (INFO clients_in_timeout_table counts them).
  std::size_t timed_waits() const noexcept;
  /// Monotonic ms of the earliest WAIT deadline, or nullopt.
  std::optional<std::uint64_t> next_wait_deadline() const;

  // ---- housekeeping ----------------------------------------------------------------------
  /// Once a second (Redis replicationCron): the stream's ping, keep-alive newlines to replicas
  /// waiting for their RDB, a BGSAVE for replicas still waiting to start one, the backlog's
  /// ttl. Returns the replicas silent past repl-timeout (the transport closes them).
  std::vector<Client*> cron();
  /// The BGSAVE child ended (Persistence's hook): the waiting replicas get the RDB.
  void rdb_done(bool ok);
  /// A client is being destroyed.
  void forget(const Client& c);

  // ---- INFO / ROLE -----------------------------------------------------------------------
  const std::string& run_id() const noexcept { return run_id_; }
  const std::string& replid() const noexcept { return replid_; }
  long long master_repl_offset() const noexcept { return master_repl_offset_; }
  std::vector<ReplicaRow> replica_rows() const;
  /// Bytes of the backlog's ring (0 before the first replica and after repl-backlog-ttl).
  std::size_t backlog_memory() const noexcept { return backlog_ ? backlog_->capacity() : 0; }
  /// The `# Replication` fields after the header (master form).
  void info(std::string& out) const;
  /// The fields from connected_slaves on (a replica's INFO ends with them too).
  void info_history(std::string& out) const;
  /// INFO stats' sync_full, sync_partial_ok, sync_partial_err lines.
  void info_stats(std::string& out) const;

 private:
  struct Handshake {
    int listening_port = 0;
    std::string ip;
    bool capa_eof = false;
    bool capa_psync2 = false;
    bool rdb_only = false;          // REPLCONF rdb-only 1: the RDB, then closed (redis-cli --rdb)
    persistence::RdbFilter filter;  // REPLCONF rdb-filter-only: the parts its RDB leaves out
  };
  struct Replica {
    Client* client = nullptr;
    Handshake hs;
    State state = State::kWaitBgsaveStart;
    bool legacy_sync = false;  // SYNC: no +FULLRESYNC, no ACKs expected
    long long ack_offset = 0;
    std::int64_t ack_unix_s = 0;
    long long fork_offset = 0;  // the stream offset its RDB was taken at
    std::string pending;  // stream bytes after the fork, while kWaitBgsaveEnd or stream_on_ack
    std::uint64_t asked_ms = 0;      // monotonic, its PSYNC: the diskless delay counts from it
    bool socket_target = false;      // a diskless child is writing its RDB to its socket
    bool acked_in_transfer = false;  // its first ACK came before the child was reaped
    bool stream_on_ack = false;      // online after a diskless transfer, stream held until ACK
  };

  struct WaitingClient {
    Client* client = nullptr;
    long long offset = 0;
    long long needed = 0;
    std::uint64_t deadline_ms = 0;  // 0: none
  };
  /// Replies to the WAITs that have their replicas (all of them when `now_ms` is past their
  /// deadline) and unblocks them.
  void release_waiting(std::uint64_t now_ms);
  /// Redis replicaPutOnline for an rdb-only replica: its RDB is out, it is closed once written.
  void finish_rdb_only(Replica& r);
  void record_write_offset(const Client& c);

  /// Online, streaming and sending ACKs (not SYNC's, not rdb-only, not being closed).
  static bool acks_stream(const Replica& r) noexcept;
  /// Encodes one effect (SELECT first when its db differs) into the stream.
  void stream(int db, std::span<const std::string_view> argv);
  Replica* find(const Client& c) noexcept;
  const Replica* find(const Client& c) const noexcept;
  Handshake take_handshake(const Client& c);
  bool try_partial(Replica& r, std::string_view replid, long long offset);
  void create_backlog();
  /// Appends stream bytes to the backlog and every replica that follows the stream.
  void feed(std::string_view bytes);
  /// Starts a BGSAVE for the replicas in kWaitBgsaveStart, or attaches `r` to the running one.
  void start_full_sync(Replica& r);
  /// Forks for the kWaitBgsaveStart replicas whose filter is `filter` (Redis' batch by
  /// slave_req); the others wait for the next child.
  void start_bgsave_for_waiting(const persistence::RdbFilter& filter);
  /// The BGSAVE that ended was a disk one: the replicas waiting for it get dump.rdb.
  void disk_transfer_done(bool ok);
  void send_fullresync(Replica& r);
  // ---- diskless (replication_socket_sync.cpp) ----
  /// capa eof and a plain socket the child can write to, with nothing queued in the transport.
  bool can_take_eof(const Replica& r) const;
  /// Redis shouldStartChildReplication: no child runs, replicas wait, and diskless sync is off,
  /// or repl-diskless-sync-max-replicas of them wait, or one waited repl-diskless-sync-delay;
  /// only the replicas with the first waiting one's filter count, and `filter` is set to it.
  bool should_start_child(persistence::RdbFilter& filter) const;
  /// Forks the child that writes the RDB (with `filter`) to the socket of every
  /// kWaitBgsaveStart replica with that filter.
  Status start_socket_transfer(const persistence::RdbReplInfo& info,
                               const persistence::RdbFilter& filter);
  /// The diskless child ended: its replicas are online, each stream held until its ACK.
  void socket_transfer_done(bool ok);
  /// Sends what was held for `r` since the fork and streams to it from now on.
  void start_stream(Replica& r);
  /// "ip:port" as Redis' replicationGetSlaveName (the listening port announced).
  std::string name_of(const Replica& r) const;
  void drop(Client& c, std::string_view why);
  std::int64_t unix_s() const;
  void on_backlog_size_changed();

  Executor& exec_;
  PersistenceLog log_;
  std::string run_id_;
  std::string replid_;
  std::string replid2_ = std::string(40, '0');
  long long second_replid_offset_ = -1;
  long long master_repl_offset_ = 0;
  long long last_effect_offset_ = 0;  // master_repl_offset_ after the last on_effect
  bool acks_requested_ = false;       // a GETACK goes out at the turn's end
  std::unique_ptr<ReplicationBacklog> backlog_;
  std::int64_t no_replicas_since_s_ = 0;  // for repl-backlog-ttl
  persistence::AofEncoder encoder_;       // SELECT bookkeeping; its buffer is one effect
  std::vector<Replica> replicas_;         // in attach order (INFO's slaveN numbering)
  std::unordered_map<std::uint64_t, Handshake> handshakes_;  // by client id, before PSYNC
  std::uint64_t cron_loops_ = 0;
  std::uint64_t sync_full_ = 0;
  std::uint64_t sync_partial_ok_ = 0;
  std::uint64_t sync_partial_err_ = 0;
  std::shared_ptr<bool> alive_;                                 // the config observer checks it
  std::vector<WaitingClient> waiting_;                          // WAIT, in arrival order
  std::unordered_map<std::uint64_t, long long> write_offsets_;  // by client id
  bool following_ = false;                                      // we are a replica: set_following
  bool socket_child_ = false;  // the running child is our diskless transfer
  const Client* upstream_ = nullptr;
};

}  // namespace listd::server
