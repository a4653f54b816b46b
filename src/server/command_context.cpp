#include "listd/server/command_context.h"

#include <climits>
#include <cmath>
#include <cstdint>

#include "listd/base/number.h"
#include "listd/server/blocking_service.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/key_access.h"

namespace listd::server {

CommandContext::CommandContext(Executor& exec, Client& client, const CommandSpec& spec,
                               std::span<const std::string_view> argv, bool in_exec) noexcept
    : exec_(exec),
      events_(exec.keyspace_events()),
      client_(client),
      spec_(spec),
      argv_(argv),
      db_(&exec.keyspace().db(client.db)),
      now_ms_(exec.command_unix_ms()),
      in_exec_(in_exec) {}

bool CommandContext::parse_integer(std::size_t i, long long& out, std::string_view err) {
  if (base::parse_strict_integer(argv_[i], out)) return true;
  reply().error(err);
  return false;
}

bool CommandContext::parse_integer(std::size_t i, long long& out) {
  return parse_integer(i, out, kNotIntegerErr);
}

bool CommandContext::parse_timeout_ms(std::size_t i, long long& out_ms) {
  long double seconds = 0;
  if (!base::parse_long_double(argv_[i], seconds)) {
    reply().error(kTimeoutNotFloatErr);
    return false;
  }
  // Redis 7.0.15: ms = (long long)ceill(seconds * 1000); a value beyond long long wraps to a
  // negative number there, hence "timeout is negative" for inf or 1e400.
  const long double ms = std::ceil(seconds * 1000.0L);
  if (!(ms < 9223372036854775807.0L) || ms < 0) {
    reply().error(kTimeoutNegativeErr);
    return false;
  }
  out_ms = static_cast<long long>(ms);
  return true;
}

store::Entry* CommandContext::lookup(std::string_view key, bool count_stats, bool touch,
                                     bool notify_miss) {
  // Our master's commands see logically expired keys as live: only its DEL removes them.
  constexpr std::int64_t kNeverExpired = INT64_MIN;
  store::Entry* e = db_->lookup(key, client_.master ? kNeverExpired : now_ms_);
  if (e && touch && !client_.no_touch)
    e->lru = touch_access(e->lru, exec_.config().settings(), now_ms_, exec_.rng());
  if (count_stats) {
    ++(e ? exec_.stats().keyspace_hits : exec_.stats().keyspace_misses);
    if (!e && notify_miss) notify(config::kNotifyKeyMiss, "keymiss", key);  // reads only
  }
  return e;
}

CommandContext::Typed CommandContext::typed(std::string_view key, store::ValueType type,
                                            bool count_stats) {
  store::Entry* e = lookup(key, count_stats);
  if (e && !e->value.is(type)) {
    reply().error(kWrongTypeErr);
    return Typed{nullptr, true};
  }
  return Typed{e, false};
}

store::Entry* CommandContext::add_key(std::string_view key, store::Value value) {
  return exec_.add_key(*db_, key, std::move(value));
}

store::Entry* CommandContext::set_key(std::string_view key, store::Value value) {
  store::Entry* e = write(key);
  if (!e) return add_key(key, std::move(value));
  // A stream overwritten or deleted wakes its XREADGROUP waiters (Redis 7.0 dbSetValue /
  // dbGenericDelete): they answer -UNBLOCKED.
  if (e->value.is(store::ValueType::kStream)) exec_.blocking().signal_ready(db_->index(), key);
  e->value = std::move(value);
  db_->persist(*e);
  return e;
}

bool CommandContext::delete_key(std::string_view key) {
  store::Entry* e = db_->lookup(key, now_ms_);
  if (e && e->value.is(store::ValueType::kStream)) exec_.blocking().signal_ready(db_->index(), key);
  return db_->remove(key);
}

void CommandContext::block_on(std::span<const std::string_view> keys, long long timeout_ms,
                              BlockSpec spec) {
  exec_.blocking().block(client_, keys, timeout_ms, std::move(spec));
}

void CommandContext::propagate_as(std::span<const std::string_view> effect) {
  exec_.effects().emit(db_->index(), effect);
}

bool CommandContext::effects_wanted() const noexcept { return exec_.effects().active(); }

void CommandContext::switch_db(int index) {
  client_.db = index;
  db_ = &exec_.keyspace().db(index);
}

void reply_help(CommandContext& ctx, std::span<const std::string_view> lines) {
  std::string head(ctx.arg(0));
  for (char& ch : head)
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 32);
  head += " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:";
  protocol::ReplyWriter r = ctx.reply();
  r.array_header(lines.size() + 3);
  r.simple(head);
  for (std::string_view line : lines) r.simple(line);
  r.simple("HELP");
  r.simple("    Prints this help.");  // Redis 7.0 addReplyHelp
}

}  // namespace listd::server
