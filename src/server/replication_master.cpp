#include "listd/server/replication_master.h"

#include <fmt/format.h>

#include <algorithm>

#include "listd/base/redis_text.h"
#include "listd/persistence/file_io.h"
#include "listd/server/blocking_service.h"
#include "listd/server/client.h"
#include "listd/server/executor.h"
#include "listd/server/persistence.h"
#include "listd/server/replication_replica.h"

namespace listd::server {
namespace {

// Redis CONFIG_REPL_BACKLOG_MIN_SIZE: a smaller repl-backlog-size is raised to this.
constexpr std::size_t kMinBacklogBytes = 16 * 1024;
// The stream's keep-alive: Redis feeds `ping` with replicationFeedSlaves (lower case).
constexpr std::string_view kStreamPing = "*1\r\n$4\r\nping\r\n";

std::size_t backlog_bytes(const config::ServerSettings& s) {
  return std::max<std::size_t>(static_cast<std::size_t>(s.repl_backlog_size), kMinBacklogBytes);
}

// "ip:port" → "ip" (the peer address INFO shows when the replica announced none).
std::string peer_ip(const std::string& addr) {
  const std::size_t colon = addr.rfind(':');
  return colon == std::string::npos ? addr : addr.substr(0, colon);
}

std::string_view state_name(ReplicationMaster::State s) {
  return s == ReplicationMaster::State::kOnline ? "online" : "wait_bgsave";
}

}  // namespace

std::string random_hex_id(std::mt19937_64& rng) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(40, '0');
  for (char& ch : id) ch = kHex[rng() & 15];
  return id;
}

ReplicationMaster::ReplicationMaster(Executor& exec) : exec_(exec) {
  run_id_ = random_hex_id(exec_.rng());
  replid_ = random_hex_id(exec_.rng());
  auto alive = std::make_shared<bool>(true);
  exec_.config().on_change([this, weak = std::weak_ptr<bool>(alive)](std::string_view name) {
    if (!weak.expired() && name == "repl-backlog-size") on_backlog_size_changed();
  });
  alive_ = std::move(alive);
  no_replicas_since_s_ = unix_s();
}

ReplicationMaster::~ReplicationMaster() = default;

std::int64_t ReplicationMaster::unix_s() const { return exec_.clock().unix_ms() / 1000; }

ReplicationMaster::Replica* ReplicationMaster::find(const Client& c) noexcept {
  for (Replica& r : replicas_)
    if (r.client == &c) return &r;
  return nullptr;
}

const ReplicationMaster::Replica* ReplicationMaster::find(const Client& c) const noexcept {
  for (const Replica& r : replicas_)
    if (r.client == &c) return &r;
  return nullptr;
}

// ---- the stream ---------------------------------------------------------------------------

void ReplicationMaster::on_effect(int db, std::span<const std::string_view> argv) {
  stream(db, argv);
  // A change of data: replies that may show it wait for it (sync-replicas). Pings, GETACKs and
  // PUBLISH change none.
  last_effect_offset_ = master_repl_offset_;
}

void ReplicationMaster::propagate_to_replicas(int db, std::span<const std::string_view> argv) {
  if (wants_effects()) stream(db, argv);
}

void ReplicationMaster::stream(int db, std::span<const std::string_view> argv) {
  encoder_.append(db, argv);
  feed(encoder_.buffer());
  encoder_.clear();
}

void ReplicationMaster::set_following(bool following, const Client* upstream) {
  if (following && !following_) exec_.sync_replication().demoted();
  following_ = following;
  upstream_ = upstream;
}

void ReplicationMaster::end_turn() {
  if (!acks_requested_) return;
  acks_requested_ = false;
  // Redis beforeSleep's GETACK; replicas answer with the offset before it.
  static constexpr std::string_view kGetack = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n";
  feed(kGetack);
}

