#include "listd/server/zset_range.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/errors.h"

namespace listd::server {
namespace {

constexpr std::string_view kScoreRangeErr = "ERR min or max is not a float";
constexpr std::string_view kLexRangeErr = "ERR min or max not valid string range item";

}  // namespace

void reply_scored_members(protocol::ReplyWriter r, const std::vector<ScoredMember>& items,
                          bool withscores) {
  r.array_header(withscores && !r.resp3() ? items.size() * 2 : items.size());
  for (const ScoredMember& it : items) {
    if (withscores && r.resp3()) r.array_header(2);
    r.bulk(it.member);
    if (withscores) r.double_value(it.score);
  }
}

bool parse_score_bound(std::string_view text, double& v, bool& ex) {
  const std::string buf(text);
  const char* p = buf.c_str();
  ex = *p == '(';
  if (ex) ++p;
  char* end = nullptr;
  v = std::strtod(p, &end);
  return *end == '\0' && !std::isnan(v);
}

bool parse_score_range(CommandContext& ctx, std::size_t min_i, std::size_t max_i, ScoreRange& r) {
  if (!parse_score_bound(ctx.arg(min_i), r.min, r.minex) ||
      !parse_score_bound(ctx.arg(max_i), r.max, r.maxex)) {
    ctx.reply().error(kScoreRangeErr);
    return false;
  }
  return true;
}

bool parse_lex_bound(std::string_view s, LexBound& b) {
  if (s.empty()) return false;
  switch (s[0]) {
    case '+':
    case '-':
      if (s.size() > 1 && s[1] != '\0') return false;
      b = {s[0] == '+' ? LexBound::Kind::kMax : LexBound::Kind::kMin, {}, true};
      return true;
    case '(':
    case '[': b = {LexBound::Kind::kValue, s.substr(1), s[0] == '('}; return true;
    default: return false;
  }
}

int lex_cmp(std::string_view member, const LexBound& b) noexcept {
  if (b.kind == LexBound::Kind::kMin) return 1;
  if (b.kind == LexBound::Kind::kMax) return -1;
  return member.compare(b.value);
}

bool parse_lex_range(CommandContext& ctx, std::size_t min_i, std::size_t max_i, LexRange& r) {
  if (!parse_lex_bound(ctx.arg(min_i), r.min) || !parse_lex_bound(ctx.arg(max_i), r.max)) {
    ctx.reply().error(kLexRangeErr);
    return false;
  }
  return true;
}

bool resolve_rank_range(long long start, long long end, std::size_t len, std::size_t& from,
                        std::size_t& to) {
  const auto llen = static_cast<long long>(len);
  if (start < 0) start += llen;
  if (end < 0) end += llen;
  if (start < 0) start = 0;
  if (start > end || start >= llen) return false;
  if (end >= llen) end = llen - 1;
  from = static_cast<std::size_t>(start);
  to = static_cast<std::size_t>(end);
  return true;
}

void collect_by_rank(const store::ZSetValue& z, std::size_t from, std::size_t to, bool rev,
                     std::vector<ScoredMember>& out) {
  std::size_t n = to - from + 1;
  store::ZCursor c = z.at_rank(rev ? z.size() - 1 - from : from);
  for (; c.valid() && n-- > 0; rev ? c.prev() : c.next()) out.push_back({c.member(), c.score()});
}

void collect_by_bounds(const store::ZSetValue& z, const RangeBounds& b, bool rev, long long offset,
                       long long limit, std::vector<ScoredMember>& out) {
  // A negative offset makes Redis walk off the end: nothing.
  if (offset < 0 || (offset > 0 && static_cast<unsigned long long>(offset) >= z.size())) return;
  store::ZCursor c;
  const auto skip = static_cast<std::size_t>(offset);
  if (!rev) {
    const std::size_t first = b.first(z);
    c = z.at_rank(first);
    if (!c.valid() || !b.lte_max(c.score(), c.member())) return;
    // Jump over the offset by rank (O(log N)) where Redis steps through it.
    if (skip > 0) c = z.at_rank(first + skip);
  } else {
    const std::size_t end = b.end(z);
    if (end == 0) return;
    c = z.at_rank(end - 1);
    if (!b.gte_min(c.score(), c.member())) return;
    if (skip > 0) {
      if (skip >= end) return;
      c = z.at_rank(end - 1 - skip);
    }
  }
  for (; c.valid() && limit-- != 0; rev ? c.prev() : c.next()) {
    if (rev ? !b.gte_min(c.score(), c.member()) : !b.lte_max(c.score(), c.member())) break;
    out.push_back({c.member(), c.score()});
  }
}

std::size_t count_in(const store::ZSetValue& z, const RangeBounds& b) {
  const std::size_t lo = b.first(z);
  store::ZCursor c = z.at_rank(lo);
  if (!c.valid() || !b.lte_max(c.score(), c.member())) return 0;
  const std::size_t hi = b.end(z);
  return hi > lo ? hi - lo : 0;
}

namespace {

using RangeType = ZRangeRequest::Type;
using Direction = ZRangeRequest::Direction;

/// The option words after the range; false after replying the error.
bool parse_zrange_options(CommandContext& ctx, std::size_t from, bool store, ZRangeRequest& req) {
  for (std::size_t j = from; j < ctx.argc(); ++j) {
    const std::string_view a = ctx.arg(j);
    const std::size_t left = ctx.argc() - j - 1;
    if (!store && base::iequals(a, "withscores")) {
      req.withscores = true;
    } else if (base::iequals(a, "limit") && left >= 2) {
      if (!ctx.parse_integer(j + 1, req.offset) || !ctx.parse_integer(j + 2, req.limit))
        return false;
      j += 2;
    } else if (req.dir == Direction::kAuto && base::iequals(a, "rev")) {
      req.dir = Direction::kReverse;
    } else if (req.type == RangeType::kAuto && base::iequals(a, "bylex")) {
      req.type = RangeType::kLex;
    } else if (req.type == RangeType::kAuto && base::iequals(a, "byscore")) {
      req.type = RangeType::kScore;
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  return true;
}

}  // namespace

bool parse_zrange_request(CommandContext& ctx, std::size_t key_at, bool store, ZRangeRequest& req) {
  if (!parse_zrange_options(ctx, key_at + 3, store, req)) return false;
  if (req.dir == Direction::kAuto) req.dir = Direction::kForward;
  if (req.type == RangeType::kAuto) req.type = RangeType::kRank;
  // Redis only rejects a LIMIT whose count is not -1 here (LIMIT 0 -1 passes for ranks).
  if (req.limit != -1 && req.type == RangeType::kRank) {
    ctx.reply().error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    return false;
  }
  if (req.withscores && req.type == RangeType::kLex) {
    ctx.reply().error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    return false;
  }
  std::size_t minidx = key_at + 1, maxidx = key_at + 2;
  if (req.dir == Direction::kReverse && req.type != RangeType::kRank)
    std::swap(minidx, maxidx);  // given as max min
  switch (req.type) {
    case RangeType::kScore: return parse_score_range(ctx, minidx, maxidx, req.score);
    case RangeType::kLex: return parse_lex_range(ctx, minidx, maxidx, req.lex);
    default: return ctx.parse_integer(minidx, req.start) && ctx.parse_integer(maxidx, req.end);
  }
}

void collect_zrange(const store::ZSetValue& z, const ZRangeRequest& req,
                    std::vector<ScoredMember>& out) {
  const bool rev = req.dir == Direction::kReverse;
  if (req.type == RangeType::kRank) {
    std::size_t from = 0, to = 0;
    if (resolve_rank_range(req.start, req.end, z.size(), from, to))
      collect_by_rank(z, from, to, rev, out);
    return;
  }
  const RangeBounds b{req.type == RangeType::kScore ? &req.score : nullptr,
                      req.type == RangeType::kLex ? &req.lex : nullptr};
  collect_by_bounds(z, b, rev, req.offset, req.limit, out);
}

}  // namespace listd::server
