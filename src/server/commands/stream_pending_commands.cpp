// The pending entries lists: XPENDING (summary and extended forms), XCLAIM and XAUTOCLAIM.
//
// Redis 7.0.15 t_stream.c in its check order. XCLAIM and XAUTOCLAIM log what they did as 7.0
// propagates it: one XCLAIM ... FORCE JUSTID LASTID per entry claimed, and per pending entry
// no longer in the stream (which both drop from the PEL: XAUTOCLAIM lists them in its third
// reply element), plus XCLAIM's LASTID as an XGROUP SETID when no XCLAIM carried it.
#include <climits>
#include <string>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/stream_group_ops.h"
#include "listd/server/stream_ops.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

/// The group of the stream at argv[1] named argv[2], or null after replying (WRONGTYPE or
/// "-NOGROUP No such key '<key>' or consumer group '<group>'").
store::StreamGroup* find_group_or_reply(CommandContext& ctx, store::StreamValue** stream) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kStream);
  if (wrong_type) return nullptr;
  if (e) {
    auto& groups = e->value.as_stream().groups();
    const auto it = groups.find(ctx.arg(2));
    if (it != groups.end()) {
      if (stream) *stream = &e->value.as_stream();
      return &it->second;
    }
  }
  // Redis formats the names with %s: each stops at its first NUL byte.
  ctx.reply().error("NOGROUP No such key '" + std::string(until_nul(ctx.arg(1))) +
                    "' or consumer group '" + std::string(until_nul(ctx.arg(2))) + "'");
  return nullptr;
}

void reply_pending_summary(protocol::ReplyWriter r, const store::StreamGroup& g) {
  r.array_header(4);
  r.integer(static_cast<long long>(g.pel.size()));
  if (g.pel.empty()) {
    r.null();
    r.null();
    r.null_array();
    return;
  }
  reply_stream_id(r, g.pel.begin()->first);
  reply_stream_id(r, g.pel.rbegin()->first);
  std::size_t with_pending = 0;
  for (const auto& [name, c] : g.consumers)
    if (!c.pel.empty()) ++with_pending;
  r.array_header(with_pending);
  for (const auto& [name, c] : g.consumers) {
    if (c.pel.empty()) continue;
    r.array_header(2);
    r.bulk(name);
    r.bulk(std::to_string(c.pel.size()));
  }
}

struct PendingRange {
  store::StreamId start, end;
  long long count = 0;
  long long min_idle = 0;
  std::string_view consumer;
  bool consumer_given = false;
};

