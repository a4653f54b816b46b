// ZRANDMEMBER: random members of a sorted set, as Redis 7.0.15 zrandmemberCommand.
//
// Check order: the count (within +-LONG_MAX), the syntax, WITHSCORES' half range, then the key.
// A negative count draws with repetition (that many elements, in draw order); a positive one
// gives distinct members: the whole set when it asks for as many or more (highest first), else a
// random subset of exactly that size. Draws come from the executor's generator, so replies are
// random as Redis' are: tests compare them by property.
#include <climits>
#include <random>
#include <unordered_set>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/zset_range.h"

namespace listd::server {
namespace {

ScoredMember random_element(const store::ZSetValue& z, std::mt19937_64& rng) {
  const store::ZCursor c = z.at_rank(rng() % z.size());
  return {c.member(), c.score()};
}

/// `count` (> 0) distinct members of `z`, fewer than its size: Redis' CASE 3 (most of the set:
/// drop random ones) and CASE 4 (few: draw and skip repeats) give the same distribution.
std::vector<ScoredMember> distinct_sample(const store::ZSetValue& z, std::size_t count,
                                          std::mt19937_64& rng) {
  std::vector<ScoredMember> picked;
  if (count * 3 > z.size()) {
    z.for_each([&](std::string_view m, double s) { picked.push_back({m, s}); });
    for (std::size_t i = 0; i < count; ++i)
      std::swap(picked[i], picked[i + rng() % (picked.size() - i)]);
    picked.resize(count);
    return picked;
  }
  std::unordered_set<std::string_view> seen;
  while (picked.size() < count) {
    const ScoredMember m = random_element(z, rng);
    if (seen.insert(m.member).second) picked.push_back(m);
  }
  return picked;
}

void reply_with_count(CommandContext& ctx, long long l, bool withscores) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  if (!e || l == 0) {
    ctx.reply().array_header(0);
    return;
  }
  const store::ZSetValue& z = e->value.as_zset();
  std::mt19937_64& rng = ctx.exec().rng();
  const auto count = static_cast<unsigned long long>(l < 0 ? -l : l);
  if (l < 0 || count == 1) {
    // With repetition, streamed: a large count needs no list of picks.
    auto r = ctx.reply();
    r.array_header(withscores && !r.resp3() ? count * 2 : count);
    for (unsigned long long i = 0; i < count; ++i) {
      const ScoredMember m = random_element(z, rng);
      if (withscores && r.resp3()) r.array_header(2);
      r.bulk(m.member);
      if (withscores) r.double_value(m.score);
    }
    return;
  }
  std::vector<ScoredMember> items;
  if (count >= z.size())  // the whole set, highest first: Redis' zuiNext walks from the tail
    for (store::ZCursor c = z.at_rank(z.size() - 1); c.valid(); c.prev())
      items.push_back({c.member(), c.score()});
  else
    items = distinct_sample(z, static_cast<std::size_t>(count), rng);
  reply_scored_members(ctx.reply(), items, withscores);
}

// ZRANDMEMBER key [count [WITHSCORES]]
void cmd_zrandmember(CommandContext& ctx) {
  if (ctx.argc() == 2) {
    auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
    if (wrong_type) return;
    if (e)
      ctx.reply().bulk(random_element(e->value.as_zset(), ctx.exec().rng()).member);
    else
      ctx.reply().null();
    return;
  }
  long long l = 0;
  if (!ctx.parse_integer(2, l)) return;
  if (l == LLONG_MIN) return ctx.reply().error(kCountRangeErr);
  if (ctx.argc() > 4 || (ctx.argc() == 4 && !base::iequals(ctx.arg(3), "withscores")))
    return ctx.reply().error(kSyntaxErr);
  const bool withscores = ctx.argc() == 4;
  if (withscores && (l < -LLONG_MAX / 2 || l > LLONG_MAX / 2))
    return ctx.reply().error(kOutOfRangeErr);
  reply_with_count(ctx, l, withscores);
}

}  // namespace

void register_zset_random_commands(CommandTable& table) {
  CommandFamily t = table.family("sorted-set");
  t.add("zrandmember", -2, kReadonly, kFirstKey, &cmd_zrandmember, "6.2.0",
        "Get one or multiple random elements from a sorted set");
}

}  // namespace listd::server
