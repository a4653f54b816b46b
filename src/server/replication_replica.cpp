#include "listd/server/replication_replica.h"

#include <fmt/format.h>

#include <algorithm>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "listd/persistence/rdb.h"
#include "listd/server/blocking_service.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/function_library.h"
#include "listd/server/master_link.h"
#include "listd/server/persistence.h"
#include "listd/server/rdb_access.h"
#include "listd/server/replication_master.h"
#include "listd/server/scripting.h"

namespace listd::server {
namespace {

constexpr std::size_t kEofMarkLen = 40;  // Redis RDB_EOF_MARK_SIZE

// "-NOAUTH ...", "-NOPERM ..." and "-ERR operation not permitted" to the PING still let the
// handshake go on (the AUTH that follows may fix it), as Redis' syncWithMaster.
bool ping_reply_ok(std::string_view line) {
  return line.empty() || line[0] != '-' || line.starts_with("-NOAUTH") ||
         line.starts_with("-NOPERM") || line.starts_with("-ERR operation not permitted");
}

std::vector<std::string> words_of(std::string_view line) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    const std::size_t j = std::min(line.find(' ', i), line.size());
    if (j > i) words.emplace_back(line.substr(i, j - i));
    i = j + 1;
  }
  return words;
}

std::string_view state_name(ReplicationReplica::State s) {
  switch (s) {
    case ReplicationReplica::State::kConnecting: return "connecting";
    case ReplicationReplica::State::kHandshake: return "handshake";
    case ReplicationReplica::State::kTransfer: return "sync";
    case ReplicationReplica::State::kConnected: return "connected";
    default: return "connect";
  }
}

// The `replicaof` option follows the run-time role, as Redis' reads server.masterhost:
// CONFIG GET shows it and CONFIG REWRITE writes or removes its line (Sentinel relies on that).
// An empty host is REPLICAOF NO ONE.
void record_replicaof_option(config::Config& config, const std::string& host, int port) {
  const std::vector<std::string> directive =
      host.empty() ? std::vector<std::string>{"replicaof", "no", "one"}
                   : std::vector<std::string>{"replicaof", host, std::to_string(port)};
  config.apply_directive(directive);
}

}  // namespace

ReplicationReplica::ReplicationReplica(Executor& exec) : exec_(exec) {
  const config::ServerSettings& s = exec_.config().settings();
  if (s.replicaof_host.empty()) return;
  // `replicaof` at start-up: a replica from the first turn, with no history to PSYNC from.
  host_ = s.replicaof_host;
  port_ = s.replicaof_port;
  state_ = State::kConnect;
  exec_.keyspace().set_keep_expired(true);
  exec_.replication().set_following(true, nullptr);
}

ReplicationReplica::~ReplicationReplica() = default;

bool ReplicationReplica::stale_refused() const {
  return active() && !link_up() && !exec_.config().settings().replica_serve_stale_data;
}

std::int64_t ReplicationReplica::unix_s() const { return exec_.clock().unix_ms() / 1000; }

void ReplicationReplica::set_transport(MasterLinkTransport* transport) {
  transport_ = transport;
  if (transport_ && state_ == State::kConnect) connect_now();
}

// ---- REPLICAOF ----------------------------------------------------------------------------

bool ReplicationReplica::set_master(const std::string& host, int port) {
  if (active() && base::iequals(host, host_) && port == port_) {
    log_.notice(
        "REPLICAOF would result into synchronization with the master we are already connected "
        "with. No operation performed.");
    return false;
  }
  const bool was_master = !active();
  if (transport_) transport_->close();
  drop_master_client();
  if (was_master) {
    // Redis disconnectAllBlockedClients: nothing served here may come from our own data now.
    unblock_clients_for_demotion();
    // replicationCacheMasterUsingMyself: our replid and offset are a history the new master
    // may know (we were its replica before a failover), worth a PSYNC.
    have_history_ = true;
    exec_.keyspace().set_keep_expired(true);
    exec_.replication().set_following(true, nullptr);
  }
  host_ = host;
  port_ = port;
  state_ = State::kConnect;
  record_replicaof_option(exec_.config(), host_, port_);
  if (transport_) connect_now();
  return true;
}