void ReplicationMaster::feed(std::string_view bytes) {
  if (!backlog_ || bytes.empty()) return;
  backlog_->append(bytes);
  master_repl_offset_ = backlog_->end_offset();
  for (Replica& r : replicas_) {
    if (r.client->close_asap || r.hs.rdb_only) continue;  // rdb-only: never a stream
    if (r.state == State::kOnline && !r.stream_on_ack) {
      r.client->out.append(bytes);
      exec_.clients().queue_flush(*r.client);
    } else if (r.state != State::kWaitBgsaveStart) {
      r.pending.append(bytes);  // after its RDB (Redis accumulates it in the output buffer)
    }
  }
}

void ReplicationMaster::create_backlog() {
  // A new history: a new replid and no second one (Redis syncCommand).
  replid_ = random_hex_id(exec_.rng());
  replid2_ = std::string(40, '0');
  second_replid_offset_ = -1;
  backlog_ = std::make_unique<ReplicationBacklog>(backlog_bytes(exec_.config().settings()),
                                                  master_repl_offset_);
  log_.notice(fmt::format("Replication backlog created, my new replication IDs are '{}' and '{}'",
                          replid_, replid2_));
}

void ReplicationMaster::adopt_history(std::string_view replid, long long offset) {
  disconnect_replicas();
  replid_ = std::string(replid);
  replid2_ = std::string(40, '0');
  second_replid_offset_ = -1;
  master_repl_offset_ = offset;
  backlog_ = std::make_unique<ReplicationBacklog>(backlog_bytes(exec_.config().settings()),
                                                  master_repl_offset_);
}

void ReplicationMaster::switch_history(std::string_view replid) {
  replid2_ = replid_;
  second_replid_offset_ = master_repl_offset_ + 1;
  replid_ = std::string(replid);
  log_.notice(fmt::format("Master replication ID changed to {}", replid_));
  disconnect_replicas();
  if (!backlog_)
    backlog_ = std::make_unique<ReplicationBacklog>(backlog_bytes(exec_.config().settings()),
                                                    master_repl_offset_);
}

void ReplicationMaster::shift_replid() {
  replid2_ = replid_;
  second_replid_offset_ = master_repl_offset_ + 1;
  replid_ = random_hex_id(exec_.rng());
  log_.notice(fmt::format(
      "Setting secondary replication ID to {}, valid up to offset: {}. New replication ID is {}",
      replid2_, second_replid_offset_, replid_));
  disconnect_replicas();
  encoder_.reset_selected_db();  // the stream after a promotion starts with a SELECT
  no_replicas_since_s_ = unix_s();
}

void ReplicationMaster::disconnect_replicas() {
  std::vector<Replica> gone;
  gone.swap(replicas_);  // nothing more is streamed to them
  for (Replica& r : gone) {
    if (r.client->close_asap) continue;
    exec_.clients().queue_flush(*r.client);
    exec_.clients().request_kill(*r.client);
  }
  if (!gone.empty()) no_replicas_since_s_ = unix_s();
}

void ReplicationMaster::on_backlog_size_changed() {
  if (backlog_) backlog_->resize(backlog_bytes(exec_.config().settings()));
}

// ---- the handshake ------------------------------------------------------------------------

void ReplicationMaster::set_listening_port(const Client& c, int port) {
  handshakes_[c.id].listening_port = port;
}

void ReplicationMaster::set_announced_ip(const Client& c, std::string_view ip) {
  handshakes_[c.id].ip = std::string(ip);
}

void ReplicationMaster::add_capa(const Client& c, std::string_view capa) {
  Handshake& hs = handshakes_[c.id];
  if (base::iequals(capa, "eof")) hs.capa_eof = true;
  if (base::iequals(capa, "psync2")) hs.capa_psync2 = true;
  // Unknown capabilities (dual-channel, ...) are ignored, as Redis does.
}

void ReplicationMaster::set_rdb_only(const Client& c, bool on) { handshakes_[c.id].rdb_only = on; }

void ReplicationMaster::set_rdb_filter(const Client& c, const persistence::RdbFilter& filter) {
  handshakes_[c.id].filter = filter;
}

