// List commands (non-blocking): LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LLEN, LRANGE,
// LINDEX, LSET, LINSERT, LREM, LTRIM, LPOS, RPOPLPUSH, LMOVE, LMPOP.
//
// Each handler follows Redis 7.0.15 t_list.c step by step, because the order of the checks is
// visible on the wire: e.g. LRANGE parses its indexes before the key lookup, LINDEX after it;
// LPOP parses its count first. Pushes, pops and the LMOVE move go through list_ops.h, shared
// with the blocking commands; LEFT|RIGHT and the LMPOP grammar through command_args.h. An
// emptied list is deleted (list_ops), a list is created only by list_push (which wakes
// blocked clients).
#include <climits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "listd/base/number.h"
#include "listd/server/command_args.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/list_ops.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// Redis 7.0 texts used only by this family (lposCommand).
constexpr std::string_view kRankZeroErr =
    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use "
    "negative to start from the end of the list";
constexpr std::string_view kCountNegativeErr = "ERR COUNT can't be negative";
constexpr std::string_view kMaxlenNegativeErr = "ERR MAXLEN can't be negative";

using store::PackedList;
using store::ValueType;

// Redis getRangeLongFromObjectOrReply(min, LONG_MAX, msg): one message for "not an integer"
// and "too small".
bool parse_at_least(CommandContext& ctx, std::size_t i, long long min, long long& out,
                    std::string_view err) {
  if (base::parse_strict_integer(ctx.arg(i), out) && out >= min) return true;
  ctx.reply().error(err);
  return false;
}

// Resolves a possibly negative index against `len`; false when outside [0, len).
bool resolve_index(long long index, std::size_t len, std::size_t& out) {
  const auto n = static_cast<long long>(len);
  if (index < 0) index += n;
  if (index < 0 || index >= n) return false;
  out = static_cast<std::size_t>(index);
  return true;
}

// LRANGE/LTRIM range rule: negative from the end, start clamped to 0, end to len - 1.
// False when the range is empty.
bool resolve_range(long long start, long long end, std::size_t len, std::size_t& from,
                   std::size_t& to) {
  const auto n = static_cast<long long>(len);
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  if (start > end || start >= n) return false;
  if (end >= n) end = n - 1;
  from = static_cast<std::size_t>(start);
  to = static_cast<std::size_t>(end);
  return true;
}

/// LPUSH/RPUSH/LPUSHX/RPUSHX: key element [element ...]. Redis pushGenericCommand.
void push_generic(CommandContext& ctx, End end, bool only_if_exists) {
  const std::string_view key = ctx.arg(1);
  auto [e, wrong_type] = ctx.write(key, ValueType::kList);
  if (wrong_type) return;
  if (!e && only_if_exists) {
    ctx.reply().integer(0);
    return;
  }
  const std::size_t len = list_push(ctx.exec(), ctx.db(), key, e, end, ctx.argv().subspan(2));
  ctx.reply().integer(static_cast<long long>(len));
  notify_push(ctx.exec(), ctx.db().index(), key, end);
  ctx.mark_dirty(static_cast<long long>(ctx.argc() - 2));
}

/// LPOP/RPOP: key [count]. Redis popGenericCommand: the count is parsed before the lookup;
/// a missing key is `$-1` without a count and a null array with one; count 0 on an existing
/// list is an empty array.
void pop_generic(CommandContext& ctx, End end) {
  // Arity -2 lets `LPOP k 1 2` through; Redis rejects it in the handler with the arity text.
  if (ctx.argc() > 3) {
    ctx.reply().error(arity_error(ctx.spec().full_name));
    return;
  }
  const bool has_count = ctx.argc() == 3;
  long long count = 0;
  if (has_count && !parse_at_least(ctx, 2, 0, count, kMustBePositiveErr)) return;
  auto [e, wrong_type] = ctx.write(ctx.arg(1), ValueType::kList);
  if (wrong_type) return;
  if (!e) {
    if (has_count)
      ctx.reply().null_array();
    else
      ctx.reply().null();
    return;
  }
  if (!has_count) {
    list_pop_one_reply(ctx.reply(), ctx.exec(), ctx.db(), e, end);
    ctx.mark_dirty(1);
    return;
  }
  if (count == 0) {
    ctx.reply().array_header(0);
    return;
  }
  const std::size_t n =
      list_pop_reply(ctx.reply(), ctx.exec(), ctx.db(), e, end, static_cast<std::size_t>(count));
  ctx.mark_dirty(static_cast<long long>(n));
}

