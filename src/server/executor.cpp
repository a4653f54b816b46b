#include "listd/server/executor.h"

#include <algorithm>
#include <array>
#include <chrono>

#include "listd/base/scope_exit.h"
#include "listd/server/acl.h"
#include "listd/server/blocking_service.h"
#include "listd/server/command_context.h"
#include "listd/server/command_reference.h"
#include "listd/server/errors.h"
#include "listd/server/event_loop_yield.h"
#include "listd/server/key_access.h"
#include "listd/server/key_finder.h"
#include "listd/server/loading_progress.h"
#include "listd/server/persistence.h"
#include "listd/server/replication_master.h"
#include "listd/server/replication_replica.h"
#include "listd/server/scripting.h"
#include "listd/server/text.h"
#include "listd/store/encoding_limits.h"

namespace listd::server {
namespace {

// sync-replicas holds a reply that may show data: of a command that reads or writes keys and
// of a script; PING, INFO, CLIENT, CONFIG, PUBLISH ... (neither flag) show none. EXEC's is
// decided by what it queued (Client::queued_shows_data): Sentinel's MULTI ... SLAVEOF NO ONE
// ... EXEC on a promoted replica must be answered at once.
bool reply_may_show_data(const CommandSpec& spec) {
  const CommandSpec& top = spec.parent ? *spec.parent : spec;
  return (spec.flags & (kWrite | kReadonly)) || top.name.starts_with("eval") ||
         top.name.starts_with("fcall");
}

// Active expiry: keys examined per tick and how often to tick while keys have deadlines.
constexpr std::size_t kExpireBudgetPerTick = 1000;
constexpr std::uint64_t kExpireTickMs = 100;

/// The store's small-form limits and list compress depth from the config (process-wide:
/// store/encoding_limits.h).
void apply_encoding_limits(const config::ServerSettings& s) {
  store::EncodingLimits limits;
  limits.hash_max_listpack_entries = s.hash_max_listpack_entries;
  limits.hash_max_listpack_value = s.hash_max_listpack_value;
  limits.zset_max_listpack_entries = s.zset_max_listpack_entries;
  limits.zset_max_listpack_value = s.zset_max_listpack_value;
  limits.set_max_intset_entries = s.set_max_intset_entries;
  limits.list_compress_depth = static_cast<std::size_t>(s.list_compress_depth);
  store::set_encoding_limits(limits);
}

}  // namespace

Executor::Executor(config::Config& config, Clock& clock)
    : config_(config),
      clock_(clock),
      keyspace_(config.settings().databases),
      table_(CommandTable::with_all_commands()),
      blocking_(*this, clock),
      transactions_(*this),
      rng_(std::random_device{}()) {
  stats_.start_ms = clock_.monotonic_ms();
  stats_.start_unix_ms = clock_.unix_ms();
  stats_.lastsave_unix_s = stats_.start_unix_ms / 1000;
  keyspace_.set_expired_hook([this](store::Database& db, std::string_view key) {
    ++stats_.expired_keys;
    transactions_.touch_key(db.index(), key);
    // Redis deletes an expired key outside any client's write: no writer (NOLOOP, BCAST).
    if (tracking_.has_state()) tracking_.invalidate(key, nullptr, tracking_context());
    effects_.emit(db.index(), {"DEL", key});  // an expired key is logged as its DEL
    // An expired stream wakes its XREADGROUP waiters (-UNBLOCKED), as Redis' dbGenericDelete.
    if (const store::Entry* e = db.dict().find(key); e && e->value.is(store::ValueType::kStream))
      blocking_.signal_ready(db.index(), key);
    notify(config::kNotifyExpired, "expired", key, db.index());
  });
  command_stats_.resize(table_.by_slot().size());
  latency_histograms_.resize(table_.by_slot().size());
  clients_.set_output_guard(&output_buffer_guard_);
  persistence_ = std::make_unique<Persistence>(*this);
  effects_.subscribe(*persistence_);
  replication_ = std::make_unique<ReplicationMaster>(*this);
  effects_.subscribe(*replication_);
  persistence_->set_rdb_done_hook([this](bool ok) { replication_->rdb_done(ok); });
  replica_side_ = std::make_unique<ReplicationReplica>(*this);
  scripting_ = std::make_unique<Scripting>(*this);
  acl_ = std::make_unique<Acl>(table_);
  acl_->set_pubsub_default(config_.settings().acl_pubsub_default_all);
  acl_->set_default_password(requirepass());
  queue_stats_.set_max_keys(static_cast<std::size_t>(config_.settings().queue_stats_max_keys));
  apply_encoding_limits(config_.settings());
  config_.on_change([this](std::string_view name) {
    // Six copies on any change: cheaper to keep right than a second list of the option names.
    apply_encoding_limits(config_.settings());
    if (name == "requirepass") acl_->set_default_password(requirepass());
    if (name == "queue-stats-max-keys")
      queue_stats_.set_max_keys(static_cast<std::size_t>(config_.settings().queue_stats_max_keys));
    if (name == "acl-pubsub-default")
      acl_->set_pubsub_default(config_.settings().acl_pubsub_default_all);
  });
}

Executor::~Executor() {
  // Waiters hold timer nodes that point into the blocking service's wheel: unblock first.
  clients_.for_each([this](Client& c) { blocking_.end_wait(c); });
}

const std::string& Executor::requirepass() const { return config_.settings().requirepass; }

Client& Executor::create_client(ClientTransport* transport, std::string addr, std::string laddr,
                                int fd) {
  Client& c = clients_.create();
  c.transport = transport;
  c.addr = std::move(addr);
  c.laddr = std::move(laddr);
  c.fd = fd;
  c.created_ms = c.last_interaction_ms = clock_.monotonic_ms();
  c.user = &acl_->default_user();
  c.authenticated = c.user->nopass() && c.user->enabled();  // Redis createClient
  ++stats_.total_connections;
  return c;
}

void Executor::destroy_client(Client& c) {
  blocking_.end_wait(c);
  client_pause_.forget(c);
  slowlog_.drop_parked(c.id);  // a blocked command whose client left is never filed
  transactions_.unwatch_all(c);
  pubsub_.leave_all(c);
  tracking_.disable(c);
  replication_->forget(c);
  sync_replication_.forget(c);
  clients_.destroy(c);
}

std::string Executor::rejection(const Client& c, std::span<const std::string_view> argv,
                                const CommandSpec*& spec) const {
  if (!spec) {
    // Redis: "unknown command '<name>', with args beginning with: 'a' 'b' " (args capped at
    // 128 bytes; printed with %s, so each stops at a NUL byte).
    std::string args;
    for (std::size_t i = 1; i < argv.size() && args.size() < 128; ++i) {
      const std::size_t room = 128 - args.size();
      args += '\'';
      args.append(until_nul(argv[i]).substr(0, room));
      args += "' ";
    }
    return "ERR unknown command '" + std::string(until_nul(argv[0]).substr(0, 128)) +
           "', with args beginning with: " + args;
  }
  if (!spec->subcommands.empty() && argv.size() >= 2) {
    const CommandSpec* sub = spec->find_subcommand(argv[1]);
    if (!sub) {
      std::string upper(spec->name);
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      return "ERR unknown subcommand '" + std::string(until_nul(argv[1]).substr(0, 128)) +
             "'. Try " + upper + " HELP.";
    }
    spec = sub;
  }
  if (!spec->arity_allows(argv.size())) return arity_error(spec->full_name);
  if (c.master) return {};  // our master's stream is obeyed (Redis mustObeyClient)
  if (!c.authenticated && !(spec->flags & kNoAuth)) return std::string(kNoAuthErr);
  // One load and test for a user that may run anything (`default` unless restricted).
  if (c.user && !c.user->unrestricted())
    if (const AclDenial denial = acl_refusal(c, *spec, argv); denial != AclDenial::kNone)
      return acl_denial_error(denial, *spec);
  if (pre_command_oom_ && denied_on_oom(c, *spec, argv)) return std::string(kOomErr);
  if (persistence_->refusing_writes() && (spec->flags & (kWrite | kDeniedOnDiskError)))
    return std::string(kMisconfRdbErr);
  // Redis' is_write_command: a script's shebang flags, EXEC's queued commands count.
  const auto is_write = [&] {
    return (scripting_->command_flags(*spec, argv) & kWrite) ||
           ((spec->flags & kExecCommand) && (c.queued_flags & kWrite));
  };
  const config::ServerSettings& settings = config_.settings();
  if ((settings.min_replicas_to_write != 0 || settings.sync_replicas != 0) &&
      !replication_->enough_good_replicas() && is_write())
    return std::string(kNoReplicasErr);
  // A master (the common case) pays one test for both replica checks below.
  const bool replica = replica_side_->active();
  if (replica && settings.replica_read_only && is_write()) return std::string(kReadOnlyReplicaErr);
  // RESP2 subscribed mode: only the commands flagged for it (RESP3 may mix in anything).
  if (c.resp == protocol::RespVersion::kResp2 && c.pubsub.subscribed() &&
      !(spec->flags & kAllowedWhenSubscribed))
    return subscribed_mode_error(spec->full_name);
  // A script's shebang flags decide (allow-stale); EXEC's queued commands were checked when
  // queued.
  if (replica && replica_side_->stale_refused() &&
      !(scripting_->command_flags(*spec, argv) & kStale))
    return std::string(kMasterDownErr);
  // Loading at start-up: only the kLoading commands (the loader's own replay is obeyed).
  if (persistence_->loading() && !replaying_ && !(spec->flags & kLoading))
    return std::string(kLoadingErr);
  // Last, as in Redis processCommand: a busy script leaves only the allow-busy commands.
  if (scripting_->busy() && !(spec->flags & kAllowBusy))
    return std::string(scripting_->busy_error());
  return {};
}

bool Executor::denied_on_oom(const Client& c, const CommandSpec& spec,
                             std::span<const std::string_view> argv) const {
  if (spec.flags & kExecCommand) return (c.queued_flags & kDenyOom) != 0;
  if (c.in_multi && spec.name != "discard" && spec.name != "quit" && spec.name != "reset")
    return true;
  return (scripting_->command_flags(spec, argv) & kDenyOom) != 0;
}

void Executor::execute(Client& c, std::span<const std::string_view> argv) {
  if (argv.empty()) return;
  if (!in_batch_) now_ = clock().read();
  Client* const outer_executing = executing_client_;  // a busy script's hook nests requests
  executing_client_ = &c;
  base::ScopeExit restore_executing([&] { executing_client_ = outer_executing; });
  // Redis processCommand: clients past maxmemory-clients go first; one that evicted itself runs
  // nothing (the transport closes it at the end of the turn).
  if (client_evictor_.before_command(c)) return;
  // Redis processCommand: evict first; -OOM for denyoom commands only if that could not help.
  // Never from inside a busy script (its DELs would land in the middle of its effects).
  const std::size_t maxmemory = config_.settings().maxmemory;
  // A replica neither evicts nor refuses (7.0's replica-ignore-maxmemory yes): its master's
  // DELs keep it in step, and its own evictions would make it diverge. Paused, neither (Redis
  // performEvictions: the dataset stays as it is).
  if (maxmemory == 0 || replica_side_->active() || client_pause_.active())
    pre_command_oom_ = false;
  else if (scripting_->busy())
    pre_command_oom_ = memory_.over_limit(maxmemory, persistence_->pending_bytes().capacity());
  else
    pre_command_oom_ = evictor_.perform() == EvictResult::kFail;
  // Redis processCommand: the tracking table is brought under tracking-table-max-keys.
  if (tracking_.tracking_clients() > 0)
    tracking_.limit_keys(config_.settings().tracking_table_max_keys, tracking_context(), rng_);
  c.last_interaction_ms = now_.mono_ms();
  // Pipelines repeat one command: compare with the last one found before hashing the name.
  const CommandSpec* spec =
      last_found_ && base::iequals(argv[0], last_found_->name) ? last_found_ : table_.find(argv[0]);
  if (spec) last_found_ = spec;
  bool shows_data = true;  // a refusal or QUEUED shows none (sync-replicas need not hold it)
  if (std::string error = rejection(c, argv, spec); !error.empty()) {
    shows_data = false;
    ++stats_.total_error_replies;
    error_stats_.count(error);
    if (spec) ++command_stats_[spec->slot].rejected;
    if (spec && (spec->flags & kExecCommand)) {
      // `EXEC x` is an arity error wrapped as EXECABORT, even outside MULTI.
      transactions_.abort_exec(c, error);
    } else {
      c.reply().error(error);
      Transaction::flag(c);  // inside MULTI, EXEC will abort
    }
  } else if (client_pause_.active() && postpone_if_paused(c, *spec, argv)) {
    return;  // CLIENT PAUSE: runs again, from its checks, when the pause ends
  } else if (c.in_multi && !(spec->flags & kNotQueued)) {
    transactions_.queue(c, argv);
    c.queued_flags |= scripting_->command_flags(*spec, argv);
    c.queued_shows_data = c.queued_shows_data || reply_may_show_data(*spec);
    c.reply().simple("QUEUED");
    shows_data = false;
  } else {
    shows_data = (spec->flags & kExecCommand) ? c.queued_shows_data : reply_may_show_data(*spec);
    if (clients_.has_monitors()) feed_monitors(c, argv);
    // One execution unit: the command (EXEC with its queued commands), then each served waiter.
    effects_.begin_unit(!(spec->flags & kTouchesArbitraryKeys));
    dispatch(c, *spec, argv, false);
    tracking_.send_pending(&c);  // after the reply (Redis afterCommand)
    effects_.end_unit();
    replication_->note_command(c);  // what this client's next WAIT waits for (Redis c->woff)
    // Not for a command run from a busy script's hook: waiters see the script's final state.
    if (!scripting_->running()) blocking_.drain_ready_keys();
  }
  // CLIENT CACHING covers the next command, or the next transaction (Redis resetClient).
  if (c.tracking.caching && !c.in_multi &&
      !(spec && (spec->parent ? spec->parent->name : spec->name) == "client"))
    c.tracking.caching = false;
  if (!c.out.empty()) clients_.queue_flush(c, shows_data);
}

void Executor::dispatch(Client& c, const CommandSpec& spec, std::span<const std::string_view> argv,
                        bool in_exec) {
  const std::size_t out_before = c.out.size();
  const ReplyMode mode_before = c.reply_mode;
  const std::uint64_t t0_us = now_.mono_us;
  const std::size_t redacted_from = redacted_args_.size();  // EXEC nests dispatches

  c.last_command = spec.full_name;  // CLIENT LIST shows the running (or blocking) command
  CommandContext ctx(*this, c, spec, argv, in_exec);
  const Client* outer_client = running_client_;  // EXEC runs its queue through here too
  running_client_ = &c;
  const CallerCommand outer_caller = caller_command_;
  if (&c != &scripting_->script_client()) caller_command_ = {&c, &spec, argv};
  spec.handler(ctx);
  if ((spec.flags & kReadonly) && tracking_.tracking_clients() > 0) track_read_keys(c, spec, argv);
  caller_command_ = outer_caller;
  running_client_ = outer_client;

  const ClockReading end = clock().read();
  if (!time_frozen_) now_ = end;  // this command's end, the next one's start within a batch
  CommandStats& cs = command_stats_[spec.slot];
  ++cs.calls;
  const std::uint64_t duration_us = end.mono_us > t0_us ? end.mono_us - t0_us : 0;
  cs.usec += duration_us;
  // The slow log uses the clock read above. Off, it costs this test; on, a fast command that
  // leaves the log within its length costs three more (Redis trims on every command, so a
  // lowered slowlog-max-len applies at the end of the CONFIG SET that lowered it).
  const config::ServerSettings& settings = config_.settings();
  if (settings.slowlog_log_slower_than >= 0 && !replaying_ &&
      (duration_us >= static_cast<std::uint64_t>(settings.slowlog_log_slower_than) || c.blocked() ||
       slowlog_.size() > settings.slowlog_max_len))
    log_slow(c, spec, argv, redacted_from, duration_us, end);
  // The latency monitor and the histograms: one test each when off (Redis call()).
  if (settings.latency_monitor_threshold && !replaying_)
    latency_monitor_.add_if_needed((spec.flags & kFast) ? "fast-command" : "command",
                                   settings.latency_monitor_threshold, duration_us / 1000,
                                   end.unix_ms / 1000);
  if (settings.latency_tracking && !replaying_ && !c.blocked())
    latency_histograms_[spec.slot].record(duration_us * 1000);
  if (redacted_args_.size() > redacted_from) redacted_args_.resize(redacted_from);
  ++stats_.total_commands;
  if (c.out.size() > out_before && c.out[out_before] == '-') {
    ++cs.failed;
    if (!error_counted_) {
      ++stats_.total_error_replies;
      error_stats_.count(std::string_view(c.out).substr(out_before + 1));
    }
  }
  error_counted_ = false;
  if (ctx.dirty() > 0) {
    // The default effect is the argv; kOwnEffect handlers emitted theirs (propagate_as).
    if (!(spec.flags & kOwnEffect)) effects_.emit(ctx.db().index(), argv);
    stats_.dirty += ctx.dirty();
    if (transactions_.has_watched_keys() || tracking_.has_state()) {
      // The writer is `c` (running_client_ is already restored): BCAST's NOLOOP needs it.
      const auto touch = [&](std::string_view key) {
        transactions_.touch_key(ctx.db().index(), key);
        if (tracking_.has_state()) tracking_.invalidate(key, &c, tracking_context());
      };
      if (!ctx.changed_keys().empty()) {
        for (const std::string& key : ctx.changed_keys()) touch(key);
      } else {
        // The keys the key finder says the command may write (its RO keys, such as
        // SINTERSTORE's sources, did not change: Redis signals only the destination).
        for (const KeyReference& k : find_command_keys(spec, argv))
          if (!(k.flags & kKeySpecRo)) touch(argv[static_cast<std::size_t>(k.pos)]);
      }
    }
  }
  // CLIENT REPLY OFF|SKIP: the command ran, its reply is dropped.
  if ((mode_before == ReplyMode::kOff && c.reply_mode == ReplyMode::kOff) ||
      (mode_before == ReplyMode::kSkip && c.reply_mode == ReplyMode::kSkip)) {
    drop_reply_keep_pushes(c, out_before, in_exec);  // pub/sub frames are never silenced
    if (mode_before == ReplyMode::kSkip) c.reply_mode = ReplyMode::kOn;
  }
}

void Executor::run_queued(Client& c, std::span<const std::string_view> argv) {
  const CommandSpec* spec = table_.find(argv[0]);
  if (spec && !spec->subcommands.empty()) spec = spec->find_subcommand(argv[1]);
  // The command was validated when queued; the table does not change at run time, but the
  // user's ACL rules may have (Redis execCommand checks them again).
  if (c.user && !c.user->unrestricted())
    if (const AclDenial denial = acl_refusal(c, *spec, argv); denial != AclDenial::kNone) {
      c.reply().error(acl_exec_denial_error(denial));
      return;
    }
  if (clients_.has_monitors()) feed_monitors(c, argv);
  dispatch(c, *spec, argv, true);
}

bool Executor::busy_script() const noexcept { return scripting_->busy(); }

void Executor::run_events_while_busy() {
  if (!yield_) return;
  // The commands run meanwhile read the clock and set these; the script's next redis.call
  // must find them as it left them (frozen time, its own batch, itself running).
  const ClockReading now = now_;
  const bool in_batch = in_batch_;
  const Client* running = running_client_;
  const bool counted = error_counted_;
  in_batch_ = false;
  yield_->run_events_while_busy();
  now_ = now;
  in_batch_ = in_batch;
  running_client_ = running;
  error_counted_ = counted;
}

void Executor::tick() {
  if (scripting_->running()) return;  // no timeouts, expiry or serving inside a script
  blocking_.fire_timeouts(clock_.monotonic_ms());
  replication_->fire_wait_timeouts(clock_.monotonic_ms());
  sync_replication_.expire(clock_.monotonic_ms());
  if (client_pause_.active() && clock_.monotonic_ms() >= client_pause_.end_ms())
    resume_postponed(client_pause_.expire(clock_.monotonic_ms()));
  if (!client_pause_.active()) {  // paused: no key expires or is evicted
    active_expire_step();
    if (evictor_.background_pending() && !replica_side_->active()) evictor_.background_step();
  }
  blocking_.drain_ready_keys();
  tracking_.broadcast();  // what active expiry deleted, before the turn's replies
}

void Executor::track_read_keys(const Client& c, const CommandSpec& spec,
                               std::span<const std::string_view> argv) {
  // Redis call(): not for EVAL_RO and FCALL_RO themselves, only for the commands they run.
  if (spec.name == "eval_ro" || spec.name == "evalsha_ro" || spec.name == "fcall_ro") return;
  const bool script = &c == &scripting_->script_client();
  const CallerCommand caller = script ? caller_command_ : CallerCommand{&c, &spec, argv};
  if (!caller.client || !Tracking::wants_keys(*caller.client)) return;
  if (caller.spec->flags & kPubsub) return;  // shard channels are keys that are not cached
  for (const KeyReference& k : find_command_keys(*caller.spec, caller.argv))
    tracking_.remember(*caller.client, caller.argv[static_cast<std::size_t>(k.pos)]);
}

std::vector<Client*> Executor::cron(std::uint64_t now_ms) {
  // Never from inside a script: a BGSAVE forked now would snapshot half of it.
  if (scripting_->running()) return {};
  persistence_->cron();  // BGSAVE / rewrite children, save points, automatic AOF rewrite
  sync_replication_.expire(now_ms);  // also lets held output go once sync-replicas is 0
  rehash_step();
  std::vector<Client*> to_close = replication_->cron();        // replicas past repl-timeout
  if (failover_.active()) failover_.update(clock_.unix_ms());  // Redis replicationCron's first step
  replica_side_->cron();  // our own master: connect, ACK, repl-timeout
  queue_stats_.forget_idle(now_ms / 1000);
  migrate_sockets_.close_idle(clock_.unix_ms() / 1000);
  instantaneous_.sample(now_ms, instant_readings());
  // Redis serverCron: a lowered tracking-table-max-keys applies even when nothing runs.
  if (tracking_.tracking_clients() > 0)
    tracking_.limit_keys(config_.settings().tracking_table_max_keys, tracking_context(), rng_);
  output_buffer_guard_.begin_cron();
  clients_.for_each([&](Client& c) {
    if (output_buffer_guard_.check_in_cron(c) &&
        std::find(to_close.begin(), to_close.end(), &c) == to_close.end())
      to_close.push_back(&c);
  });
  client_evictor_.cron_check(to_close);
  const long long idle_limit_s = config_.settings().timeout;
  if (idle_limit_s <= 0) return to_close;
  for (Client* c : clients_.idle_clients(now_ms, static_cast<std::uint64_t>(idle_limit_s) * 1000))
    if (!c->close_asap) to_close.push_back(c);
  return to_close;
}

bool Executor::latency_monitoring() const noexcept {
  return config_.settings().latency_monitor_threshold != 0;
}

void Executor::add_latency_sample(std::string_view event, std::uint64_t ms) {
  latency_monitor_.add_if_needed(event, config_.settings().latency_monitor_threshold, ms,
                                 clock_.unix_ms() / 1000);
}

// Redis' databasesCron: 1 ms of keyspace rehash per tick, on the first db with work to do, and
// none while a fork child shares our pages (BGSAVE's copy-on-write).
void Executor::rehash_step() {
  if (!config_.settings().activerehashing || persistence_->child_running()) {
    // No relinking now, but a finished rehash's old array still goes back, a step a tick.
    for (int i = 0; i < keyspace_.database_count(); ++i)
      if (keyspace_.db(i).release_old_table()) return;
    return;
  }
  for (int i = 0; i < keyspace_.database_count(); ++i) {
    if (keyspace_.db(rehash_db_cursor_).incrementally_rehash(1000)) return;
    rehash_db_cursor_ = (rehash_db_cursor_ + 1) % keyspace_.database_count();
  }
}

// Active expiry: a bounded number of deadline-ordered deletions, round robin over dbs.
void Executor::active_expire_step() {
  // Two clock reads: Redis activeExpireCycle's "expire-cycle" latency event (monitor on) and
  // INFO's expire_cycle_* figures (a primary only: Redis runs no cycle on a replica).
  const long long threshold = config_.settings().latency_monitor_threshold;
  const bool primary = !replica_side_->active();
  const bool timed = threshold || primary;
  const std::uint64_t start_us = timed ? clock_.read().mono_us : 0;
  const std::int64_t now_unix = clock_.unix_ms();
  std::size_t budget = kExpireBudgetPerTick;
  std::size_t sampled = 0, stale = 0;
  for (int i = 0; i < keyspace_.database_count() && budget > 0; ++i) {
    store::Database& db = keyspace_.db(expire_db_cursor_);
    if (db.expires_count() > 0) {
      if (primary) sample_stale(db, now_unix, sampled, stale);
      const std::size_t before = budget;
      budget -= std::min(budget, db.expire_cycle(now_unix, budget));
      if (budget == before || db.next_expire_hint() > now_unix || db.next_expire_hint() < 0)
        expire_db_cursor_ = (expire_db_cursor_ + 1) % keyspace_.database_count();
    } else {
      expire_db_cursor_ = (expire_db_cursor_ + 1) % keyspace_.database_count();
    }
  }
  if (!timed) return;
  const ClockReading end = clock_.read();
  if (primary)
    stats_.expire_cycle.record(sampled, stale, budget == 0 && expiry_due(now_unix),
                               end.mono_us - start_us);
  if (threshold)
    latency_monitor_.add_if_needed("expire-cycle", threshold, (end.mono_us - start_us) / 1000,
                                   end.unix_ms / 1000);
}

// Redis' activeExpireCycle samples ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP keys with a TTL at random
// and counts the ones past their deadline: INFO's stale share, taken before this step deletes.
void Executor::sample_stale(const store::Database& db, std::int64_t now_unix, std::size_t& sampled,
                            std::size_t& stale) {
  constexpr std::size_t kKeysPerSample = 20;
  std::array<store::Entry*, kKeysPerSample> picked{};
  const std::size_t n = db.sample_volatile(
      expire_rng_, std::span(picked).first(std::min(kKeysPerSample, db.expires_count())));
  sampled += n;
  for (std::size_t j = 0; j < n; ++j)
    if (store::Database::expired(*picked[j], now_unix)) ++stale;
}

// A deadline at or before `now_unix` is still in some db's index (the next tick runs at once).
bool Executor::expiry_due(std::int64_t now_unix) const noexcept {
  for (int i = 0; i < keyspace_.database_count(); ++i) {
    const std::int64_t hint = keyspace_.db(i).next_expire_hint();
    if (hint >= 0 && hint <= now_unix) return true;
  }
  return false;
}

std::optional<std::uint64_t> Executor::next_wakeup_ms() const {
  std::optional<std::uint64_t> next = blocking_.next_deadline();
  if (const auto wait = replication_->next_wait_deadline(); wait && (!next || *wait < *next))
    next = wait;
  if (const auto held = sync_replication_.next_deadline(); held && (!next || *held < *next))
    next = held;
  // Paused, the end of the pause is the only other wakeup: nothing expires or is evicted.
  if (client_pause_.active())
    return next && *next < client_pause_.end_ms() ? *next : client_pause_.end_ms();
  const std::int64_t now_unix = clock_.unix_ms();
  const std::uint64_t now = clock_.monotonic_ms();
  if (evictor_.background_pending() && !replica_side_->active()) return now;  // evict again
  // A replica expires nothing itself (its master's DELs do): no expiry ticks.
  for (int i = 0; i < keyspace_.database_count() && !replica_side_->active(); ++i) {
    const store::Database& db = keyspace_.db(i);
    if (db.expires_count() == 0) continue;
    const std::int64_t hint = db.next_expire_hint();
    std::uint64_t at = now + kExpireTickMs;
    if (hint >= 0 && hint <= now_unix) at = now;  // backlog: continue at once
    if (!next || at < *next) next = at;
    break;
  }
  return next;
}

store::Entry* Executor::add_key(store::Database& db, std::string_view key, store::Value value) {
  const bool wakes = value.is(store::ValueType::kList) || value.is(store::ValueType::kZSet) ||
                     value.is(store::ValueType::kStream);
  store::Entry* e = db.add(key, std::move(value));
  e->lru = initial_access(config_.settings(), now_.unix_ms);  // Redis createObject
  if (wakes) blocking_.signal_ready(db.index(), key);
  notify(config::kNotifyNew, "new", key, db.index());  // Redis dbAdd
  return e;
}

void Executor::log_slow(const Client& c, const CommandSpec& spec,
                        std::span<const std::string_view> argv, std::size_t redacted_from,
                        std::uint64_t duration_us, const ClockReading& end) {
  if (spec.flags & kSkipSlowlog) return;  // EXEC: its commands are filed one by one
  const auto redacted = std::span<const std::size_t>(redacted_args_).subspan(redacted_from);
  const config::ServerSettings& s = config_.settings();
  if (c.blocked())  // filed when served, with the time serving took but not the wait
    slowlog_.park(c, argv, redacted, duration_us);
  else
    slowlog_.record(c, argv, redacted, duration_us, end.unix_ms / 1000, s.slowlog_log_slower_than,
                    s.slowlog_max_len);
}

void Executor::feed_monitors(const Client& c, std::span<const std::string_view> argv) {
  clients_.feed_monitors(c, clock_.unix_us(), argv);
}

bool Executor::replay(Client& c, std::span<const std::string_view> argv, std::string& error) {
  const CommandSpec* spec = table_.find(argv[0]);
  if (!spec) {
    error = "Unknown command '" + std::string(argv[0]) + "'";
    return false;
  }
  pre_command_oom_ = false;  // the log is replayed whatever the memory (Redis mustObeyClient)
  replaying_ = true;
  if (std::string why = rejection(c, argv, spec); !why.empty()) {
    c.reply().error(why);
    Transaction::flag(c);
  } else if (c.in_multi && !(spec->flags & kNotQueued)) {
    transactions_.queue(c, argv);
  } else {
    dispatch(c, *spec, argv, true);
  }
  replaying_ = false;
  return true;
}

void Executor::reset_stats() {
  std::fill(command_stats_.begin(), command_stats_.end(), CommandStats{});
  std::fill(latency_histograms_.begin(), latency_histograms_.end(), LatencyHistogram{});
  error_stats_.reset();
  scripting_->stats().reset();
  output_buffer_guard_.reset_stats();
  evictor_.reset_stats();
  client_evictor_.reset_stats();
  persistence_->reset_stats();
  const auto keep_start = stats_.start_ms;
  const auto keep_unix = stats_.start_unix_ms;
  const auto keep_dirty = stats_.dirty;
  const auto keep_save = stats_.lastsave_unix_s;
  stats_ = ServerStats{};
  stats_.start_ms = keep_start;
  stats_.start_unix_ms = keep_unix;
  stats_.dirty = keep_dirty;
  stats_.lastsave_unix_s = keep_save;
  instantaneous_.reset(clock().monotonic_ms(), instant_readings());
}

InstantaneousMetrics::Readings Executor::instant_readings() const noexcept {
  const ServerStats& s = stats_;
  return {s.total_commands, s.total_net_input_bytes(), s.total_net_output_bytes(),
          s.net_repl_input_bytes, s.net_repl_output_bytes};
}

}  // namespace listd::server