std::string_view ReplicationMaster::filtered_sync_refusal(const Client& c) const {
  const auto it = handshakes_.find(c.id);
  if (find(c) || it == handshakes_.end() || !it->second.filter.any()) return {};
  if (!it->second.capa_eof) return "ERR Filtered replica requires EOF capability";
  if (c.transport == nullptr || c.transport->raw_socket() < 0)
    return "ERR Filtered replica requires a plain TCP connection: listd cannot send a filtered "
           "RDB over TLS";
  return {};
}

ReplicationMaster::Handshake ReplicationMaster::take_handshake(const Client& c) {
  Handshake hs;
  if (auto it = handshakes_.find(c.id); it != handshakes_.end()) {
    hs = std::move(it->second);
    handshakes_.erase(it);
  }
  return hs;
}

void ReplicationMaster::sync(Client& c, std::string_view replid, long long offset,
                             bool legacy_sync) {
  if (find(c)) return;  // already a replica: ignored, as Redis
  Replica r;
  r.client = &c;
  r.hs = take_handshake(c);
  r.legacy_sync = legacy_sync;
  r.ack_unix_s = unix_s();
  r.asked_ms = exec_.clock().monotonic_ms();
  log_.notice(fmt::format("Replica {} asks for synchronization", name_of(r)));
  c.replica = true;
  if (!legacy_sync) {
    if (try_partial(r, replid, offset)) {
      ++sync_partial_ok_;
      replicas_.push_back(std::move(r));
      exec_.clients().queue_flush(c);
      return;
    }
    if (replid.empty() || replid[0] != '?') ++sync_partial_err_;
  }
  ++sync_full_;
  r.state = State::kWaitBgsaveStart;
  replicas_.push_back(std::move(r));
  if (replicas_.size() == 1 && !backlog_) create_backlog();
  start_full_sync(replicas_.back());
}

// Redis masterTryPartialResynchronization: the replid must be ours, or our previous one up to
// the offset where it ended, and the offset still in the backlog.
bool ReplicationMaster::try_partial(Replica& r, std::string_view replid, long long offset) {
  const bool id_ok = replid == replid_ || (replid == replid2_ && offset <= second_replid_offset_);
  if (!id_ok) {
    if (!replid.empty() && replid[0] == '?')
      log_.notice("Full resync requested by replica");
    else if (replid != replid_ && replid != replid2_)
      log_.notice(fmt::format(
          "Partial resynchronization not accepted: Replication ID mismatch (Replica asked for "
          "'{}', my replication IDs are '{}' and '{}')",
          replid, replid_, replid2_));
    else
      log_.notice(fmt::format(
          "Partial resynchronization not accepted: Requested offset for second ID was {}, but I "
          "can reply up to {}",
          offset, second_replid_offset_));
    return false;
  }
  if (!backlog_ || !backlog_->contains(offset)) {
    log_.notice(fmt::format(
        "Unable to partial resync with replica for lack of backlog (Replica request was: {}).",
        offset));
    return false;
  }
  r.state = State::kOnline;
  std::string& out = r.client->out;
  out += r.hs.capa_psync2 ? fmt::format("+CONTINUE {}\r\n", replid_) : "+CONTINUE\r\n";
  const std::size_t before = out.size();
  backlog_->copy_from(offset, out);
  log_.notice(fmt::format(
      "Partial resynchronization request accepted. Sending {} bytes of backlog starting from "
      "offset {}.",
      out.size() - before, offset));
  return true;
}

// ---- full sync ----------------------------------------------------------------------------

