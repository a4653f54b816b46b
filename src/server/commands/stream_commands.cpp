// Stream commands without groups: XADD, XRANGE, XREVRANGE, XLEN, XDEL, XTRIM.
//
// Argument checks follow Redis 7.0.15 t_stream.c in order. A stream is never deleted when it
// becomes empty (unlike the other containers). XADD and XTRIM log what they did: XADD with the
// id it made, and a `~` trim as the exact `=` trim it performed (MAXLEN = the resulting length,
// MINID = the first remaining id), as streamRewriteApproxSpecifier / streamRewriteTrimArgument.
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

constexpr std::size_t kStreamListpackMaxSize = std::size_t{1} << 30;
constexpr std::string_view kXaddSmallerErr =
    "ERR The ID specified in XADD is equal or smaller than the target stream top item";

// The XADD / XTRIM effect: argv with an approximate trim rewritten as the exact one it did.
std::vector<std::string> trim_effect(CommandContext& ctx, const StreamAddTrimArgs& a,
                                     const store::StreamValue& s) {
  std::vector<std::string> effect(ctx.argv().begin(), ctx.argv().end());
  if (a.trim.approx) {
    effect[a.trim_arg - 1] = "=";
    effect[a.trim_arg] = a.trim.strategy == store::StreamTrim::Strategy::kMaxLen
                             ? std::to_string(s.length())
                             : s.edge_id(true, false).to_string();
  }
  return effect;
}

void propagate(CommandContext& ctx, const std::vector<std::string>& effect) {
  std::vector<std::string_view> views(effect.begin(), effect.end());
  ctx.propagate_as(views);
}

// streamAppendItem's id rule; false when the id is not above the top item.
bool next_add_id(const StreamAddTrimArgs& a, const store::StreamValue& s, std::int64_t now_ms,
                 store::StreamId& id) {
  const store::StreamId last = s.last_id();
  if (a.id_given && a.seq_given) {
    id = a.id;
  } else if (a.id_given) {
    if (last.ms == a.id.ms) {
      if (last.seq == UINT64_MAX) return false;
      id = {last.ms, last.seq + 1};
    } else {
      id = a.id;
    }
  } else if (static_cast<std::uint64_t>(now_ms) > last.ms) {
    id = {static_cast<std::uint64_t>(now_ms), 0};
  } else {
    id = last;
    id.increment();
  }
  return id > last;
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [...]
void cmd_xadd(CommandContext& ctx) {
  StreamAddTrimArgs a;
  if (!parse_add_trim_args(ctx, true, a)) return;
  const std::size_t field_pos = a.id_pos + 1;
  if (ctx.argc() < field_pos + 2 || (ctx.argc() - field_pos) % 2 == 1) {
    ctx.reply().error(arity_error(ctx.spec().full_name));
    return;
  }
  if (a.id_given && a.seq_given && a.id.is_zero()) {
    ctx.reply().error("ERR The ID specified in XADD must be greater than 0-0");
    return;
  }
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kStream);
  if (wrong_type) return;
  if (!e) {
    if (a.no_mkstream) {
      ctx.reply().null();
      return;
    }
    e = ctx.add_key(ctx.arg(1), store::Value::make_stream());
  }
  store::StreamValue& s = e->value.as_stream();
  if (s.last_id() == store::StreamId::max()) {
    ctx.reply().error(
        "ERR The stream has exhausted the last possible ID, unable to add more items");
    return;
  }
  store::StreamId id;
  if (!next_add_id(a, s, ctx.now_ms(), id)) {
    ctx.reply().error(kXaddSmallerErr);
    return;
  }
  const auto fields = ctx.argv().subspan(field_pos);
  std::size_t total = 0;
  for (const auto f : fields) total += f.size();
  if (total > kStreamListpackMaxSize) {
    ctx.reply().error("ERR Elements are too large to be stored");
    return;
  }
  const config::ServerSettings& settings = ctx.exec().config().settings();
  s.append(
      id, fields,
      {static_cast<std::size_t>(settings.stream_node_max_bytes), settings.stream_node_max_entries});
  // Unlike a push, an append usually finds the key existing: every XADD wakes its readers.
  ctx.exec().blocking().signal_ready(ctx.db().index(), ctx.arg(1));
  reply_stream_id(ctx.reply(), id);
  ctx.mark_dirty();
  ctx.notify(config::kNotifyStream, "xadd", ctx.arg(1));
  if (a.trim.strategy != store::StreamTrim::Strategy::kNone && s.trim(a.trim) != 0)
    ctx.notify(config::kNotifyStream, "xtrim", ctx.arg(1));
  if (!ctx.effects_wanted()) return;
  std::vector<std::string> effect = trim_effect(ctx, a, s);
  if (!a.id_given || !a.seq_given) effect[a.id_pos] = id.to_string();
  propagate(ctx, effect);
}