void ReplicationReplica::unset_master() {
  if (!active()) return;
  if (transport_) transport_->close();
  drop_master_client();
  host_.clear();
  port_ = 0;
  state_ = State::kNone;
  have_history_ = false;
  down_since_s_ = 0;
  exec_.replication().set_following(false, nullptr);
  exec_.replication().shift_replid();
  exec_.keyspace().set_keep_expired(exec_.client_pause().active());  // a pause still holds them
  record_replicaof_option(exec_.config(), {}, 0);
}

void ReplicationReplica::unblock_clients_for_demotion() {
  std::vector<Client*> blocked;
  exec_.clients().for_each([&](Client& c) {
    if (c.blocked()) blocked.push_back(&c);
  });
  for (Client* c : blocked) {
    exec_.blocking().time_out(*c, kUnblockedDemotionErr);
    c->close_after_reply = true;
    exec_.clients().queue_flush(*c);
  }
}

// ---- the link -----------------------------------------------------------------------------

void ReplicationReplica::connect_now() {
  log_.notice(fmt::format("Connecting to MASTER {}:{}", host_, port_));
  state_ = State::kConnecting;
  last_io_s_ = unix_s();
  transport_->connect(host_, port_);
}

void ReplicationReplica::on_connected() {
  if (state_ != State::kConnecting) return;
  log_.notice("MASTER <-> REPLICA sync started");
  state_ = State::kHandshake;
  last_io_s_ = unix_s();
  in_.clear();
  awaiting_ = {Awaiting::kPing};
  send_command({"PING"});
}

void ReplicationReplica::on_link_closed(std::string_view why) {
  if (state_ == State::kNone || state_ == State::kConnect) return;
  const bool was_up = state_ == State::kConnected;
  if (was_up)
    log_.notice(fmt::format("Connection with master lost ({}).", why));
  else
    log_.warning(fmt::format("Error condition on socket for SYNC: {}", why));
  drop_master_client();
  state_ = State::kConnect;
  // Lost after it worked: at once, before the backlog moves on (Redis
  // replicationHandleMasterDisconnection). A failed attempt waits for the next cron.
  if (was_up && transport_) connect_now();
}

void ReplicationReplica::drop_link(std::string_view why, bool reconnect_now) {
  log_.warning(why);
  if (transport_) transport_->close();
  drop_master_client();
  state_ = State::kConnect;
  if (reconnect_now && transport_) connect_now();
}

void ReplicationReplica::drop_master_client() {
  ++session_;  // a payload loading now is of a session that ended
  if (state_ == State::kConnected) down_since_s_ = unix_s();
  if (master_) {
    have_history_ = true;  // Redis replicationCacheMaster: a PSYNC can continue from here
    Client* c = master_;
    master_ = nullptr;
    exec_.destroy_client(*c);
  }
  exec_.replication().set_following(active(), nullptr);
  pending_raw_.clear();
  in_.clear();
  deferred_.clear();
  parser_.reset();
  awaiting_.clear();
  if (!loading_) std::string().swap(payload_);  // the loader reads it: freed once it returns
}

void ReplicationReplica::on_bytes(std::string_view bytes) {
  // The payload and the stream, as Redis counts; its few handshake replies too, which Redis does
  // not.
  exec_.stats().net_repl_input_bytes += bytes.size();
  // A script the stream runs went busy, or the payload loads, and the loop read more
  // meanwhile: never processed re-entrantly.
  if (applying_ || loading_) {
    deferred_.append(bytes);
    return;
  }
  in_.append(bytes);
  last_io_s_ = unix_s();
  process();
}

void ReplicationReplica::process() {
  while (true) {
    if (state_ == State::kHandshake) {
      const std::size_t nl = in_.find('\n');
      if (nl == std::string::npos) return;
      std::string line = in_.substr(0, nl);
      in_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!process_line(line)) return;
    } else if (state_ == State::kTransfer) {
      if (!read_payload()) return;
      load_payload();
    } else {
      if (state_ == State::kConnected) apply_stream();
      return;
    }
  }
}

