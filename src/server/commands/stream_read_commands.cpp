// XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...], and its serving
// half, serve_stream_waiter.
//
// Redis 7.0.15 xreadCommand without GROUP: options, then per key the type check and the id
// (`$` = the stream's last id, 0-0 for a missing key), then the keys with entries above their
// id are replied (RESP2 [[key, entries]...], RESP3 {key: entries}); with none, BLOCK parks the
// client on every key (inside MULTI/EXEC and scripts: a null array at once). A stream waiter
// waits on a key that usually exists: XADD signals the key ready on every append, and a waiter
// is served once the stream's last id is above its id, with the entries after it (up to COUNT,
// 1000 when COUNT was not given: Redis' XREAD_BLOCKED_DEFAULT_COUNT).
#include <string>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/server/blocking_service.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/stream_ops.h"

namespace listd::server {
namespace {

constexpr long long kBlockedDefaultCount = 1000;

struct XreadArgs {
  long long timeout_ms = -1;  // -1: no BLOCK
  long long count = 0;
  std::size_t streams_at = 0;
  std::size_t streams = 0;
};

// Redis getTimeoutFromObjectOrReply(UNIT_MILLISECONDS).
bool parse_block_ms(CommandContext& ctx, std::size_t i, long long& out) {
  if (!ctx.parse_integer(i, out, "ERR timeout is not an integer or out of range")) return false;
  if (out < 0) {
    ctx.reply().error("ERR timeout is negative");
    return false;
  }
  return true;
}

bool parse_xread_args(CommandContext& ctx, XreadArgs& a) {
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    const bool more = i + 1 < ctx.argc();
    const std::string_view o = ctx.arg(i);
    if (base::iequals(o, "block") && more) {
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
      ctx.reply().error(
          "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
      return false;
    } else if (base::iequals(o, "noack")) {
      ctx.reply().error(
          "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
      return false;
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  if (a.streams_at == 0) {
    ctx.reply().error(kSyntaxErr);
    return false;
  }
  return true;
}

// The ids, with each key's type checked in the same pass (Redis' order).
bool resolve_ids(CommandContext& ctx, const XreadArgs& a, std::vector<store::StreamId>& ids) {
  ids.resize(a.streams);
  for (std::size_t k = 0; k < a.streams; ++k) {
    auto [e, wrong_type] = ctx.read(ctx.arg(a.streams_at + k), store::ValueType::kStream);
    if (wrong_type) return false;
    const std::string_view text = ctx.arg(a.streams_at + a.streams + k);
    if (text == "$") {
      ids[k] = e ? e->value.as_stream().last_id() : store::StreamId{};
    } else if (text == ">") {
      ctx.reply().error(
          "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
          "<consumer> option.");
      return false;
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

void cmd_xread(CommandContext& ctx) {
  XreadArgs a;
  if (!parse_xread_args(ctx, a)) return;
  std::vector<store::StreamId> ids;
  if (!resolve_ids(ctx, a, ids)) return;
  // Which keys have entries above their id (the reply's length comes first).
  std::vector<std::size_t> ready;
  for (std::size_t k = 0; k < a.streams; ++k) {
    store::Entry* e = ctx.read(ctx.arg(a.streams_at + k));
    if (!e) continue;
    const store::StreamValue& s = e->value.as_stream();
    if (s.length() != 0 && s.edge_id(false) > ids[k]) ready.push_back(k);
  }
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
  spec.kind = BlockSpec::Kind::kXRead;
  spec.count = a.count ? a.count : kBlockedDefaultCount;
  for (std::size_t k = 0; k < a.streams; ++k)
    spec.stream_after.emplace_back(std::string(ctx.arg(a.streams_at + k)), ids[k]);
  ctx.block_on(ctx.argv().subspan(a.streams_at, a.streams), a.timeout_ms, std::move(spec));
}

}  // namespace

ServeResult serve_stream_waiter(Executor& exec, Client& c, const store::DbKey& key) {
  store::Database& db = exec.keyspace().db(key.db);
  store::Entry* e = db.lookup(key.key, exec.clock().unix_ms());
  if (!e) return ServeResult::kNoData;
  if (!e->value.is(store::ValueType::kStream)) return ServeResult::kSkip;
  const BlockSpec& spec = c.block;
  store::StreamId after;
  for (const auto& [k, id] : spec.stream_after)
    if (k == key.key) after = id;
  const store::StreamValue& s = e->value.as_stream();
  // Nothing above this waiter's id yet; a waiter behind it may have asked for less.
  if (!(s.last_id() > after)) return ServeResult::kSkip;
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
  t.add("xread", -4, kReadonly | kBlocking, kNoKeys, &cmd_xread, "5.0.0",
        "Return never seen elements in multiple streams, with IDs greater than the ones reported "
        "by the caller for each stream. Can block.");
}

}  // namespace listd::server