void xrange_generic(CommandContext& ctx, bool rev) {
  store::StreamId start, end;
  if (!parse_interval_id_or_reply(ctx, ctx.arg(rev ? 3 : 2), true, start)) return;
  if (!parse_interval_id_or_reply(ctx, ctx.arg(rev ? 2 : 3), false, end)) return;
  long long count = -1;
  for (std::size_t j = 4; j < ctx.argc(); ++j) {
    if (base::iequals(ctx.arg(j), "count") && j + 1 < ctx.argc()) {
      if (!ctx.parse_integer(j + 1, count)) return;
      if (count < 0) count = 0;
      ++j;
    } else {
      ctx.reply().error(kSyntaxErr);
      return;
    }
  }
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kStream);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().array_header(0);
  } else if (count == 0) {
    ctx.reply().null_array();
  } else {
    reply_stream_range(ctx.reply(), e->value.as_stream(), start, end,
                       count < 0 ? 0 : static_cast<std::size_t>(count), rev);
  }
}

// XRANGE key start end [COUNT count]
void cmd_xrange(CommandContext& ctx) { xrange_generic(ctx, false); }
// XREVRANGE key end start [COUNT count]
void cmd_xrevrange(CommandContext& ctx) { xrange_generic(ctx, true); }

// XLEN key
void cmd_xlen(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kStream);
  if (wrong_type) return;
  ctx.reply().integer(e ? static_cast<long long>(e->value.as_stream().length()) : 0);
}

// XDEL key id [id ...]
void cmd_xdel(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kStream);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().integer(0);
    return;
  }
  // Every id is checked before any is deleted, so a bad id leaves the stream untouched.
  std::vector<store::StreamId> ids(ctx.argc() - 2);
  for (std::size_t j = 2; j < ctx.argc(); ++j)
    if (!parse_stream_id_or_reply(ctx, ctx.arg(j), ids[j - 2], 0, true)) return;
  store::StreamValue& s = e->value.as_stream();
  long long deleted = 0;
  for (const auto id : ids)
    if (s.erase(id)) ++deleted;
  if (deleted) {
    ctx.notify(config::kNotifyStream, "xdel", ctx.arg(1));
    ctx.mark_dirty(deleted);
  }
  ctx.reply().integer(deleted);
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
void cmd_xtrim(CommandContext& ctx) {
  StreamAddTrimArgs a;
  if (!parse_add_trim_args(ctx, false, a)) return;
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kStream);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().integer(0);
    return;
  }
  store::StreamValue& s = e->value.as_stream();
  const std::int64_t deleted = s.trim(a.trim);
  if (deleted) {
    ctx.notify(config::kNotifyStream, "xtrim", ctx.arg(1));
    ctx.mark_dirty(deleted);
    if (ctx.effects_wanted()) propagate(ctx, trim_effect(ctx, a, s));
  }
  ctx.reply().integer(deleted);
}

}  // namespace

void register_stream_commands(CommandTable& table) {
  CommandFamily t = table.family("stream");
  t.add("xadd", -5, kWrite | kDenyOom | kFast | kOwnEffect, kFirstKey, &cmd_xadd, "5.0.0",
        "Appends a new entry to a stream");
  t.add("xrange", -4, kReadonly, kFirstKey, &cmd_xrange, "5.0.0",
        "Return a range of elements in a stream, with IDs matching the specified IDs interval");
  t.add("xrevrange", -4, kReadonly, kFirstKey, &cmd_xrevrange, "5.0.0",
        "Return a range of elements in a stream, with IDs matching the specified IDs interval, "
        "in reverse order (from greater to smaller IDs) compared to XRANGE");
  t.add("xlen", 2, kReadonly | kFast, kFirstKey, &cmd_xlen, "5.0.0",
        "Return the number of entries in a stream");
  t.add("xdel", -3, kWrite | kFast, kFirstKey, &cmd_xdel, "5.0.0",
        "Removes the specified entries from the stream. Returns the number of items actually "
        "deleted, that may be different from the number of IDs passed in case certain IDs do "
        "not exist.");
  t.add("xtrim", -4, kWrite | kOwnEffect, kFirstKey, &cmd_xtrim, "5.0.0",
        "Trims the stream to (approximately if '~' is passed) a certain size");
}

}  // namespace listd::server
