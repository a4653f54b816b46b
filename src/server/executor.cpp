#include "listd/server/executor.h"

#include <algorithm>
#include <chrono>

#include "listd/server/blocking_service.h"
#include "listd/server/command_context.h"
#include "listd/server/errors.h"
#include "listd/server/text.h"
#include "listd/server/persistence.h"

namespace listd::server {
namespace {

// Active expiry: keys examined per tick and how often to tick while keys have deadlines.
constexpr std::size_t kExpireBudgetPerTick = 1000;
constexpr std::uint64_t kExpireTickMs = 100;

bool arity_ok(int arity, std::size_t argc) noexcept {
  const auto n = static_cast<long long>(argc);
  return arity >= 0 ? n == arity : n >= -arity;
}

template <class T>
void erase_value(std::vector<T*>& v, const T* p) {
  v.erase(std::remove(v.begin(), v.end(), p), v.end());
}

}  // namespace

Executor::Executor(Config& config, Clock& clock)
    : config_(config),
      clock_(clock),
      keyspace_(config.settings().databases),
      table_(CommandTable::with_all_commands()),
      timers_(clock.monotonic_ms()),
      rng_(std::random_device{}()) {
  stats_.start_ms = clock_.monotonic_ms();
  stats_.start_unix_ms = clock_.unix_ms();
  stats_.lastsave_unix_s = stats_.start_unix_ms / 1000;
  keyspace_.set_expired_hook([this](store::Database& db, std::string_view key) {
    ++stats_.expired_keys;
    touch_key(db.index(), key);
    effects_.emit(db.index(), {"DEL", key});  // an expired key is logged as its DEL
  });
  command_stats_.resize(table_.by_slot().size());
  persistence_ = std::make_unique<Persistence>(*this);
  effects_.subscribe(*persistence_);
}

Executor::~Executor() {
  // Waiters hold timer nodes that point into timers_: unblock before members are destroyed.
  for (auto& [id, c] : clients_) {
    timers_.cancel(c->waiter.timer);
    waiters_.unblock(c->waiter);
  }
}

const std::string& Executor::requirepass() const { return config_.settings().requirepass; }

Client& Executor::create_client(ClientTransport* transport, std::string addr, std::string laddr,
                                int fd) {
  auto owned = std::make_unique<Client>(next_client_id_++);
  Client& c = *owned;
  c.transport = transport;
  c.addr = std::move(addr);
  c.laddr = std::move(laddr);
  c.fd = fd;
  c.created_ms = c.last_interaction_ms = clock_.monotonic_ms();
  c.authenticated = requirepass().empty();
  ++stats_.total_connections;
  clients_.emplace(c.id, std::move(owned));
  return c;
}

void Executor::destroy_client(Client& c) {
  timers_.cancel(c.waiter.timer);
  waiters_.unblock(c.waiter);
  unwatch_all(c);
  pubsub_.leave_all(c);
  erase_value(flush_list_, &c);
  erase_value(resume_list_, &c);
  erase_value(kill_list_, &c);
  erase_value(monitors_, &c);
  clients_.erase(c.id);
}

Client* Executor::find_client(std::uint64_t id) noexcept {
  auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : it->second.get();
}

void Executor::queue_flush(Client& c) {
  if (c.queued_for_flush) return;
  c.queued_for_flush = true;
  flush_list_.push_back(&c);
}

std::vector<Client*> Executor::take_flush_list() {
  std::vector<Client*> out;
  out.swap(flush_list_);
  for (Client* c : out) c->queued_for_flush = false;
  return out;
}

std::vector<Client*> Executor::take_resume_list() {
  std::vector<Client*> out;
  out.swap(resume_list_);
  return out;
}

std::vector<Client*> Executor::take_kill_list() {
  std::vector<Client*> out;
  out.swap(kill_list_);
  return out;
}

void Executor::request_kill(Client& c) {
  c.close_after_reply = true;
  if (std::find(kill_list_.begin(), kill_list_.end(), &c) == kill_list_.end())
    kill_list_.push_back(&c);
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
  if (!arity_ok(spec->arity, argv.size()))
    return arity_error(spec->full_name);
  if (!c.authenticated && !(spec->flags & kNoAuth)) return std::string(kNoAuthErr);
  if (persistence_->refusing_writes() && (spec->flags & (kWrite | kDeniedOnDiskError)))
    return std::string(kMisconfRdbErr);
  return subscribed_mode_rejection(c, *spec);  // RESP2 subscribed mode: pubsub.cpp
}

void Executor::execute(Client& c, std::span<const std::string_view> argv) {
  if (argv.empty()) return;
  if (!in_batch_) now_ = clock().read();
  c.last_interaction_ms = now_.mono_ms();
  // Pipelines repeat one command: compare with the last one found before hashing the name.
  const CommandSpec* spec = last_found_ && strcasecmp_eq(argv[0], last_found_->name)
                                ? last_found_
                                : table_.find(argv[0]);
  if (spec) last_found_ = spec;
  if (std::string error = rejection(c, argv, spec); !error.empty()) {
    ++stats_.total_error_replies;
    if (spec) ++command_stats_[spec->slot].rejected;
    if (spec && (spec->flags & kExecCommand)) {
      // Redis execCommandAbort: a rejected EXEC ends the transaction, and answers EXECABORT
      // even outside MULTI (`EXEC x` is an arity error wrapped the same way).
      const std::string_view reason =
          std::string_view(error).substr(error.rfind("ERR ", 0) == 0 ? 4 : 0);
      c.reply().error("EXECABORT Transaction discarded because of: " + std::string(reason));
      c.in_multi = false;
      c.multi_error = false;
      c.queued.clear();
      unwatch_all(c);
    } else {
      c.reply().error(error);
      if (c.in_multi) c.multi_error = true;  // Redis flagTransaction: EXEC will abort
    }
  } else if (c.in_multi && !(spec->flags & kNotQueued)) {
    auto& q = c.queued.emplace_back();
    q.reserve(argv.size());
    for (std::string_view a : argv) q.emplace_back(a);
    c.reply().simple("QUEUED");
  } else {
    if (!monitors_.empty()) feed_monitors(c, argv);
    // One execution unit: the command (EXEC with its queued commands), then each served waiter.
    effects_.begin_unit(!(spec->flags & kTouchesArbitraryKeys));
    dispatch(c, *spec, argv, false);
    effects_.end_unit();
    if (waiters_.has_ready()) drain_ready_keys();
  }
  if (!c.out.empty()) queue_flush(c);
}

void Executor::dispatch(Client& c, const CommandSpec& spec,
                        std::span<const std::string_view> argv, bool in_exec) {
  const std::size_t out_before = c.out.size();
  const ReplyMode mode_before = c.reply_mode;
  const std::uint64_t t0_us = now_.mono_us;

  c.last_command = spec.full_name;  // CLIENT LIST shows the running (or blocking) command
  CommandContext ctx(*this, c, spec, argv, in_exec);
  spec.handler(ctx);

  now_ = clock().read();  // this command's end, the next one's start within a batch
  CommandStats& cs = command_stats_[spec.slot];
  ++cs.calls;
  cs.usec += now_.mono_us > t0_us ? now_.mono_us - t0_us : 0;
  ++stats_.total_commands;
  if (c.out.size() > out_before && c.out[out_before] == '-') {
    ++cs.failed;
    ++stats_.total_error_replies;
  }
  if (ctx.dirty() > 0) {
    // The default effect is the argv; kOwnEffect handlers emitted theirs (propagate_as).
    if (!(spec.flags & kOwnEffect)) effects_.emit(ctx.db().index(), argv);
    stats_.dirty += ctx.dirty();
    if (!watched_.empty()) {
      if (!ctx.changed_keys().empty()) {
        for (const std::string& key : ctx.changed_keys()) touch_key(ctx.db().index(), key);
      } else {
        for (int pos : spec.key_positions(argv))
          touch_key(ctx.db().index(), argv[static_cast<std::size_t>(pos)]);
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

void Executor::run_transaction(Client& c) {
  auto reply = c.reply();
  if (!c.in_multi) {
    reply.error(kExecWithoutMultiErr);
    return;
  }
  auto queued = std::move(c.queued);
  c.queued.clear();
  c.in_multi = false;
  const bool aborted = c.multi_error;
  const bool watch_failed = c.watch_dirty;
  c.multi_error = false;
  unwatch_all(c);
  if (aborted) {
    reply.error(kExecAbortErr);
    return;
  }
  if (watch_failed) {
    reply.null_array();
    return;
  }
  reply.array_header(queued.size());
  std::vector<std::string_view> views;
  // The queued commands' effects join EXEC's execution unit: MULTI ... EXEC when more than one.
  for (auto& args : queued) {
    views.assign(args.begin(), args.end());
    const CommandSpec* spec = table_.find(views[0]);
    if (spec && !spec->subcommands.empty()) spec = spec->find_subcommand(views[1]);
    // The command was validated when queued; the table does not change at run time.
    if (!monitors_.empty()) feed_monitors(c, views);
    dispatch(c, *spec, views, true);
  }
}

void Executor::drain_ready_keys() {
  if (draining_) return;
  draining_ = true;
  while (waiters_.has_ready()) {
    for (const blocking::BlockKey& key : waiters_.take_ready()) {
      // Oldest waiter first, one element each, until the key runs dry. The waiters present now
      // are visited once; a chain (BLMOVE into a waited key) signals its key again.
      waiters_.visit(key.db, key.key, [&](blocking::Waiter& w) {
        Client& c = *static_cast<Client*>(w.owner());
        if (c.transport && c.transport->peer_gone()) {
          // The worker is gone: never hand it an element (it would be lost with it).
          timers_.cancel(c.waiter.timer);
          waiters_.unblock(c.waiter);
          request_kill(c);
          return true;
        }
        // A served waiter is an execution unit of its own; the serving code emits its pop.
        effects_.begin_unit();
        const ServeResult result = serve_blocked_client(*this, c, key);
        effects_.end_unit();
        return result != ServeResult::kNoData;
      });
    }
  }
  draining_ = false;
}

void Executor::block_client(Client& c, std::span<const std::string_view> keys,
                            long long timeout_ms, BlockSpec spec) {
  c.block = std::move(spec);
  std::vector<std::string_view> k(keys.begin(), keys.end());
  waiters_.block(c.waiter, c.db, k);
  // The clock is read in whole ms (truncated): a client that blocked at 1000.9 reads 1000, so
  // a deadline of 1000 + timeout could fire up to 1 ms early. +1 ms means never early.
  if (timeout_ms > 0)
    timers_.schedule(c.waiter.timer,
                     clock_.monotonic_ms() + static_cast<std::uint64_t>(timeout_ms) + 1);
}

void Executor::finish_block(Client& c) {
  timers_.cancel(c.waiter.timer);
  waiters_.unblock(c.waiter);
  queue_flush(c);
  resume_list_.push_back(&c);
}

void Executor::unblock_with_timeout(Client& c, std::string_view error) {
  if (!c.blocked()) return;
  if (error.empty())
    c.reply().null_array();
  else
    c.reply().error(error);
  finish_block(c);
}

void Executor::tick() {
  const std::uint64_t now = clock_.monotonic_ms();
  timers_.advance(now, [this](blocking::TimerNode& node) {
    unblock_with_timeout(*static_cast<Client*>(node.owner()));
  });
  // Active expiry: a bounded number of deadline-ordered deletions, round robin over dbs.
  const std::int64_t now_unix = clock_.unix_ms();
  std::size_t budget = kExpireBudgetPerTick;
  for (int i = 0; i < keyspace_.database_count() && budget > 0; ++i) {
    store::Database& db = keyspace_.db(expire_db_cursor_);
    if (db.expires_count() > 0) {
      const std::size_t before = budget;
      budget -= std::min(budget, db.expire_cycle(now_unix, budget));
      if (budget == before || db.next_expire_hint() > now_unix || db.next_expire_hint() < 0)
        expire_db_cursor_ = (expire_db_cursor_ + 1) % keyspace_.database_count();
    } else {
      expire_db_cursor_ = (expire_db_cursor_ + 1) % keyspace_.database_count();
    }
  }
  if (waiters_.has_ready()) drain_ready_keys();
}

std::optional<std::uint64_t> Executor::next_wakeup_ms() const {
  std::optional<std::uint64_t> next = timers_.next_deadline();
  const std::int64_t now_unix = clock_.unix_ms();
  const std::uint64_t now = clock_.monotonic_ms();
  for (int i = 0; i < keyspace_.database_count(); ++i) {
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
  const bool wakes = value.is(store::ValueType::kList) || value.is(store::ValueType::kZSet);
  store::Entry* e = db.add(key, std::move(value));
  if (wakes) waiters_.signal_ready(db.index(), key);
  return e;
}

void Executor::signal_all_waited_keys(int db) {
  std::vector<std::string> keys;
  waiters_.for_each_key([&](const blocking::BlockKey& k, std::size_t) {
    if (k.db == db) keys.push_back(k.key);
  });
  for (const auto& k : keys) waiters_.signal_ready(db, k);
}

void Executor::touch_key(int db, std::string_view key) {
  if (watched_.empty()) return;
  auto it = watched_.find(blocking::BlockKeyView{db, key});
  if (it == watched_.end()) return;
  for (Client* c : it->second) c->watch_dirty = true;
}

void Executor::touch_all_watched(int db) {
  for (auto& [k, clients] : watched_)
    if (k.db == db)
      for (Client* c : clients) c->watch_dirty = true;
}

void Executor::watch_key(Client& c, int db, std::string_view key) {
  for (const auto& w : c.watched)
    if (w.db == db && w.key == key) return;
  c.watched.push_back(blocking::BlockKey{db, std::string(key)});
  auto it = watched_.find(blocking::BlockKeyView{db, key});
  if (it == watched_.end())
    it = watched_.emplace(blocking::BlockKey{db, std::string(key)}, std::vector<Client*>{}).first;
  it->second.push_back(&c);
}

void Executor::unwatch_all(Client& c) {
  for (const auto& k : c.watched) {
    auto it = watched_.find(k);
    if (it == watched_.end()) continue;
    erase_value(it->second, &c);
    if (it->second.empty()) watched_.erase(it);
  }
  c.watched.clear();
  c.watch_dirty = false;
}

void Executor::add_monitor(Client& c) {
  if (!c.monitor) {
    c.monitor = true;
    monitors_.push_back(&c);
  }
}

void Executor::feed_monitors(const Client& c, std::span<const std::string_view> argv) {
  // Redis format: +<sec>.<usec> [<db> <addr>] "arg" "arg"
  const std::int64_t us = clock_.unix_us();
  std::string line = "+" + std::to_string(us / 1000000) + ".";
  std::string frac = std::to_string(us % 1000000);
  line.append(6 - frac.size(), '0');
  line += frac + " [" + std::to_string(c.db) + " " + c.addr + "]";
  for (std::string_view a : argv) {
    line += " \"";
    for (unsigned char ch : a) {
      switch (ch) {
        case '\\': line += "\\\\"; break;
        case '"': line += "\\\""; break;
        case '\n': line += "\\n"; break;
        case '\r': line += "\\r"; break;
        case '\t': line += "\\t"; break;
        case '\a': line += "\\a"; break;
        case '\b': line += "\\b"; break;
        default:
          if (ch >= 0x20 && ch < 0x7f) {
            line += static_cast<char>(ch);
          } else {
            static constexpr char kHex[] = "0123456789abcdef";
            line += "\\x";
            line += kHex[ch >> 4];
            line += kHex[ch & 15];
          }
      }
    }
    line += '"';
  }
  line += "\r\n";
  for (Client* m : monitors_) {
    if (m == &c) continue;
    m->out += line;
    queue_flush(*m);
  }
}

bool Executor::replay(Client& c, std::span<const std::string_view> argv, std::string& error) {
  const CommandSpec* spec = table_.find(argv[0]);
  if (!spec) {
    error = "Unknown command '" + std::string(argv[0]) + "'";
    return false;
  }
  if (!spec->subcommands.empty() && argv.size() >= 2) {
    if (const CommandSpec* sub = spec->find_subcommand(argv[1])) spec = sub;
  }
  if (!arity_ok(spec->arity, argv.size())) {
    c.reply().error(arity_error(spec->full_name));
    if (c.in_multi) c.multi_error = true;
    return true;
  }
  if (c.in_multi && !(spec->flags & kNotQueued)) {
    auto& q = c.queued.emplace_back();
    q.reserve(argv.size());
    for (std::string_view a : argv) q.emplace_back(a);
    return true;
  }
  dispatch(c, *spec, argv, true);
  return true;
}

void Executor::reset_stats() {
  std::fill(command_stats_.begin(), command_stats_.end(), CommandStats{});
  const auto keep_start = stats_.start_ms;
  const auto keep_unix = stats_.start_unix_ms;
  const auto keep_dirty = stats_.dirty;
  const auto keep_save = stats_.lastsave_unix_s;
  stats_ = ServerStats{};
  stats_.start_ms = keep_start;
  stats_.start_unix_ms = keep_unix;
  stats_.dirty = keep_dirty;
  stats_.lastsave_unix_s = keep_save;
}

}  // namespace listd::server