/// LMOVE/RPOPLPUSH once the directions are known: source argv[1], destination argv[2].
/// Redis lmoveGenericCommand: a missing source answers nil before the destination is looked
/// at; a wrong-typed destination is WRONGTYPE before anything is popped.
void lmove_generic(CommandContext& ctx, End from, End to) {
  const std::string_view src = ctx.arg(1);
  const std::string_view dst = ctx.arg(2);
  auto [s, s_wrong_type] = ctx.write(src, ValueType::kList);
  if (s_wrong_type) return;
  if (!s) {
    ctx.reply().null();
    return;
  }
  auto [d, d_wrong_type] = ctx.write(dst, ValueType::kList);
  if (d_wrong_type) return;
  list_move(ctx.reply(), ctx.exec(), ctx.db(), s, dst, d, from, to);
  ctx.mark_dirty(1);
}

// LPUSH key element [element ...]
void cmd_lpush(CommandContext& ctx) { push_generic(ctx, End::kHead, false); }

// RPUSH key element [element ...]
void cmd_rpush(CommandContext& ctx) { push_generic(ctx, End::kTail, false); }

// LPUSHX key element [element ...]
void cmd_lpushx(CommandContext& ctx) { push_generic(ctx, End::kHead, true); }

// RPUSHX key element [element ...]
void cmd_rpushx(CommandContext& ctx) { push_generic(ctx, End::kTail, true); }

// LPOP key [count]
void cmd_lpop(CommandContext& ctx) { pop_generic(ctx, End::kHead); }

// RPOP key [count]
void cmd_rpop(CommandContext& ctx) { pop_generic(ctx, End::kTail); }

// LLEN key
void cmd_llen(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), ValueType::kList);
  if (wrong_type) return;
  ctx.reply().integer(e ? static_cast<long long>(e->value.as_list().size()) : 0);
}

// LRANGE key start stop
void cmd_lrange(CommandContext& ctx) {
  long long start = 0, stop = 0;
  if (!ctx.parse_integer(2, start) || !ctx.parse_integer(3, stop)) return;
  auto [e, wrong_type] = ctx.read(ctx.arg(1), ValueType::kList);
  if (wrong_type) return;
  std::size_t from = 0, to = 0;
  if (!e || !resolve_range(start, stop, e->value.as_list().size(), from, to)) {
    ctx.reply().array_header(0);
    return;
  }
  protocol::ReplyWriter reply = ctx.reply();
  reply.array_header(to - from + 1);
  e->value.as_list().for_each_in_range(from, to, [&](std::string_view v) { reply.bulk(v); });
}

// LINDEX key index
void cmd_lindex(CommandContext& ctx) {
  // Redis 7.0 looks the key up first: `LINDEX nokey x` is nil, not an integer error.
  auto [e, wrong_type] = ctx.read(ctx.arg(1), ValueType::kList);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().null();
    return;
  }
  long long index = 0;
  if (!ctx.parse_integer(2, index)) return;
  const PackedList& list = e->value.as_list();
  std::size_t i = 0;
  if (resolve_index(index, list.size(), i))
    ctx.reply().bulk(list.at(i));
  else
    ctx.reply().null();
}

// LSET key index element
void cmd_lset(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.write(ctx.arg(1), ValueType::kList);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().error(kNoSuchKeyErr);
    return;
  }
  long long index = 0;
  if (!ctx.parse_integer(2, index)) return;
  PackedList& list = e->value.as_list();
  std::size_t i = 0;
  if (!resolve_index(index, list.size(), i)) {
    ctx.reply().error(kIndexOutOfRangeErr);
    return;
  }
  list.set(i, ctx.arg(3));
  ctx.reply().ok();
  ctx.notify(config::kNotifyList, "lset", ctx.arg(1));
  ctx.mark_dirty(1);
}

// LINSERT key BEFORE|AFTER pivot element
void cmd_linsert(CommandContext& ctx) {
  bool after = false;
  if (base::iequals(ctx.arg(2), "after")) {
    after = true;
  } else if (!base::iequals(ctx.arg(2), "before")) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  auto [e, wrong_type] = ctx.write(ctx.arg(1), ValueType::kList);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().integer(0);
    return;
  }
  PackedList& list = e->value.as_list();
  if (!list.insert_at_pivot(ctx.arg(3), ctx.arg(4), after)) {
    ctx.reply().integer(-1);
    return;
  }
  ctx.notify(config::kNotifyList, "linsert", ctx.arg(1));
  ctx.reply().integer(static_cast<long long>(list.size()));
  ctx.mark_dirty(1);
}

