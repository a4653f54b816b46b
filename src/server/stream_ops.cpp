#include "listd/server/stream_ops.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"

namespace listd::server {
namespace {

// Redis string2ull: string2ll, else strtoull over the whole (NUL-terminated) text.
bool string_to_ull(const char* s, std::uint64_t& out) noexcept {
  long long ll = 0;
  if (base::parse_strict_integer(std::string_view(s, std::strlen(s)), ll)) {
    if (ll < 0) return false;
    out = static_cast<std::uint64_t>(ll);
    return true;
  }
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (errno == EINVAL || errno == ERANGE || *s == '\0' || *end != '\0') return false;
  out = v;
  return true;
}

constexpr std::string_view kBothStrategiesErr =
    "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";

// MAXLEN / MINID [=|~] <arg> at argv[i]; advances i to the argument.
bool parse_strategy(CommandContext& ctx, std::size_t& i, StreamAddTrimArgs& out) {
  const bool maxlen = base::iequals(ctx.arg(i), "maxlen");
  if (out.trim.strategy != store::StreamTrim::Strategy::kNone) {
    ctx.reply().error(kBothStrategiesErr);
    return false;
  }
  out.trim.approx = false;
  const std::size_t more = ctx.argc() - 1 - i;
  const std::string_view next = ctx.arg(i + 1);
  if (more >= 2 && next == "~") {
    out.trim.approx = true;
    ++i;
  } else if (more >= 2 && next == "=") {
    ++i;
  }
  if (maxlen) {
    if (!ctx.parse_integer(i + 1, out.trim.maxlen)) return false;
    if (out.trim.maxlen < 0) {
      ctx.reply().error("ERR The MAXLEN argument must be >= 0.");
      return false;
    }
  } else if (!parse_stream_id_or_reply(ctx, ctx.arg(i + 1), out.trim.minid, 0, true)) {
    return false;
  }
  ++i;
  out.trim.strategy =
      maxlen ? store::StreamTrim::Strategy::kMaxLen : store::StreamTrim::Strategy::kMinId;
  out.trim_arg = i;
  return true;
}

// The LIMIT rules after the options (Redis: LIMIT only with `~`; `~` alone caps the work at
// 100 nodes of stream-node-max-entries).
bool finish_limit(CommandContext& ctx, bool xadd, bool limit_given, StreamAddTrimArgs& out) {
  using Strategy = store::StreamTrim::Strategy;
  if (out.trim.limit && out.trim.strategy == Strategy::kNone) {
    ctx.reply().error(
        "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return false;
  }
  if (!xadd && out.trim.strategy == Strategy::kNone) {
    ctx.reply().error("ERR syntax error, XTRIM must be called with a trimming strategy");
    return false;
  }
  if (limit_given) {
    if (!out.trim.approx) {
      ctx.reply().error("ERR syntax error, LIMIT cannot be used without the special ~ option");
      return false;
    }
  } else {
    // At most 100 nodes' worth per approximate trim, capped both ways as Redis does.
    const long long entries = ctx.exec().config().settings().stream_node_max_entries;
    long long limit = entries > 10000 ? 1000000 : 100 * entries;
    if (limit <= 0) limit = 10000;
    out.trim.limit = out.trim.approx ? limit : 0;
  }
  return true;
}

}  // namespace

bool parse_stream_id(std::string_view text, store::StreamId& id, std::uint64_t missing_seq,
                     bool strict, bool* seq_given) noexcept {
  char buf[128];
  if (text.size() > sizeof buf - 1) return false;
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  if (strict && (buf[0] == '-' || buf[0] == '+') && buf[1] == '\0') return false;
  if (seq_given) *seq_given = true;
  if (buf[0] == '-' && buf[1] == '\0') {
    id = {};
    return true;
  }
  if (buf[0] == '+' && buf[1] == '\0') {
    id = store::StreamId::max();
    return true;
  }
  char* dash = std::strchr(buf, '-');
  if (dash) *dash = '\0';
  std::uint64_t ms = 0;
  std::uint64_t seq = missing_seq;
  if (!string_to_ull(buf, ms)) return false;
  if (dash) {
    if (seq_given && dash[1] == '*' && dash[2] == '\0') {
      seq = 0;
      *seq_given = false;
    } else if (!string_to_ull(dash + 1, seq)) {
      return false;
    }
  }
  id = {ms, seq};
  return true;
}

bool parse_stream_id_or_reply(CommandContext& ctx, std::string_view text, store::StreamId& id,
                              std::uint64_t missing_seq, bool strict, bool* seq_given) {
  if (parse_stream_id(text, id, missing_seq, strict, seq_given)) return true;
  ctx.reply().error(kInvalidStreamIdErr);
  return false;
}

bool parse_add_trim_args(CommandContext& ctx, bool xadd, StreamAddTrimArgs& out) {
  out = StreamAddTrimArgs{};
  bool limit_given = false;
  std::size_t i = 2;
  for (; i < ctx.argc(); ++i) {
    const std::size_t more = ctx.argc() - 1 - i;
    const std::string_view opt = ctx.arg(i);
    if (xadd && opt == "*") break;
    if ((base::iequals(opt, "maxlen") || base::iequals(opt, "minid")) && more) {
      if (!parse_strategy(ctx, i, out)) return false;
    } else if (base::iequals(opt, "limit") && more) {
      if (!ctx.parse_integer(i + 1, out.trim.limit)) return false;
      if (out.trim.limit < 0) {
        ctx.reply().error("ERR The LIMIT argument must be >= 0.");
        return false;
      }
      limit_given = true;
      ++i;
    } else if (xadd && base::iequals(opt, "nomkstream")) {
      out.no_mkstream = true;
    } else if (xadd) {
      if (!parse_stream_id_or_reply(ctx, opt, out.id, 0, true, &out.seq_given)) return false;
      out.id_given = true;
      break;
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  out.id_pos = i;
  return finish_limit(ctx, xadd, limit_given, out);
}

bool parse_interval_id_or_reply(CommandContext& ctx, std::string_view text, bool start,
                                store::StreamId& id) {
  const bool exclusive = text.size() > 1 && text[0] == '(';
  const std::uint64_t missing_seq = start ? 0 : UINT64_MAX;
  if (exclusive) {
    if (!parse_stream_id_or_reply(ctx, text.substr(1), id, missing_seq, true)) return false;
    if (!(start ? id.increment() : id.decrement())) {
      ctx.reply().error(start ? "ERR invalid start ID for the interval"
                              : "ERR invalid end ID for the interval");
      return false;
    }
    return true;
  }
  return parse_stream_id_or_reply(ctx, text, id, missing_seq, false);
}

void reply_stream_id(protocol::ReplyWriter r, store::StreamId id) {
  // to_chars, not snprintf: this is every entry of every read reply (snprintf was 9 % of
  // listd's CPU under XADD).
  char buf[48];
  char* end = std::to_chars(buf, buf + 20, id.ms).ptr;
  *end++ = '-';
  end = std::to_chars(end, end + 20, id.seq).ptr;
  r.bulk(std::string_view(buf, static_cast<std::size_t>(end - buf)));
}

void reply_stream_entry(protocol::ReplyWriter r, const store::StreamIterator& it) {
  r.array_header(2);
  reply_stream_id(r, it.id());
  r.array_header(2 * it.field_count());
  it.for_each_field([&](std::string_view f, std::string_view v) {
    r.bulk(f);
    r.bulk(v);
  });
}

std::size_t reply_stream_range(protocol::ReplyWriter r, const store::StreamValue& s,
                               store::StreamId start, store::StreamId end, std::size_t count,
                               bool rev) {
  // The array's length comes first in RESP: count, then write (Redis defers the header).
  std::size_t n = 0;
  for (store::StreamIterator it(s, start, end, rev); (count == 0 || n < count) && it.next();) ++n;
  r.array_header(n);
  store::StreamIterator it(s, start, end, rev);
  for (std::size_t i = 0; i < n && it.next(); ++i) reply_stream_entry(r, it);
  return n;
}

}  // namespace listd::server
