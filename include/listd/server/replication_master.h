// The master side of Redis 7.0's replication protocol (replication.c): replicas that connect
// as clients (REPLCONF, PSYNC/SYNC), a full sync from a forked BGSAVE sent as `$<len>\r\n<rdb>`,
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
// created; a replica waiting for its RDB buffers the stream from the fork's offset.
#pragma once

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
#include "listd/server/effect_stream.h"
#include "listd/server/persistence_log.h"
#include "listd/server/replication_backlog.h"

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

  // ---- the effect stream -----------------------------------------------------------------
  /// Effects are streamed once the backlog exists (the first replica created it).
  bool wants_effects() const noexcept override { return backlog_ != nullptr; }
  void on_effect(int db, std::span<const std::string_view> argv) override;

  // ---- what replicas send ----------------------------------------------------------------
  /// REPLCONF listening-port / ip-address / capa (before PSYNC).
  void set_listening_port(const Client& c, int port);
  void set_announced_ip(const Client& c, std::string_view ip);
  void add_capa(const Client& c, std::string_view capa);
  /// PSYNC <replid> <offset> (`sync` false) or SYNC (`sync` true): makes `c` a replica and
  /// writes its first bytes (+CONTINUE and the backlog tail, or +FULLRESYNC, the RDB later).
  void sync(Client& c, std::string_view replid, long long offset, bool legacy_sync);
  /// REPLCONF ACK <offset> from a replica (no reply); ignored from other clients.
  void ack(Client& c, long long offset);
  bool is_replica(const Client& c) const noexcept { return find(c) != nullptr; }

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
  /// The `# Replication` fields after the header (master form).
  void info(std::string& out) const;
  /// INFO stats' sync_full, sync_partial_ok, sync_partial_err lines.
  void info_stats(std::string& out) const;

 private:
  struct Handshake {
    int listening_port = 0;
    std::string ip;
    bool capa_eof = false;
    bool capa_psync2 = false;
  };
  struct Replica {
    Client* client = nullptr;
    Handshake hs;
    State state = State::kWaitBgsaveStart;
    bool legacy_sync = false;  // SYNC: no +FULLRESYNC, no ACKs expected
    long long ack_offset = 0;
    std::int64_t ack_unix_s = 0;
    long long fork_offset = 0;  // the stream offset its RDB was taken at
    std::string pending;        // stream bytes after the fork, while kWaitBgsaveEnd
  };

  Replica* find(const Client& c) noexcept;
  const Replica* find(const Client& c) const noexcept;
  Handshake take_handshake(const Client& c);
  bool try_partial(Replica& r, std::string_view replid, long long offset);
  void create_backlog();
  /// Appends stream bytes to the backlog and every replica that follows the stream.
  void feed(std::string_view bytes);
  /// Starts a BGSAVE for the replicas in kWaitBgsaveStart, or attaches `r` to the running one.
  void start_full_sync(Replica& r);
  void start_bgsave_for_waiting();
  void send_fullresync(Replica& r);
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
  std::unique_ptr<ReplicationBacklog> backlog_;
  std::int64_t no_replicas_since_s_ = 0;  // for repl-backlog-ttl
  persistence::AofEncoder encoder_;       // SELECT bookkeeping; its buffer is one effect
  std::vector<Replica> replicas_;         // in attach order (INFO's slaveN numbering)
  std::unordered_map<std::uint64_t, Handshake> handshakes_;  // by client id, before PSYNC
  std::uint64_t cron_loops_ = 0;
  std::uint64_t sync_full_ = 0;
  std::uint64_t sync_partial_ok_ = 0;
  std::uint64_t sync_partial_err_ = 0;
  std::shared_ptr<bool> alive_;  // the config observer checks it
};

}  // namespace listd::server