// LREM key count element
void cmd_lrem(CommandContext& ctx) {
  long long count = 0;
  if (!ctx.parse_integer(2, count)) return;
  const std::string_view key = ctx.arg(1);
  auto [e, wrong_type] = ctx.write(key, ValueType::kList);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().integer(0);
    return;
  }
  const std::size_t removed = e->value.as_list().remove(ctx.arg(3), count);
  if (removed != 0) ctx.notify(config::kNotifyList, "lrem", key);
  if (e->value.as_list().empty()) {
    ctx.notify(config::kNotifyGeneric, "del", key);
    ctx.delete_key(key);
  }
  ctx.reply().integer(static_cast<long long>(removed));
  ctx.mark_dirty(static_cast<long long>(removed));
}

// LTRIM key start stop
void cmd_ltrim(CommandContext& ctx) {
  long long start = 0, stop = 0;
  if (!ctx.parse_integer(2, start) || !ctx.parse_integer(3, stop)) return;
  const std::string_view key = ctx.arg(1);
  auto [e, wrong_type] = ctx.write(key, ValueType::kList);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().ok();
    return;
  }
  PackedList& list = e->value.as_list();
  const std::size_t len = list.size();
  std::size_t from = 0, to = 0;
  std::size_t removed = len;
  if (resolve_range(start, stop, len, from, to)) {
    removed = len - (to - from + 1);
    if (removed != 0) list.keep_range(from, to);
  }
  ctx.notify(config::kNotifyList, "ltrim", key);  // Redis: even when nothing was trimmed
  if (removed == len) {
    ctx.notify(config::kNotifyGeneric, "del", key);
    ctx.delete_key(key);
  }
  ctx.reply().ok();
  if (removed != 0)
    ctx.mark_dirty(static_cast<long long>(removed));
  else
    // Redis signals the key as modified even when nothing was trimmed (a WATCH on it fails),
    // while its dirty counter grows by the number removed, here 0.
    ctx.exec().touch_key(ctx.db().index(), key);
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
void cmd_lpos(CommandContext& ctx) {
  long long rank = 1, count = -1, maxlen = 0;  // count -1: no COUNT option
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.arg(j);
    const bool more = j + 1 < ctx.argc();
    if (base::iequals(opt, "rank") && more) {
      if (!ctx.parse_integer(++j, rank)) return;
      if (rank == 0) {
        ctx.reply().error(kRankZeroErr);
        return;
      }
    } else if (base::iequals(opt, "count") && more) {
      if (!parse_at_least(ctx, ++j, 0, count, kCountNegativeErr)) return;
    } else if (base::iequals(opt, "maxlen") && more) {
      if (!parse_at_least(ctx, ++j, 0, maxlen, kMaxlenNegativeErr)) return;
    } else {
      ctx.reply().error(kSyntaxErr);
      return;
    }
  }
  auto [e, wrong_type] = ctx.read(ctx.arg(1), ValueType::kList);
  if (wrong_type) return;
  if (!e) {
    if (count != -1)
      ctx.reply().array_header(0);
    else
      ctx.reply().null();
    return;
  }

  // Redis 7.0.15 negates a negative rank in a C long: RANK -9223372036854775808 stays
  // LLONG_MIN, every match then satisfies `matches >= rank` and `matches - rank + 1 >= count`
  // wraps negative, so it behaves as RANK -1 that never stops at COUNT. Reproduced here with
  // wrapping (unsigned) arithmetic instead of the undefined overflow.
  const bool forward = rank > 0;
  if (!forward && rank != LLONG_MIN) rank = -rank;
  const auto reached_count = [&](long long matches) {
    const auto span = static_cast<long long>(static_cast<unsigned long long>(matches) -
                                             static_cast<unsigned long long>(rank) + 1ull);
    return count != 0 && span >= count;
  };

  const std::string_view element = ctx.arg(2);
  std::vector<long long> found;
  long long first = -1;
  long long scanned = 0, matches = 0;
  const auto visit = [&](std::size_t index, std::string_view v) {
    if (maxlen != 0 && scanned >= maxlen) return false;
    ++scanned;
    if (v != element || ++matches < rank) return true;
    if (count == -1) {
      first = static_cast<long long>(index);
      return false;
    }
    found.push_back(static_cast<long long>(index));
    return !reached_count(matches);
  };
  const PackedList& list = e->value.as_list();
  if (forward)
    list.scan_forward(visit);
  else
    list.scan_backward(visit);

  protocol::ReplyWriter reply = ctx.reply();
  if (count == -1) {
    if (first >= 0)
      reply.integer(first);
    else
      reply.null();
    return;
  }
  reply.array_header(found.size());
  for (long long i : found) reply.integer(i);
}