// The extended form's arguments, parsed before the key is looked up (Redis' order).
bool parse_pending_range(CommandContext& ctx, PendingRange& p) {
  std::size_t at = 3;
  if (base::iequals(ctx.arg(3), "idle")) {
    if (!ctx.parse_integer(4, p.min_idle)) return false;
    if (ctx.argc() < 8) {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
    at += 2;
  }
  if (!ctx.parse_integer(at + 2, p.count)) return false;
  if (p.count < 0) p.count = 0;
  if (!parse_interval_id_or_reply(ctx, ctx.arg(at), true, p.start)) return false;
  if (!parse_interval_id_or_reply(ctx, ctx.arg(at + 1), false, p.end)) return false;
  if (at + 3 < ctx.argc()) {
    p.consumer = ctx.arg(at + 3);
    p.consumer_given = true;
  }
  return true;
}

// One pending entry per element: [id, consumer, ms since delivery, deliveries].
template <class Pel, class Nack>
void reply_pending_range(protocol::ReplyWriter r, const Pel& pel, const PendingRange& p,
                         std::int64_t now_ms, Nack&& nack_of) {
  std::vector<std::pair<store::StreamId, const store::StreamNack*>> shown;
  long long count = p.count;
  for (auto it = pel.lower_bound(p.start); count > 0 && it != pel.end() && it->first <= p.end;
       ++it) {
    const store::StreamNack& nack = nack_of(it->second);
    if (p.min_idle && now_ms - nack.delivery_time < p.min_idle) continue;
    shown.emplace_back(it->first, &nack);
    --count;
  }
  r.array_header(shown.size());
  for (const auto& [id, nack] : shown) {
    r.array_header(4);
    reply_stream_id(r, id);
    r.bulk(nack->consumer->name);
    const std::int64_t elapsed = now_ms - nack->delivery_time;
    r.integer(elapsed < 0 ? 0 : elapsed);
    r.integer(static_cast<long long>(nack->delivery_count));
  }
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
void cmd_xpending(CommandContext& ctx) {
  const bool summary = ctx.argc() == 3;
  if (!summary && (ctx.argc() < 6 || ctx.argc() > 9)) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  PendingRange p;
  if (!summary && !parse_pending_range(ctx, p)) return;
  store::StreamGroup* g = find_group_or_reply(ctx, nullptr);
  if (!g) return;
  if (summary) {
    reply_pending_summary(ctx.reply(), *g);
    return;
  }
  if (p.consumer_given) {
    store::StreamConsumer* c = g->find_consumer(p.consumer);
    if (!c) {
      ctx.reply().array_header(0);
      return;
    }
    reply_pending_range(ctx.reply(), c->pel, p, ctx.now_ms(),
                        [](const store::StreamNack* n) -> const store::StreamNack& { return *n; });
    return;
  }
  reply_pending_range(ctx.reply(), g->pel, p, ctx.now_ms(),
                      [](const store::StreamNack& n) -> const store::StreamNack& { return n; });
}

/// The claiming consumer, looked up (seen now) or created on the first claim.
store::StreamConsumer& claimer(CommandContext& ctx, store::StreamGroup& g,
                               store::StreamConsumer*& c) {
  if (c) return *c;
  bool created = false;
  c = &g.create_consumer(ctx.arg(3), ctx.now_ms(), &created);
  c->seen_time = ctx.now_ms();
  if (created) {
    ctx.mark_dirty();
    ctx.notify(config::kNotifyStream, "xgroup-createconsumer", ctx.arg(1));
  }
  return *c;
}

struct ClaimOptions {
  long long min_idle = 0;
  long long retry_count = -1;  // -1: not given
  long long delivery = -1;     // -1: neither IDLE nor TIME
  bool force = false;
  bool justid = false;
  store::StreamId last_id;
  std::size_t last_id_arg = 4;  // the last id argument
};

bool parse_claim_options(CommandContext& ctx, std::vector<store::StreamId>& ids, ClaimOptions& o) {
  std::size_t j = 5;
  for (store::StreamId id; j < ctx.argc() && parse_stream_id(ctx.arg(j), id, 0, true); ++j)
    ids.push_back(id);
  o.last_id_arg = j - 1;
  for (; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.arg(j);
    const bool more = j + 1 < ctx.argc();
    if (base::iequals(opt, "force")) {
      o.force = true;
    } else if (base::iequals(opt, "justid")) {
      o.justid = true;
    } else if (base::iequals(opt, "idle") && more) {
      long long idle = 0;
      if (!ctx.parse_integer(++j, idle, "ERR Invalid IDLE option argument for XCLAIM"))
        return false;
      o.delivery = ctx.now_ms() - idle;
    } else if (base::iequals(opt, "time") && more) {
      if (!ctx.parse_integer(++j, o.delivery, "ERR Invalid TIME option argument for XCLAIM"))
        return false;
    } else if (base::iequals(opt, "retrycount") && more) {
      if (!ctx.parse_integer(++j, o.retry_count,
                             "ERR Invalid RETRYCOUNT option argument for XCLAIM"))
        return false;
    } else if (base::iequals(opt, "lastid") && more) {
      if (!parse_stream_id_or_reply(ctx, ctx.arg(++j), o.last_id, 0, true)) return false;
    } else {
      ctx.reply().error("ERR Unrecognized XCLAIM option '" + std::string(opt) + "'");
      return false;
    }
  }
  // A bogus time (negative, in the future) is taken as now, never refused.
  if (o.delivery < 0 || o.delivery > ctx.now_ms()) o.delivery = ctx.now_ms();
  return true;
}

/// Drops a pending entry whose stream entry is gone, logged as the XCLAIM 7.0 logs for it.
void drop_deleted(CommandContext& ctx, store::StreamGroup& g, store::StreamId id,
                  std::string_view id_text) {
  const auto it = g.pel.find(id);
  const GroupEffectTarget target{&ctx.exec().effects(), ctx.db().index(), ctx.arg(1), ctx.arg(2)};
  emit_xclaim(target, g, id_text, it->second);
  g.ack(id);
  ctx.mark_dirty();
}

/// Gives `nack` to `c` as XCLAIM / XAUTOCLAIM do: delivered at `delivery`, its count set or
/// raised (not under JUSTID), then logged.
void claim_nack(CommandContext& ctx, store::StreamGroup& g, store::StreamConsumer& c,
                store::StreamNack& nack, store::StreamId id, std::string_view id_text,
                std::int64_t delivery, long long retry_count, bool justid) {
  g.reassign(nack, id, c);
  nack.delivery_time = delivery;
  if (retry_count >= 0)
    nack.delivery_count = static_cast<std::uint64_t>(retry_count);
  else if (!justid)
    ++nack.delivery_count;
  const GroupEffectTarget target{&ctx.exec().effects(), ctx.db().index(), ctx.arg(1), ctx.arg(2)};
  emit_xclaim(target, g, id_text, nack);
  ctx.mark_dirty();
}

void reply_claimed(protocol::ReplyWriter r, const store::StreamValue& s,
                   const std::vector<store::StreamId>& claimed, bool justid) {
  r.array_header(claimed.size());
  for (const store::StreamId id : claimed) {
    if (justid)
      reply_stream_id(r, id);
    else
      reply_entry_by_id(r, s, id);
  }
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds]
//   [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]
void cmd_xclaim(CommandContext& ctx) {
  store::StreamValue* s = nullptr;
  store::StreamGroup* g = find_group_or_reply(ctx, &s);
  if (!g) return;
  ClaimOptions o;
  if (!ctx.parse_integer(4, o.min_idle, "ERR Invalid min-idle-time argument for XCLAIM")) return;
  if (o.min_idle < 0) o.min_idle = 0;
  std::vector<store::StreamId> ids;
  if (!parse_claim_options(ctx, ids, o)) return;
  bool propagate_last_id = false;
  if (o.last_id > g->last_id) {
    g->last_id = o.last_id;
    propagate_last_id = true;
  }
  store::StreamConsumer* consumer = nullptr;
  std::vector<store::StreamId> claimed;
  for (std::size_t j = 5; j <= o.last_id_arg; ++j) {
    const store::StreamId id = ids[j - 5];
    auto it = g->pel.find(id);
    if (!s->contains(id)) {
      if (it != g->pel.end()) {
        drop_deleted(ctx, *g, id, ctx.arg(j));
        propagate_last_id = false;  // the XCLAIM carries it
      }
      continue;
    }
    if (o.force && it == g->pel.end()) {
      it = g->pel.try_emplace(id).first;  // consumer-less until claimed below
      it->second.delivery_time = ctx.now_ms();
      it->second.delivery_count = 1;
    }
    if (it == g->pel.end()) continue;
    store::StreamNack& nack = it->second;
    if (nack.consumer && o.min_idle && ctx.now_ms() - nack.delivery_time < o.min_idle) continue;
    claim_nack(ctx, *g, claimer(ctx, *g, consumer), nack, id, ctx.arg(j), o.delivery, o.retry_count,
               o.justid);
    claimed.push_back(id);
    propagate_last_id = false;
  }
  if (propagate_last_id) {
    emit_group_setid({&ctx.exec().effects(), ctx.db().index(), ctx.arg(1), ctx.arg(2)}, *g);
    ctx.mark_dirty();
  }
  reply_claimed(ctx.reply(), *s, claimed, o.justid);
}

constexpr long long kAutoclaimAttemptsFactor = 10;

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
void cmd_xautoclaim(CommandContext& ctx) {
  long long min_idle = 0;
  if (!ctx.parse_integer(4, min_idle, "ERR Invalid min-idle-time argument for XAUTOCLAIM")) return;
  if (min_idle < 0) min_idle = 0;
  store::StreamId start;
  if (!parse_interval_id_or_reply(ctx, ctx.arg(5), true, start)) return;
  long long count = 100;
  bool justid = false;
  for (std::size_t j = 6; j < ctx.argc(); ++j) {
    if (base::iequals(ctx.arg(j), "count") && j + 1 < ctx.argc()) {
      constexpr long long kMaxCount = LONG_MAX / 16;  // Redis: LONG_MAX / max(16, 10)
      if (!ctx.parse_integer(++j, count, "ERR COUNT must be > 0")) return;
      if (count < 1 || count > kMaxCount) {
        ctx.reply().error("ERR COUNT must be > 0");
        return;
      }
    } else if (base::iequals(ctx.arg(j), "justid")) {
      justid = true;
    } else {
      ctx.reply().error(kSyntaxErr);
      return;
    }
  }
  store::StreamValue* s = nullptr;
  store::StreamGroup* g = find_group_or_reply(ctx, &s);
  if (!g) return;
  store::StreamConsumer* consumer = nullptr;
  std::vector<store::StreamId> claimed, deleted;
  long long attempts = count * kAutoclaimAttemptsFactor;
  auto it = g->pel.lower_bound(start);
  while (attempts-- > 0 && count > 0 && it != g->pel.end()) {
    const store::StreamId id = it->first;
    store::StreamNack& nack = it->second;
    ++it;  // before a drop can invalidate it
    if (!s->contains(id)) {
      drop_deleted(ctx, *g, id, id.to_string());
      deleted.push_back(id);
      --count;  // a limit on the reply's size
      continue;
    }
    if (min_idle && ctx.now_ms() - nack.delivery_time < min_idle) continue;
    claim_nack(ctx, *g, claimer(ctx, *g, consumer), nack, id, id.to_string(), ctx.now_ms(), -1,
               justid);
    claimed.push_back(id);
    --count;
  }
  auto r = ctx.reply();
  r.array_header(3);
  reply_stream_id(r, it == g->pel.end() ? store::StreamId{} : it->first);
  reply_claimed(r, *s, claimed, justid);
  r.array_header(deleted.size());
  for (const store::StreamId id : deleted) reply_stream_id(r, id);
}

}  // namespace

void register_stream_pending_commands(CommandTable& table) {
  CommandFamily t = table.family("stream");
  t.add("xpending", -3, kReadonly, kFirstKey, &cmd_xpending, "5.0.0",
        "Return information and entries from a stream consumer group pending entries list, that "
        "are messages fetched but never acknowledged.");
  t.add("xclaim", -6, kWrite | kFast | kOwnEffect, kFirstKey, &cmd_xclaim, "5.0.0",
        "Changes (or acquires) ownership of a message in a consumer group, as if the message was "
        "delivered to the specified consumer.");
  t.add("xautoclaim", -6, kWrite | kFast | kOwnEffect, kFirstKey, &cmd_xautoclaim, "6.2.0",
        "Changes (or acquires) ownership of messages in a consumer group, as if the messages "
        "were delivered to the specified consumer.");
}

}  // namespace listd::server