bool ReplicationReplica::process_line(std::string_view line) {
  if (awaiting_.empty()) return true;
  // Keep-alive newlines come while the master prepares the snapshot.
  if (line.empty()) return true;
  const Awaiting what = awaiting_.front();
  awaiting_.erase(awaiting_.begin());
  const bool error = line[0] == '-';
  switch (what) {
    case Awaiting::kPing:
      if (!ping_reply_ok(line)) {
        drop_link(fmt::format("Error reply to PING from master: '{}'", line), false);
        return false;
      }
      log_.notice("Master replied to PING, replication can continue...");
      send_handshake();
      return true;
    case Awaiting::kAuth:
      if (error) {
        drop_link(fmt::format("Unable to AUTH to MASTER: {}", line), false);
        return false;
      }
      return true;
    case Awaiting::kPort:
    case Awaiting::kIp:
    case Awaiting::kCapa:
      if (error)
        log_.notice(fmt::format("(Non critical) Master does not understand REPLCONF {}: {}",
                                what == Awaiting::kPort ? "listening-port"
                                : what == Awaiting::kIp ? "ip-address"
                                                        : "capa",
                                line));
      if (awaiting_.empty()) send_psync();
      return true;
    case Awaiting::kPsync: return on_psync_reply(line);
    case Awaiting::kBulkHeader: return on_bulk_header(line);
  }
  return true;
}

// Sent at once after the PING's reply; the master answers them in order (Redis
// REPL_STATE_SEND_HANDSHAKE).
void ReplicationReplica::send_handshake() {
  const config::ServerSettings& s = exec_.config().settings();
  if (!s.masterauth.empty()) {
    if (s.masteruser.empty())
      send_command({"AUTH", s.masterauth});
    else
      send_command({"AUTH", s.masteruser, s.masterauth});
    awaiting_.push_back(Awaiting::kAuth);
  }
  const int port = s.replica_announce_port ? s.replica_announce_port : s.port;
  send_command({"REPLCONF", "listening-port", std::to_string(port)});
  awaiting_.push_back(Awaiting::kPort);
  if (!s.replica_announce_ip.empty()) {
    send_command({"REPLCONF", "ip-address", s.replica_announce_ip});
    awaiting_.push_back(Awaiting::kIp);
  }
  send_command({"REPLCONF", "capa", "eof", "capa", "psync2"});
  awaiting_.push_back(Awaiting::kCapa);
}

void ReplicationReplica::send_psync() {
  ReplicationMaster& repl = exec_.replication();
  if (have_history_) {
    const std::string offset = std::to_string(repl.master_repl_offset() + 1);
    log_.notice(
        fmt::format("Trying a partial resynchronization (request {}:{}).", repl.replid(), offset));
    // A master handing over its role (FAILOVER) asks the target to become the master.
    if (exec_.failover().in_progress())
      send_command({"PSYNC", repl.replid(), offset, "FAILOVER"});
    else
      send_command({"PSYNC", repl.replid(), offset});
  } else {
    log_.notice("Partial resynchronization not possible (no cached master)");
    send_command({"PSYNC", "?", "-1"});
  }
  awaiting_.push_back(Awaiting::kPsync);
}

