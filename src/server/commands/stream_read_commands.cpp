// XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...], XREADGROUP GROUP
// group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...],
// and their serving half, serve_stream_waiter.
//
// Redis 7.0.15 xreadCommand: options, then per key the type check (and for XREADGROUP the
// group, -NOGROUP when it or the key is missing) and the id (`$` = the stream's last id, 0-0
// for a missing key; `>` = the group's new entries), then the keys with something to serve are
// replied (RESP2 [[key, entries]...], RESP3 {key: entries}): for XREAD the entries above the id,
// for XREADGROUP `>` the entries above the group's last id when there are any, and for a
// history id the consumer's own pending entries from it (always served, even when empty). With
// none, BLOCK parks the client on every key (inside MULTI/EXEC: a null array at once; from a
// script BLOCK is an error). A stream waiter waits on a key that usually exists: XADD signals the
// key ready on every append, and a waiter is served once the stream's last id is above its id (a
// group waiter's id is the group's last id at that moment), with the entries after it (up to COUNT,
// 1000 when COUNT was not given: Redis' XREAD_BLOCKED_DEFAULT_COUNT). A group waiter whose key was
// deleted or overwritten answers -UNBLOCKED, one whose group was destroyed -NOGROUP.
#include <string>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/server/blocking_service.h"
#include "listd/server/client.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/scripting.h"
#include "listd/server/stream_group_ops.h"
#include "listd/server/stream_ops.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

constexpr long long kBlockedDefaultCount = 1000;

struct XreadArgs {
  bool xreadgroup = false;
  long long timeout_ms = -1;  // -1: no BLOCK
  long long count = 0;
  std::size_t streams_at = 0;
  std::size_t streams = 0;
  std::string_view group;  // XREADGROUP: empty until GROUP is parsed
  std::string_view consumer;
  bool group_given = false;
  bool noack = false;
};

// `>`: the group's new entries (Redis marks it with the maximum id).
constexpr store::StreamId kNewEntries = store::StreamId::max();

// Redis getTimeoutFromObjectOrReply(UNIT_MILLISECONDS).
bool parse_block_ms(CommandContext& ctx, std::size_t i, long long& out) {
  if (!ctx.parse_integer(i, out, "ERR timeout is not an integer or out of range")) return false;
  if (out < 0) {
    ctx.reply().error("ERR timeout is negative");
    return false;
  }
  return true;
}

/// Run by redis.call (EVAL or FCALL): a script's commands are dispatched as inside EXEC.
bool from_script(CommandContext& ctx) { return ctx.in_exec() && ctx.exec().scripting().running(); }

