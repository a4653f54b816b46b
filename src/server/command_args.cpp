#include "listd/server/command_args.h"

#include "listd/base/number.h"
#include "listd/server/command_context.h"
#include "listd/server/errors.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// Redis getRangeLongFromObjectOrReply(1, LONG_MAX, msg): one message for "not an integer" and
// "too small".
bool parse_positive(CommandContext& ctx, std::size_t i, long long& out, std::string_view err) {
  if (base::parse_strict_integer(ctx.arg(i), out) && out >= 1) return true;
  ctx.reply().error(err);
  return false;
}

bool parse_where(CommandContext& ctx, std::size_t i, MpopEnds ends, End& out) {
  if (base::iequals(ctx.arg(i), ends.head)) {
    out = End::kHead;
  } else if (base::iequals(ctx.arg(i), ends.tail)) {
    out = End::kTail;
  } else {
    ctx.reply().error(kSyntaxErr);
    return false;
  }
  return true;
}

}  // namespace

bool parse_end(CommandContext& ctx, std::size_t i, End& out) {
  return parse_where(ctx, i, kListEnds, out);
}

std::optional<MpopArgs> parse_mpop_args(CommandContext& ctx, std::size_t numkeys_at,
                                        MpopEnds ends) {
  long long numkeys = 0;
  if (!parse_positive(ctx, numkeys_at, numkeys, kNumkeysErr)) return std::nullopt;
  // WHERE must follow the keys (Redis: where_idx >= argc). Compared unsigned: numkeys may be
  // as large as LLONG_MAX.
  if (static_cast<unsigned long long>(numkeys) >= ctx.argc() - numkeys_at - 1) {
    ctx.reply().error(kSyntaxErr);
    return std::nullopt;
  }
  MpopArgs out;
  out.keys = ctx.argv().subspan(numkeys_at + 1, static_cast<std::size_t>(numkeys));
  const std::size_t where_at = numkeys_at + 1 + out.keys.size();
  if (!parse_where(ctx, where_at, ends, out.where)) return std::nullopt;
  bool has_count = false;
  for (std::size_t j = where_at + 1; j < ctx.argc(); ++j) {
    // COUNT may appear once; anything else (a second COUNT too) is a syntax error.
    if (!has_count && base::iequals(ctx.arg(j), "count") && j + 1 < ctx.argc()) {
      if (!parse_positive(ctx, ++j, out.count, kCountGreaterThanZeroErr)) return std::nullopt;
      has_count = true;
    } else {
      ctx.reply().error(kSyntaxErr);
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace listd::server