bool ReplicationReplica::on_psync_reply(std::string_view line) {
  if (line.starts_with("+FULLRESYNC")) {
    const std::vector<std::string> words = words_of(line);
    if (words.size() != 3 || words[1].size() != 40 ||
        !base::parse_strict_integer(words[2], sync_offset_)) {
      drop_link(fmt::format("Master replied with wrong +FULLRESYNC syntax: {}", line), false);
      return false;
    }
    sync_replid_ = words[1];
    log_.notice(fmt::format("Full resync from master: {}:{}", sync_replid_, sync_offset_));
    awaiting_.push_back(Awaiting::kBulkHeader);
    exec_.failover().psync_answered(true);
    return true;
  }
  if (line.starts_with("+CONTINUE")) {
    const std::string_view rest = base::trim(line.substr(9));
    log_.notice("Successful partial resynchronization with master.");
    ReplicationMaster& repl = exec_.replication();
    if (rest.size() == 40 && rest != repl.replid()) repl.switch_history(rest);
    log_.notice("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
    start_stream(0);
    exec_.failover().psync_answered(true);
    return true;
  }
  if (line.starts_with("-NOMASTERLINK") || line.starts_with("-LOADING")) {
    drop_link(
        fmt::format("Master is currently unable to PSYNC but should be in the future: {}", line),
        false);
  } else {
    drop_link(fmt::format("Unexpected reply to PSYNC from master: {}", line), false);
  }
  // Any other answer ends a failover's switch: back to master (Redis abortFailover).
  exec_.failover().psync_answered(false);
  return false;
}

bool ReplicationReplica::on_bulk_header(std::string_view line) {
  if (line[0] == '-') {
    drop_link(fmt::format("MASTER aborted replication with an error: {}", line), false);
    return false;
  }
  long long size = 0;
  if (line.starts_with("$EOF:") && line.size() == 5 + kEofMarkLen) {
    eof_mark_ = std::string(line.substr(5));
    transfer_size_ = -1;
    log_.notice("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to disk");
  } else if (line[0] == '$' && base::parse_strict_integer(line.substr(1), size) && size >= 0) {
    eof_mark_.clear();
    transfer_size_ = size;
    log_.notice(
        fmt::format("MASTER <-> REPLICA sync: receiving {} bytes from master to disk", size));
  } else {
    drop_link(fmt::format("Bad protocol from MASTER, the first byte is not '$' (we received "
                          "'{}'), are you sure the host and port are right?",
                          line),
              false);
    return false;
  }
  state_ = State::kTransfer;
  payload_.clear();
  transfer_last_io_s_ = unix_s();
  return true;
}

// True once the whole RDB is in payload_ (what follows it stays in in_).
bool ReplicationReplica::read_payload() {
  transfer_last_io_s_ = unix_s();
  if (eof_mark_.empty()) {
    const std::size_t need = static_cast<std::size_t>(transfer_size_) - payload_.size();
    const std::size_t take = std::min(need, in_.size());
    payload_.append(in_, 0, take);
    in_.erase(0, take);
    return payload_.size() == static_cast<std::size_t>(transfer_size_);
  }
  // The diskless form: the master sends nothing after the mark until our first ACK, so the
  // mark is the last 40 bytes received (Redis checks the same way).
  payload_.append(in_);
  in_.clear();
  return payload_.size() >= kEofMarkLen &&
         std::string_view(payload_).substr(payload_.size() - kEofMarkLen) == eof_mark_;
}

// Redis readSyncBulkPayload with repl-diskless-load disabled: the old data was served while the
// payload transferred; while it loads, clients get -LOADING (the start-up loader's machinery).
void ReplicationReplica::load_payload() {
  if (!eof_mark_.empty()) payload_.resize(payload_.size() - kEofMarkLen);
  log_.notice("MASTER <-> REPLICA sync: Flushing old data");
  log_.notice("MASTER <-> REPLICA sync: Loading DB in memory");
  // Into a fresh keyspace, swapped in only once it loaded: a bad payload leaves the old data.
  store::Keyspace& live = exec_.keyspace();
  store::Keyspace fresh(live.database_count());
  persistence::RdbLoadOptions options;
  options.now_ms = exec_.clock().unix_ms();
  options.skip_expired = false;  // a replica keeps them until the master's DEL
  restore_access(options, exec_.config().settings(), options.now_ms);
  const std::uint64_t session = session_;
  loading_ = true;
  const persistence::RdbLoadResult loaded = exec_.persistence().loader().load_sync_payload(
      payload_, fresh, std::move(options), [this] { send_loading_newline(); });
  loading_ = false;
  // Freed, not emptied: assigning an empty string keeps the buffer (libstdc++ copies a short
  // string into it), and this one is the size of the whole data set.
  std::string().swap(payload_);
  // The clients served meanwhile may have ended this session (the link lost, REPLICAOF).
  if (session != session_) {
    log_.warning("MASTER <-> REPLICA sync: the link went while loading, the payload is dropped");
    return;
  }
  if (!loaded.ok) {
    drop_link(fmt::format("Failed trying to load the MASTER synchronization DB: {}", loaded.error),
              false);
    return;
  }
  install_payload(loaded, fresh);
}

// Redis replicationSendNewlineToMaster: once per second of the clock, the first at once, so a
// master's repl-timeout does not drop a replica that loads slowly.
void ReplicationReplica::send_loading_newline() {
  const std::int64_t now = unix_s();
  if (!transport_ || now == newline_sent_s_) return;
  newline_sent_s_ = now;
  transport_->send("\n");
}

void ReplicationReplica::install_payload(const persistence::RdbLoadResult& loaded,
                                         store::Keyspace& fresh) {
  // The master's FUNCTION libraries replace ours, as 7.0's readSyncBulkPayload swaps in the
  // library context it loaded (all or nothing: a failed restore keeps ours and the old data).
  if (std::string error =
          exec_.scripting().functions().restore(loaded.functions, RestorePolicy::kFlush);
      !error.empty()) {
    drop_link(fmt::format("Failed loading the MASTER's functions: {}", error), false);
    return;
  }
  store::Keyspace& live = exec_.keyspace();
  for (int i = 0; i < live.database_count(); ++i) {
    exec_.transactions().touch_existing(i, &live.db(i), &fresh.db(i));
    live.db(i).swap_contents(fresh.db(i));
  }
  exec_.invalidate_all_tracked();  // Redis swapMainDbWithTempDb
  exec_.replication().adopt_history(sync_replid_, sync_offset_);
  start_stream(std::max(loaded.repl_stream_db, 0));
  if (!eof_mark_.empty()) send_ack();  // the master streams only after it (EOF form)
  log_.notice("MASTER <-> REPLICA sync: Finished with success");
  // Turned on while it loaded: that first rewrite already describes the new data.
  if (exec_.persistence().apply_appendonly_after_load()) return;
  if (exec_.config().settings().appendonly) {
    // Redis restartAOFAfterSYNC: the AOF must describe the new data set.
    if (auto r = exec_.persistence().bgrewriteaof(); !r)
      log_.warning(fmt::format("Can't rewrite the AOF after the SYNC: {}", r.error()));
  }
}

void ReplicationReplica::start_stream(int db) {
  const std::string addr = fmt::format("{}:{}", host_, port_);
  Client& c = exec_.create_client(this, addr, "", -1);
  c.master = true;
  c.authenticated = true;
  c.db = db;
  master_ = &c;
  state_ = State::kConnected;
  have_history_ = true;
  parser_.reset();
  pending_raw_.clear();
  last_io_s_ = unix_s();
  exec_.replication().set_following(true, master_);
}

// ---- the stream ---------------------------------------------------------------------------

void ReplicationReplica::apply_stream() {
  // Not while a script is busy (Redis stops reading its master then): cron picks it up.
  if (exec_.busy_script() || applying_) return;
  applying_ = true;
  std::size_t off = 0;
  while (state_ == State::kConnected && off < in_.size()) {
    const std::string_view rest = std::string_view(in_).substr(off);
    const protocol::ParseStatus st = parser_.parse(rest);
    if (st == protocol::ParseStatus::kIncomplete) break;
    if (st == protocol::ParseStatus::kError) {
      applying_ = false;
      drop_link(fmt::format("Protocol error from MASTER: {}", parser_.error_message()), false);
      return;
    }
    const std::size_t n = parser_.consumed();
    apply_command(parser_.argv(), rest.substr(0, n));
    off += n;
  }
  applying_ = false;
  if (state_ != State::kConnected) return;  // the command dropped the link (nothing to keep)
  in_.erase(0, off);
  if (!deferred_.empty()) {
    in_ += deferred_;
    deferred_.clear();
    apply_stream();
  }
}

void ReplicationReplica::apply_command(std::span<const std::string_view> argv,
                                       std::string_view raw) {
  if (argv.size() >= 2 && base::iequals(argv[0], "replconf") && base::iequals(argv[1], "getack")) {
    send_ack();  // the offset before this GETACK, as Redis
  } else if (!argv.empty()) {
    exec_.execute(*master_, argv);
    if (!master_) return;
    if (!master_->out.empty() && master_->out[0] == '-')
      log_.warning(
          fmt::format("== CRITICAL == This replica is sending an error to its master: "
                      "'{}' after processing the command '{}'",
                      base::trim(master_->out.substr(1)), argv[0]));
    master_->out.clear();
  }
  // The offset moves by whole commands, and a transaction's at its EXEC (Redis reploff).
  pending_raw_.append(raw);
  if (!master_->in_multi) {
    exec_.replication().feed_upstream(pending_raw_);
    pending_raw_.clear();
  }
}

void ReplicationReplica::send_ack() {
  send_command({"REPLCONF", "ACK", std::to_string(exec_.replication().master_repl_offset())});
}

void ReplicationReplica::send_command(std::initializer_list<std::string_view> argv) {
  if (!transport_) return;
  std::string out = fmt::format("*{}\r\n", argv.size());
  for (std::string_view a : argv)
    fmt::format_to(std::back_inserter(out), "${}\r\n{}\r\n", a.size(), a);
  transport_->send(out);
}

void ReplicationReplica::cron() {
  if (!active() || !transport_) return;
  const std::int64_t now = unix_s();
  const long long timeout = exec_.config().settings().repl_timeout;
  switch (state_) {
    case State::kConnect: connect_now(); break;
    case State::kConnecting:
    case State::kHandshake:
      if (now - last_io_s_ > timeout) drop_link("Timeout connecting to the MASTER...", false);
      break;
    case State::kTransfer:
      if (now - transfer_last_io_s_ > timeout)
        drop_link(
            "Timeout receiving bulk data from MASTER... If the problem persists try to set the "
            "'repl-timeout' parameter in redis.conf to a larger value.",
            false);
      break;
    case State::kConnected:
      if (now - last_io_s_ > timeout) {
        drop_link("MASTER timeout: no data nor PING received...", true);
        break;
      }
      if (!in_.empty()) apply_stream();  // left while a script was busy
      if (state_ == State::kConnected) send_ack();
      break;
    default: break;
  }
}

// ---- the master client's transport ----------------------------------------------------------

void ReplicationReplica::flush() {
  if (!master_) return;
  master_->out.clear();  // a replica never answers its master
  // CLIENT KILL (TYPE master, ID): the link goes; the next cron reconnects and continues.
  if (master_->close_after_reply) drop_link("Connection with master closed by CLIENT KILL", false);
}

void ReplicationReplica::close() {
  // CLIENT KILL TYPE master, an output limit: the link goes, a PSYNC continues it.
  if (master_) drop_link("Connection with master closed", false);
}

// ---- INFO / ROLE --------------------------------------------------------------------------

void ReplicationReplica::info(std::string& out) const {
  const config::ServerSettings& s = exec_.config().settings();
  const std::int64_t now = unix_s();
  const long long applied = exec_.replication().master_repl_offset();
  long long repl_offset = 1, read_offset = 1;
  if (master_) {
    repl_offset = applied;
    read_offset = applied + static_cast<long long>(pending_raw_.size() + in_.size());
  } else if (have_history_) {
    repl_offset = read_offset = applied;
  }
  out += "role:slave\r\n";
  out += fmt::format("master_host:{}\r\nmaster_port:{}\r\n", host_, port_);
  out += fmt::format("master_link_status:{}\r\n", link_up() ? "up" : "down");
  out += fmt::format("master_last_io_seconds_ago:{}\r\n", master_ ? now - last_io_s_ : -1);
  out += fmt::format("master_sync_in_progress:{}\r\n", state_ == State::kTransfer ? 1 : 0);
  out += fmt::format("slave_read_repl_offset:{}\r\nslave_repl_offset:{}\r\n", read_offset,
                     repl_offset);
  if (state_ == State::kTransfer) {
    const long long read = static_cast<long long>(payload_.size());
    const double perc = transfer_size_ > 0 ? static_cast<double>(read) / transfer_size_ * 100 : 0;
    out += fmt::format("master_sync_total_bytes:{}\r\n", transfer_size_);
    out += fmt::format("master_sync_read_bytes:{}\r\n", read);
    out += fmt::format("master_sync_left_bytes:{}\r\n", transfer_size_ - read);
    out += fmt::format("master_sync_perc:{:.2f}\r\n", perc);
    out += fmt::format("master_sync_last_io_seconds_ago:{}\r\n", now - transfer_last_io_s_);
  }
  if (!link_up())
    out += fmt::format("master_link_down_since_seconds:{}\r\n",
                       down_since_s_ ? now - down_since_s_ : -1);
  out += fmt::format("slave_priority:{}\r\nslave_read_only:{}\r\nreplica_announced:{}\r\n",
                     s.replica_priority, s.replica_read_only ? 1 : 0, s.replica_announced ? 1 : 0);
}

void ReplicationReplica::role(protocol::ReplyWriter& reply) const {
  reply.array_header(5);
  reply.bulk("slave");
  reply.bulk(host_);
  reply.integer(port_);
  reply.bulk(state_name(state_));
  reply.integer(master_ ? exec_.replication().master_repl_offset() : -1);
}

}  // namespace listd::server