void ReplicationMaster::start_full_sync(Replica& r) {
  const config::ServerSettings& s = exec_.config().settings();
  if (!exec_.persistence().child_running()) {
    if (s.repl_diskless_sync && s.repl_diskless_sync_delay > 0 && can_take_eof(r)) {
      // The child starts in cron, once more replicas had time to join it.
      log_.notice("Delay next BGSAVE for diskless SYNC");
      return;
    }
    start_bgsave_for_waiting(r.hs.filter);
    return;
  }
  if (socket_child_) {  // it writes to its own replicas' sockets only
    log_.notice("Current BGSAVE has socket target. Waiting for next BGSAVE for SYNC");
    return;
  }
  // A BGSAVE for another replica is running: share it, with a copy of what that replica
  // buffered since the fork (Redis syncCommand, case 1), if `r` has the capabilities of the
  // first replica waiting for it.
  for (const Replica& other : replicas_) {
    if (&other == &r || other.state != State::kWaitBgsaveEnd) continue;
    // An rdb-only replica buffers no stream: only another rdb-only one can share its BGSAVE.
    if (other.hs.rdb_only && !r.hs.rdb_only) continue;
    // It needs at least that replica's capabilities and exactly its filter.
    if ((other.hs.capa_eof && !r.hs.capa_eof) || other.hs.filter != r.hs.filter) break;
    r.state = State::kWaitBgsaveEnd;
    r.fork_offset = other.fork_offset;
    if (!r.hs.rdb_only) r.pending = other.pending;
    send_fullresync(r);
    log_.notice("Waiting for end of BGSAVE for SYNC");
    return;
  }
  log_.notice("Can't attach the replica to the current BGSAVE. Waiting for next BGSAVE for SYNC");
}

void ReplicationMaster::start_bgsave_for_waiting(const persistence::RdbFilter& filter) {
  persistence::RdbReplInfo info;
  // A replica's sub-replica continues in the db its master's stream has selected.
  info.stream_db = upstream_ ? upstream_->db : std::max(encoder_.selected_db(), 0);
  info.replid = replid_;
  info.offset = master_repl_offset_;
  // The batch: the waiting replicas that asked for this filter (Redis' slave_req).
  const auto in_batch = [&filter](const Replica& r) {
    return r.state == State::kWaitBgsaveStart && r.hs.filter == filter;
  };
  // The batch goes to sockets only if every replica in it can take the EOF form (Redis'
  // mincapa: the capabilities they all have). A filtered RDB always does: it must never
  // replace dump.rdb.
  bool to_sockets = exec_.config().settings().repl_diskless_sync || filter.any();
  for (const Replica& r : replicas_)
    if (in_batch(r) && !can_take_eof(r)) to_sockets = false;
  // Filtered replicas have capa eof and a plain socket (filtered_sync_refusal): one whose
  // transport still has output queued waits for the next cron.
  if (filter.any() && !to_sockets) return;
  log_.notice(fmt::format("Starting BGSAVE for SYNC with target: {}",
                          to_sockets ? "replicas sockets" : "disk"));
  if (Status s = to_sockets ? start_socket_transfer(info, filter)
                            : exec_.persistence().bgsave_for_replication(info);
      !s) {
    log_.warning(fmt::format("BGSAVE for replication failed: {}", s.error()));
    std::vector<Client*> failed;
    for (Replica& r : replicas_)
      if (r.state == State::kWaitBgsaveStart) failed.push_back(r.client);
    for (Client* c : failed) {
      c->out += "-ERR BGSAVE failed, replication can't continue\r\n";
      drop(*c, "BGSAVE failed");
    }
    return;
  }
  encoder_.reset_selected_db();  // the stream after the snapshot starts with a SELECT
  if (to_sockets) return;        // start_socket_transfer set its replicas up
  for (Replica& r : replicas_) {
    if (!in_batch(r)) continue;
    r.state = State::kWaitBgsaveEnd;
    r.fork_offset = master_repl_offset_;
    r.pending.clear();
    send_fullresync(r);
  }
}

void ReplicationMaster::send_fullresync(Replica& r) {
  if (r.legacy_sync) return;  // SYNC gets the bulk only
  r.client->out += fmt::format("+FULLRESYNC {} {}\r\n", replid_, r.fork_offset);
  exec_.clients().queue_flush(*r.client);
}

void ReplicationMaster::rdb_done(bool ok) {
  if (socket_child_)
    socket_transfer_done(ok);
  else
    disk_transfer_done(ok);
  // Redis replicationStartPendingFork after a child: the replicas that waited for this one.
  if (persistence::RdbFilter filter; should_start_child(filter)) start_bgsave_for_waiting(filter);
}