bool parse_xread_args(CommandContext& ctx, XreadArgs& a) {
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    const bool more = i + 1 < ctx.argc();
    const std::string_view o = ctx.arg(i);
    if (base::iequals(o, "block") && more) {
      if (from_script(ctx)) {  // Redis refuses BLOCK in Lua outright, before its value
        ctx.reply().error("ERR " + std::string(ctx.arg(0)) +
                          " command is not allowed with BLOCK option from scripts");
        return false;
      }
      if (!parse_block_ms(ctx, ++i, a.timeout_ms)) return false;
    } else if (base::iequals(o, "count") && more) {
      if (!ctx.parse_integer(++i, a.count)) return false;
      if (a.count < 0) a.count = 0;
    } else if (base::iequals(o, "streams") && more) {
      a.streams_at = i + 1;
      const std::size_t n = ctx.argc() - a.streams_at;
      if (n % 2 != 0) {
        ctx.reply().error(
            "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
            "specified.");
        return false;
      }
      a.streams = n / 2;
      break;
    } else if (base::iequals(o, "group") && i + 2 < ctx.argc()) {
      if (!a.xreadgroup) {
        ctx.reply().error(
            "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
        return false;
      }
      a.group = ctx.arg(i + 1);
      a.consumer = ctx.arg(i + 2);
      a.group_given = true;
      i += 2;
    } else if (base::iequals(o, "noack")) {
      if (!a.xreadgroup) {
        ctx.reply().error(
            "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
        return false;
      }
      a.noack = true;
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  if (a.streams_at == 0) {
    ctx.reply().error(kSyntaxErr);
    return false;
  }
  if (a.xreadgroup && !a.group_given) {
    ctx.reply().error("ERR Missing GROUP option for XREADGROUP");
    return false;
  }
  return true;
}

// The ids, with each key's type (and group) checked in the same pass (Redis' order).
bool resolve_ids(CommandContext& ctx, const XreadArgs& a, std::vector<store::StreamId>& ids) {
  ids.resize(a.streams);
  for (std::size_t k = 0; k < a.streams; ++k) {
    const std::string_view key = ctx.arg(a.streams_at + k);
    auto [e, wrong_type] = ctx.read(key, store::ValueType::kStream);
    if (wrong_type) return false;
    if (a.group_given && (!e || !e->value.as_stream().groups().contains(a.group))) {
      // Redis formats the names with %s: each stops at its first NUL byte.
      ctx.reply().error("NOGROUP No such key '" + std::string(until_nul(key)) +
                        "' or consumer group '" + std::string(until_nul(a.group)) +
                        "' in XREADGROUP with GROUP option");
      return false;
    }
    const std::string_view text = ctx.arg(a.streams_at + a.streams + k);
    if (text == "$") {
      if (a.xreadgroup) {
        ctx.reply().error(
            "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
            "history of this consumer by specifying a proper ID, or use the > ID to get new "
            "messages. The $ ID would just return an empty result set.");
        return false;
      }
      ids[k] = e ? e->value.as_stream().last_id() : store::StreamId{};
    } else if (text == ">") {
      if (!a.xreadgroup) {
        ctx.reply().error(
            "ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
            "<group> <consumer> option.");
        return false;
      }
      ids[k] = kNewEntries;
    } else if (!parse_stream_id_or_reply(ctx, text, ids[k], 0, true)) {
      return false;
    }
  }
  return true;
}

/// One key's part of the reply: RESP2 [key, entries], RESP3 key => entries.
void reply_key_entries(protocol::ReplyWriter r, std::string_view key, const store::StreamValue& s,
                       store::StreamId after, long long count) {
  if (!r.resp3()) r.array_header(2);
  r.bulk(key);
  store::StreamId start = after;
  start.increment();
  reply_stream_range(r, s, start, store::StreamId::max(), static_cast<std::size_t>(count), false);
}

/// The consumer a group read is for, created (and announced) if new; its seen time refreshed.
store::StreamConsumer& group_consumer(Executor& exec, store::StreamGroup& g, std::string_view name,
                                      bool noack, const GroupEffectTarget& target,
                                      std::int64_t now_ms) {
  bool created = false;
  store::StreamConsumer& c = g.create_consumer(name, now_ms, &created);
  c.seen_time = now_ms;
  if (created) {
    ++exec.stats().dirty;
    exec.notify(config::kNotifyStream, "xgroup-createconsumer", target.key, target.db);
    // Without XCLAIMs nothing else would create it where the effects are replayed.
    if (noack) emit_consumer_creation(target, name);
  }
  return c;
}

/// One key's part of an XREADGROUP reply: new entries above the group's last id, or the
/// consumer's history from `id`.
void reply_group_entries(CommandContext& ctx, const XreadArgs& a, std::string_view key,
                         store::StreamId id) {
  store::StreamValue& s = ctx.db().lookup(key, ctx.now_ms())->value.as_stream();
  store::StreamGroup& g = s.groups().find(a.group)->second;
  const GroupEffectTarget target{&ctx.exec().effects(), ctx.db().index(), key, a.group};
  store::StreamConsumer& c =
      group_consumer(ctx.exec(), g, a.consumer, a.noack, target, ctx.now_ms());
  auto r = ctx.reply();
  if (!r.resp3()) r.array_header(2);
  r.bulk(key);
  const auto count = static_cast<std::size_t>(a.count);
  if (id == kNewEntries) {
    store::StreamId start = g.last_id;
    start.increment();
    deliver_new_entries(r, s, g, c, start, count, a.noack, ctx.now_ms(), target);
  } else {
    store::StreamId start = id;
    start.increment();
    reply_consumer_history(r, s, c, start, count, ctx.now_ms());
  }
  ctx.mark_dirty();
  ctx.changed_key(key);
}

/// Whether key k has something to serve now (Redis' serve_synchronously).
bool serves_now(CommandContext& ctx, const XreadArgs& a, std::string_view key, store::StreamId id) {
  store::Entry* e = ctx.read(key);
  if (!e) return false;
  const store::StreamValue& s = e->value.as_stream();
  if (!a.group_given) return s.length() != 0 && s.edge_id(false) > id;
  if (id != kNewEntries) return true;  // history: always served, even when empty
  return s.length() != 0 && s.edge_id(false) > s.groups().find(a.group)->second.last_id;
}

/// XREADGROUP serves its keys in order, each deciding after the ones before it ran (a key named
/// twice with `>` finds the first read's deliveries, as Redis' loop does), so the reply's length
/// is known only at the end: it goes in front of the served keys' replies (Redis' deferred
/// length). Returns whether any key was served.
bool serve_group_keys(CommandContext& ctx, const XreadArgs& a,
                      const std::vector<store::StreamId>& ids) {
  std::string& out = ctx.client().out;
  const std::size_t at = out.size();
  std::size_t served = 0;
  for (std::size_t k = 0; k < a.streams; ++k) {
    const std::string_view key = ctx.arg(a.streams_at + k);
    if (!serves_now(ctx, a, key, ids[k])) continue;
    reply_group_entries(ctx, a, key, ids[k]);
    ++served;
  }
  if (served == 0) return false;
  std::string header;
  protocol::ReplyWriter h(header, ctx.client().resp);
  if (h.resp3())
    h.map_header(served);
  else
    h.array_header(served);
  out.insert(at, header);
  return true;
}

void xread_generic(CommandContext& ctx, bool xreadgroup) {
  XreadArgs a;
  a.xreadgroup = xreadgroup;
  if (!parse_xread_args(ctx, a)) return;
  std::vector<store::StreamId> ids;
  if (!resolve_ids(ctx, a, ids)) return;
  if (a.group_given && serve_group_keys(ctx, a, ids)) return;
  // XREAD changes nothing: which keys have something to serve is known before the reply.
  std::vector<std::size_t> ready;
  for (std::size_t k = 0; k < a.streams && !a.group_given; ++k)
    if (serves_now(ctx, a, ctx.arg(a.streams_at + k), ids[k])) ready.push_back(k);
  if (!ready.empty()) {
    auto r = ctx.reply();
    if (r.resp3())
      r.map_header(ready.size());
    else
      r.array_header(ready.size());
    for (const std::size_t k : ready) {
      const std::string_view key = ctx.arg(a.streams_at + k);
      reply_key_entries(r, key, ctx.db().lookup(key, ctx.now_ms())->value.as_stream(), ids[k],
                        a.count);
    }
    return;
  }
  if (a.timeout_ms < 0 || ctx.in_exec()) {
    ctx.reply().null_array();
    return;
  }
  BlockSpec spec;
  spec.kind = a.group_given ? BlockSpec::Kind::kXReadGroup : BlockSpec::Kind::kXRead;
  spec.count = a.count ? a.count : kBlockedDefaultCount;
  spec.group = std::string(a.group);
  spec.consumer = std::string(a.consumer);
  spec.noack = a.noack;
  for (std::size_t k = 0; k < a.streams; ++k)
    spec.stream_after.emplace_back(std::string(ctx.arg(a.streams_at + k)), ids[k]);
  ctx.block_on(ctx.argv().subspan(a.streams_at, a.streams), a.timeout_ms, std::move(spec));
}

void cmd_xread(CommandContext& ctx) { xread_generic(ctx, false); }
void cmd_xreadgroup(CommandContext& ctx) { xread_generic(ctx, true); }

/// A group waiter that cannot be served any more: its error, and it is unblocked.
ServeResult unblock_with_error(Executor& exec, Client& c, std::string_view error) {
  if (!exec.blocking().claim(c)) return ServeResult::kSkip;
  c.reply().error(error);
  ++exec.stats().total_error_replies;
  exec.blocking().finish(c);
  return ServeResult::kServed;
}

ServeResult serve_group_waiter(Executor& exec, Client& c, const store::DbKey& key,
                               store::Entry* e) {
  if (!e || !e->value.is(store::ValueType::kStream))
    return unblock_with_error(exec, c, "UNBLOCKED the stream key no longer exists");
  store::StreamValue& s = e->value.as_stream();
  const BlockSpec& spec = c.block;
  const auto it = s.groups().find(spec.group);
  if (it == s.groups().end())
    return unblock_with_error(exec, c,
                              "NOGROUP the consumer group this client was blocked on no longer "
                              "exists");
  store::StreamGroup& g = it->second;
  if (!(s.last_id() > g.last_id)) return ServeResult::kSkip;
  if (!exec.blocking().claim(c)) return ServeResult::kSkip;
  const std::int64_t now_ms = exec.clock().unix_ms();
  const GroupEffectTarget target{&exec.effects(), key.db, key.key, spec.group};
  store::StreamConsumer& consumer =
      group_consumer(exec, g, spec.consumer, spec.noack, target, now_ms);
  auto r = c.reply();
  if (r.resp3()) {
    r.map_header(1);
  } else {
    r.array_header(1);
    r.array_header(2);
  }
  r.bulk(key.key);
  store::StreamId start = g.last_id;
  start.increment();
  deliver_new_entries(r, s, g, consumer, start, static_cast<std::size_t>(spec.count), spec.noack,
                      now_ms, target);
  exec.touch_key(key.db, key.key);
  ++exec.stats().dirty;
  exec.blocking().finish(c);
  return ServeResult::kServed;
}

}  // namespace

ServeResult serve_stream_waiter(Executor& exec, Client& c, const store::DbKey& key) {
  store::Database& db = exec.keyspace().db(key.db);
  store::Entry* e = db.lookup(key.key, exec.blocking().serving_unix_ms());
  const BlockSpec& spec = c.block;
  if (spec.kind == BlockSpec::Kind::kXReadGroup) return serve_group_waiter(exec, c, key, e);
  // A key gone or of another type: group waiters behind this one must still hear of it.
  if (!e || !e->value.is(store::ValueType::kStream)) return ServeResult::kSkip;
  store::StreamId after;
  for (const auto& [k, id] : spec.stream_after)
    if (k == key.key) after = id;
  const store::StreamValue& s = e->value.as_stream();
  // Nothing above this waiter's id yet; a waiter behind it may have asked for less.
  if (!(s.last_id() > after)) return ServeResult::kSkip;
  if (!exec.blocking().claim(c)) return ServeResult::kSkip;
  auto r = c.reply();
  if (r.resp3())
    r.map_header(1);
  else
    r.array_header(1);
  reply_key_entries(r, key.key, s, after, spec.count);
  exec.blocking().finish(c);
  return ServeResult::kServed;
}

void register_stream_read_commands(CommandTable& table) {
  CommandFamily t = table.family("stream");
  t.add("xread", -4, kReadonly | kBlocking, KeySpec::stream_keys(), &cmd_xread, "5.0.0",
        "Return never seen elements in multiple streams, with IDs greater than the ones reported "
        "by the caller for each stream. Can block.");
  t.add("xreadgroup", -7, kWrite | kBlocking | kOwnEffect, KeySpec::stream_keys(), &cmd_xreadgroup,
        "5.0.0",
        "Return new entries from a stream using a consumer group, or access the history of the "
        "pending entries for a given consumer. Can block.");
}

}  // namespace listd::server