// RPOPLPUSH source destination
void cmd_rpoplpush(CommandContext& ctx) { lmove_generic(ctx, End::kTail, End::kHead); }

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT
void cmd_lmove(CommandContext& ctx) {
  End from = End::kHead, to = End::kHead;
  if (!parse_end(ctx, 3, from) || !parse_end(ctx, 4, to)) return;
  lmove_generic(ctx, from, to);
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]
void cmd_lmpop(CommandContext& ctx) {
  const std::optional<MpopArgs> args = parse_mpop_args(ctx, 1, kListEnds);
  if (!args) return;
  for (std::string_view key : args->keys) {
    auto [e, wrong_type] = ctx.write(key, ValueType::kList);
    if (wrong_type) return;
    if (!e) continue;
    protocol::ReplyWriter reply = ctx.reply();
    reply.array_header(2);
    reply.bulk(key);
    const std::size_t n = list_pop_reply(reply, ctx.exec(), ctx.db(), e, args->where,
                                         static_cast<std::size_t>(args->count));
    ctx.mark_dirty(static_cast<long long>(n));
    ctx.changed_key(key);  // WATCH: only the popped key changed (Redis 7.0)
    emit_list_pop(ctx.exec(), ctx.db().index(), key, args->where, true, n);  // Redis: LPOP key n
    return;
  }
  ctx.reply().null_array();
}

}  // namespace

void register_list_commands(CommandTable& table) {
  CommandFamily t = table.family("list");
  t.add("lpush", -3, kWrite | kDenyOom | kFast, kFirstKey, &cmd_lpush, "1.0.0",
        "Prepend one or multiple elements to a list");
  t.add("rpush", -3, kWrite | kDenyOom | kFast, kFirstKey, &cmd_rpush, "1.0.0",
        "Append one or multiple elements to a list");
  t.add("lpushx", -3, kWrite | kDenyOom | kFast, kFirstKey, &cmd_lpushx, "2.2.0",
        "Prepend an element to a list, only if the list exists");
  t.add("rpushx", -3, kWrite | kDenyOom | kFast, kFirstKey, &cmd_rpushx, "2.2.0",
        "Append an element to a list, only if the list exists");
  t.add("lpop", -2, kWrite | kFast, kFirstKey, &cmd_lpop, "1.0.0",
        "Remove and get the first elements in a list");
  t.add("rpop", -2, kWrite | kFast, kFirstKey, &cmd_rpop, "1.0.0",
        "Remove and get the last elements in a list");
  t.add("llen", 2, kReadonly | kFast, kFirstKey, &cmd_llen, "1.0.0", "Get the length of a list");
  t.add("lrange", 4, kReadonly, kFirstKey, &cmd_lrange, "1.0.0",
        "Get a range of elements from a list");
  t.add("lindex", 3, kReadonly, kFirstKey, &cmd_lindex, "1.0.0",
        "Get an element from a list by its index");
  t.add("lset", 4, kWrite | kDenyOom, kFirstKey, &cmd_lset, "1.0.0",
        "Set the value of an element in a list by its index");
  t.add("linsert", 5, kWrite | kDenyOom, kFirstKey, &cmd_linsert, "2.2.0",
        "Insert an element before or after another element in a list");
  t.add("lrem", 4, kWrite, kFirstKey, &cmd_lrem, "1.0.0", "Remove elements from a list");
  t.add("ltrim", 4, kWrite, kFirstKey, &cmd_ltrim, "1.0.0", "Trim a list to the specified range");
  t.add("lpos", -3, kReadonly, kFirstKey, &cmd_lpos, "6.0.6",
        "Return the index of matching elements on a list");
  t.add("rpoplpush", 3, kWrite | kDenyOom, kFirstTwoKeys, &cmd_rpoplpush, "1.2.0",
        "Remove the last element in a list, prepend it to another list and return it");
  t.add("lmove", 5, kWrite | kDenyOom, kFirstTwoKeys, &cmd_lmove, "6.2.0",
        "Pop an element from a list, push it to another list and return it");
  t.add("lmpop", -4, kWrite | kOwnEffect, KeySpec::numkeys(1), &cmd_lmpop, "7.0.0",
        "Pop elements from a list");
}

}  // namespace listd::server