void ReplicationMaster::disk_transfer_done(bool ok) {
  std::vector<Replica*> waiting;
  for (Replica& r : replicas_)
    if (r.state == State::kWaitBgsaveEnd) waiting.push_back(&r);
  std::string rdb, err;
  if (!waiting.empty() && ok && !persistence::read_file(exec_.persistence().rdb_path(), rdb, err)) {
    log_.warning(fmt::format("SYNC failed. Can't open/stat DB after BGSAVE: {}", err));
    ok = false;
  }
  std::vector<Client*> failed;
  for (Replica* r : waiting) {
    if (!ok) {
      failed.push_back(r->client);
      continue;
    }
    std::string& out = r->client->out;
    out += fmt::format("${}\r\n", rdb.size());
    out += rdb;  // no CRLF after the payload
    if (r->hs.rdb_only) {
      finish_rdb_only(*r);
      continue;
    }
    out += r->pending;
    std::string().swap(r->pending);
    r->state = State::kOnline;
    r->ack_unix_s = unix_s();
    exec_.clients().queue_flush(*r->client);
    log_.notice(fmt::format("Synchronization with replica {} succeeded", name_of(*r)));
  }
  for (Client* c : failed) drop(*c, "SYNC failed. BGSAVE child returned an error");
}

std::string ReplicationMaster::name_of(const Replica& r) const {
  return fmt::format("{}:{}", r.hs.ip.empty() ? peer_ip(r.client->addr) : r.hs.ip,
                     r.hs.listening_port);
}

void ReplicationMaster::finish_rdb_only(Replica& r) {
  log_.notice(fmt::format(
      "RDB transfer completed, rdb only replica ({}) should be disconnected asap", name_of(r)));
  std::string().swap(r.pending);  // freed: an assigned empty string keeps its buffer
  exec_.clients().queue_flush(*r.client);
  exec_.clients().request_kill(*r.client);  // closed once its output is written
}

void ReplicationMaster::drop(Client& c, std::string_view why) {
  log_.warning(fmt::format("Closing replica {}: {}", c.addr, why));
  exec_.clients().queue_flush(c);
  exec_.clients().request_kill(c);
}

// ---- WAIT ---------------------------------------------------------------------------------

void ReplicationMaster::record_write_offset(const Client& c) {
  write_offsets_[c.id] = master_repl_offset_;
}

long long ReplicationMaster::write_offset(const Client& c) const {
  const auto it = write_offsets_.find(c.id);
  return it == write_offsets_.end() ? 0 : it->second;
}

long long ReplicationMaster::count_acks(long long offset) const {
  long long n = 0;
  for (const Replica& r : replicas_)
    if (r.state == State::kOnline && r.ack_offset >= offset) ++n;
  return n;
}

int ReplicationMaster::good_replicas() const {
  const std::int64_t now = unix_s();
  const int max_lag = exec_.config().settings().min_replicas_max_lag;
  int n = 0;
  for (const Replica& r : replicas_)
    if (r.state == State::kOnline && now - r.ack_unix_s <= max_lag) ++n;
  return n;
}

bool ReplicationMaster::acks_stream(const Replica& r) noexcept {
  return r.state == State::kOnline && !r.legacy_sync && !r.hs.rdb_only && !r.client->close_asap;
}

long long ReplicationMaster::nth_acked_offset(int n) const {
  std::vector<long long> acks;
  for (const Replica& r : replicas_)
    if (acks_stream(r)) acks.push_back(r.ack_offset);
  if (n <= 0 || acks.size() < static_cast<std::size_t>(n)) return 0;
  std::nth_element(acks.begin(), acks.begin() + (n - 1), acks.end(), std::greater<>());
  return acks[static_cast<std::size_t>(n - 1)];
}

bool ReplicationMaster::enough_good_replicas() const {
  const config::ServerSettings& s = exec_.config().settings();
  if (exec_.replica_side().active()) return true;
  if (s.sync_replicas != 0 &&
      std::count_if(replicas_.begin(), replicas_.end(), acks_stream) < s.sync_replicas)
    return false;
  if (s.min_replicas_to_write == 0 || s.min_replicas_max_lag == 0) return true;
  return good_replicas() >= s.min_replicas_to_write;
}

void ReplicationMaster::wait(Client& c, long long offset, long long needed, long long timeout_ms) {
  // Blocked without a key anyone can signal: db -1 exists for no command.
  static constexpr std::string_view kNoKey[] = {"wait"};
  exec_.blocking().waiters().block(c.waiter, -1, kNoKey);
  WaitingClient w;
  w.client = &c;
  w.offset = offset;
  w.needed = needed;
  if (timeout_ms > 0) w.deadline_ms = exec_.clock().monotonic_ms() + timeout_ms;
  waiting_.push_back(w);
  request_acks();  // one GETACK at the turn's end for all its WAITs, as Redis
}

void ReplicationMaster::release_waiting(std::uint64_t now_ms) {
  std::vector<WaitingClient> still;
  for (const WaitingClient& w : waiting_) {
    if (!w.client->blocked()) continue;  // unblocked otherwise (a demotion's -UNBLOCKED)
    const long long acked = count_acks(w.offset);
    if (acked < w.needed && (w.deadline_ms == 0 || now_ms < w.deadline_ms)) {
      still.push_back(w);
      continue;
    }
    w.client->reply().integer(acked);
    exec_.blocking().finish(*w.client);
  }
  waiting_.swap(still);
}

std::size_t ReplicationMaster::timed_waits() const noexcept {
  return static_cast<std::size_t>(std::count_if(
      waiting_.begin(), waiting_.end(), [](const WaitingClient& w) { return w.deadline_ms != 0; }));
}

void ReplicationMaster::fire_wait_timeouts(std::uint64_t now_ms) {
  if (!waiting_.empty()) release_waiting(now_ms);
}

std::optional<std::uint64_t> ReplicationMaster::next_wait_deadline() const {
  std::optional<std::uint64_t> next;
  for (const WaitingClient& w : waiting_)
    if (w.deadline_ms != 0 && (!next || w.deadline_ms < *next)) next = w.deadline_ms;
  return next;
}

// ---- steady state -------------------------------------------------------------------------

void ReplicationMaster::refresh_ack_time(Client& c) {
  if (Replica* r = find(c)) r->ack_unix_s = unix_s();
}

void ReplicationMaster::ack(Client& c, long long offset) {
  Replica* r = find(c);
  if (!r) return;
  r->ack_offset = std::max(r->ack_offset, offset);
  r->ack_unix_s = unix_s();
  // A replica acks only once it loaded the RDB: the diskless child has written its last byte.
  if (r->state == State::kWaitBgsaveEnd && r->socket_target) r->acked_in_transfer = true;
  if (r->state == State::kOnline && r->stream_on_ack) start_stream(*r);
  if (!waiting_.empty()) release_waiting(exec_.clock().monotonic_ms());
  exec_.sync_replication().replicas_changed();
}

std::vector<Client*> ReplicationMaster::cron() {
  const config::ServerSettings& s = exec_.config().settings();
  const std::int64_t now = unix_s();
  ++cron_loops_;
  // A replica proxies its master's pings; its own would shift the chain's offsets. Nor while a
  // FAILOVER with a timeout waits for the target to reach our offset (Redis skips them then).
  const bool failover_waiting = exec_.failover().has_deadline() && exec_.client_pause().active();
  if (!replicas_.empty() && !following_ && !failover_waiting && s.repl_ping_replica_period > 0 &&
      cron_loops_ % static_cast<std::uint64_t>(s.repl_ping_replica_period) == 0)
    feed(kStreamPing);  // no SELECT: a ping applies to no db
  std::vector<Client*> timed_out;
  for (Replica& r : replicas_) {
    if (r.state != State::kOnline) {
      // Keep-alive while the snapshot is made (replicas skip newlines before the payload),
      // but never into a socket the diskless child is writing to.
      if (r.socket_target || r.client->close_after_reply) continue;
      r.client->out += '\n';
      exec_.clients().queue_flush(*r.client);
    } else if (!r.legacy_sync && now - r.ack_unix_s > s.repl_timeout) {
      log_.warning(fmt::format("Disconnecting timedout replica (streaming sync): {}:{}",
                               peer_ip(r.client->addr), r.hs.listening_port));
      timed_out.push_back(r.client);
    }
  }
  if (persistence::RdbFilter filter; should_start_child(filter)) start_bgsave_for_waiting(filter);
  if (replicas_.empty() && backlog_ && s.repl_backlog_ttl > 0 &&
      now - no_replicas_since_s_ > s.repl_backlog_ttl) {
    // Without replicas for repl-backlog-ttl: free it; the next one starts a new history.
    log_.notice(
        fmt::format("Replication backlog freed after {} seconds without connected replicas.",
                    s.repl_backlog_ttl));
    backlog_.reset();
    replid_ = random_hex_id(exec_.rng());
    replid2_ = std::string(40, '0');
    second_replid_offset_ = -1;
  }
  return timed_out;
}

void ReplicationMaster::forget(const Client& c) {
  handshakes_.erase(c.id);
  write_offsets_.erase(c.id);
  std::erase_if(waiting_, [&](const WaitingClient& w) { return w.client == &c; });
  const auto it = std::find_if(replicas_.begin(), replicas_.end(),
                               [&](const Replica& r) { return r.client == &c; });
  if (it == replicas_.end()) return;
  log_.notice(
      fmt::format("Connection with replica {}:{} lost.", peer_ip(c.addr), it->hs.listening_port));
  replicas_.erase(it);
  if (replicas_.empty()) no_replicas_since_s_ = unix_s();
}

// ---- INFO / ROLE --------------------------------------------------------------------------

std::vector<ReplicationMaster::ReplicaRow> ReplicationMaster::replica_rows() const {
  std::vector<ReplicaRow> rows;
  const std::int64_t now = unix_s();
  for (const Replica& r : replicas_) {
    ReplicaRow row;
    row.ip = r.hs.ip.empty() ? peer_ip(r.client->addr) : r.hs.ip;
    row.port = r.hs.listening_port;
    row.state = r.state;
    row.ack_offset = r.ack_offset;
    row.lag_s = r.state == State::kOnline ? now - r.ack_unix_s : 0;
    rows.push_back(std::move(row));
  }
  return rows;
}

void ReplicationMaster::info(std::string& out) const {
  out += "role:master\r\n";
  info_history(out);
}

void ReplicationMaster::info_history(std::string& out) const {
  const std::vector<ReplicaRow> rows = replica_rows();
  out += fmt::format("connected_slaves:{}\r\n", rows.size());
  const config::ServerSettings& s = exec_.config().settings();
  if (s.min_replicas_to_write != 0 && s.min_replicas_max_lag != 0)
    out += fmt::format("min_slaves_good_slaves:{}\r\n", good_replicas());
  if (s.sync_replicas != 0) exec_.sync_replication().info(out);  // listd's own fields
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ReplicaRow& r = rows[i];
    out += fmt::format("slave{}:ip={},port={},state={},offset={},lag={}\r\n", i, r.ip, r.port,
                       state_name(r.state), r.ack_offset, r.lag_s);
  }
  out += fmt::format("master_failover_state:{}\r\n", exec_.failover().state_name());
  out += fmt::format("master_replid:{}\r\nmaster_replid2:{}\r\n", replid_, replid2_);
  out += fmt::format("master_repl_offset:{}\r\nsecond_repl_offset:{}\r\n", master_repl_offset_,
                     second_replid_offset_);
  out += fmt::format("repl_backlog_active:{}\r\n", backlog_ ? 1 : 0);
  out += fmt::format("repl_backlog_size:{}\r\n", exec_.config().settings().repl_backlog_size);
  out += fmt::format("repl_backlog_first_byte_offset:{}\r\n",
                     backlog_ ? backlog_->first_byte_offset() : 0);
  out += fmt::format("repl_backlog_histlen:{}\r\n", backlog_ ? backlog_->histlen() : 0);
}

void ReplicationMaster::info_stats(std::string& out) const {
  out += fmt::format("sync_full:{}\r\nsync_partial_ok:{}\r\nsync_partial_err:{}\r\n", sync_full_,
                     sync_partial_ok_, sync_partial_err_);
}

}  // namespace listd::server
