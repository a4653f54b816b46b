// HyperLogLog commands: PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST (Redis 7.0 hyperloglog.c:
// the same checks, replies, events and dirty counts). The representation is
// store/hyperloglog.h; the value is an ordinary string, edited as Redis edits an unshared raw
// sds, so the key keeps its TTL.
#include <string>

#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/store/hyperloglog.h"

namespace listd::server {
namespace {

constexpr std::string_view kNotHllErr = "WRONGTYPE Key is not a valid HyperLogLog string value.";
constexpr std::string_view kCorruptHllErr = "INVALIDOBJ Corrupted HLL object detected";

std::size_t sparse_max_bytes(CommandContext& ctx) {
  return ctx.exec().config().settings().hll_sparse_max_bytes;
}

/// Redis isHLLObjectOrReply for a found entry: a string with a valid HLL header.
bool is_hll_or_reply(CommandContext& ctx, const store::Entry& e) {
  if (!e.value.is(store::ValueType::kString)) {
    ctx.reply().error(kWrongTypeErr);
    return false;
  }
  if (!store::hll::valid_header(e.value.as_string().view())) {
    ctx.reply().error(kNotHllErr);
    return false;
  }
  return true;
}

/// Stores edited HLL bytes back into the key's value (in place: TTL kept, "raw" as Redis).
void store_hll(store::Entry& e, const std::string& bytes) {
  e.value = store::Value::make_string(bytes, store::StringForm::kRaw);
}

// PFADD key [element [element ...]]
void cmd_pfadd(CommandContext& ctx) {
  store::Entry* e = ctx.write(ctx.arg(1));
  long long updated = 0;
  std::string hll;
  if (!e) {
    hll = store::hll::empty_hll();
    ++updated;
  } else {
    if (!is_hll_or_reply(ctx, *e)) return;
    hll = std::string(e->value.as_string().view());
  }
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    const store::hll::Update u = store::hll::add(hll, ctx.arg(j), sparse_max_bytes(ctx));
    if (u == store::hll::Update::kCorrupt) {
      // Redis edits the value in place: what the earlier elements changed stays.
      if (e) store_hll(*e, hll);
      ctx.reply().error(kCorruptHllErr);
      return;
    }
    if (u == store::hll::Update::kChanged) ++updated;
  }
  if (updated) {
    store::hll::invalidate_cache(hll.data());
    if (e)
      store_hll(*e, hll);
    else
      ctx.add_key(ctx.arg(1), store::Value::make_string(hll, store::StringForm::kRaw));
    ctx.notify(config::kNotifyString, "pfadd", ctx.arg(1));
    ctx.mark_dirty(updated);
  }
  ctx.reply().integer(updated ? 1 : 0);
}

/// PFCOUNT of several keys: the estimate of their union, no cache involved.
void pfcount_union(CommandContext& ctx) {
  store::hll::Registers max{};
  for (std::size_t j = 1; j < ctx.argc(); ++j) {
    store::Entry* e = ctx.read(ctx.arg(j));
    if (!e) continue;
    if (!is_hll_or_reply(ctx, *e)) return;
    if (!store::hll::merge_into(max, e->value.as_string().view())) {
      ctx.reply().error(kCorruptHllErr);
      return;
    }
  }
  ctx.reply().integer(static_cast<long long>(store::hll::count_registers(max)));
}

// PFCOUNT key [key ...]
void cmd_pfcount(CommandContext& ctx) {
  if (ctx.argc() > 2) {
    pfcount_union(ctx);
    return;
  }
  store::Entry* e = ctx.read(ctx.arg(1));
  if (!e) {
    ctx.reply().integer(0);
    return;
  }
  if (!is_hll_or_reply(ctx, *e)) return;
  const std::string_view hll = e->value.as_string().view();
  if (store::hll::cache_valid(hll)) {
    ctx.reply().integer(static_cast<long long>(store::hll::cached_count(hll)));
    return;
  }
  std::uint64_t card = 0;
  if (!store::hll::count(hll, card)) {
    ctx.reply().error(kCorruptHllErr);
    return;
  }
  // Refreshing the cache changes the string: Redis counts it dirty and propagates the PFCOUNT.
  store::hll::store_cache(e->value.as_string().edit_raw(0), card);
  ctx.mark_dirty();
  ctx.reply().integer(static_cast<long long>(card));
}

// PFMERGE destkey [sourcekey [sourcekey ...]]
void cmd_pfmerge(CommandContext& ctx) {
  store::hll::Registers max{};
  bool use_dense = false;
  for (std::size_t j = 1; j < ctx.argc(); ++j) {
    store::Entry* e = ctx.read(ctx.arg(j));
    if (!e) continue;
    if (!is_hll_or_reply(ctx, *e)) return;
    const std::string_view hll = e->value.as_string().view();
    if (!store::hll::is_sparse(hll)) use_dense = true;
    if (!store::hll::merge_into(max, hll)) {
      ctx.reply().error(kCorruptHllErr);
      return;
    }
  }
  store::Entry* e = ctx.write(ctx.arg(1));
  std::string hll = e ? std::string(e->value.as_string().view()) : store::hll::empty_hll();
  if (use_dense && !store::hll::to_dense(hll)) {
    ctx.reply().error(kCorruptHllErr);
    return;
  }
  for (int j = 0; j < store::hll::kRegisters; ++j) {
    if (max[j]) store::hll::set_register(hll, j, max[j], sparse_max_bytes(ctx));
  }
  store::hll::invalidate_cache(hll.data());
  if (e)
    store_hll(*e, hll);
  else
    ctx.add_key(ctx.arg(1), store::Value::make_string(hll, store::StringForm::kRaw));
  ctx.notify(config::kNotifyString, "pfadd", ctx.arg(1));  // a mass add, as Redis names it
  ctx.mark_dirty();
  ctx.reply().ok();
}

/// PFDEBUG GETREG: the dense registers (a sparse HLL is converted first, and stays dense).
void pfdebug_getreg(CommandContext& ctx, store::Entry& e, std::string& hll) {
  if (store::hll::is_sparse(hll)) {
    if (!store::hll::to_dense(hll)) {
      ctx.reply().error(kCorruptHllErr);
      return;
    }
    store_hll(e, hll);
    ctx.mark_dirty();  // the encoding change propagates
  }
  ctx.reply().array_header(store::hll::kRegisters);
  for (int j = 0; j < store::hll::kRegisters; ++j)
    ctx.reply().integer(store::hll::dense_register(hll, j));
}

/// PFDEBUG TODENSE: 1 if converted, 0 if already dense.
void pfdebug_todense(CommandContext& ctx, store::Entry& e, std::string& hll) {
  const bool convert = store::hll::is_sparse(hll);
  if (convert) {
    if (!store::hll::to_dense(hll)) {
      ctx.reply().error(kCorruptHllErr);
      return;
    }
    store_hll(e, hll);
    ctx.mark_dirty();
  }
  ctx.reply().integer(convert ? 1 : 0);
}

// PFDEBUG subcommand key
void cmd_pfdebug(CommandContext& ctx) {
  const std::string_view sub = ctx.arg(1);
  store::Entry* e = ctx.write(ctx.arg(2));
  if (!e) {
    ctx.reply().error("ERR The specified key does not exist");
    return;
  }
  if (!is_hll_or_reply(ctx, *e)) return;
  std::string hll(e->value.as_string().view());
  if (base::iequals(sub, "getreg")) {
    pfdebug_getreg(ctx, *e, hll);
  } else if (base::iequals(sub, "decode")) {
    if (!store::hll::is_sparse(hll)) {
      ctx.reply().error("ERR HLL encoding is not sparse");
      return;
    }
    ctx.reply().bulk(store::hll::decode_sparse(hll));
  } else if (base::iequals(sub, "encoding")) {
    ctx.reply().simple(store::hll::is_sparse(hll) ? "sparse" : "dense");
  } else if (base::iequals(sub, "todense")) {
    pfdebug_todense(ctx, *e, hll);
  } else {
    ctx.reply().error("ERR Unknown PFDEBUG subcommand '" + std::string(sub) + "'");
  }
}

// PFSELFTEST
void cmd_pfselftest(CommandContext& ctx) {
  const std::string failure =
      store::hll::self_test(sparse_max_bytes(ctx), ctx.exec().rng()(), 1000, 10'000'000);
  if (failure.empty())
    ctx.reply().ok();
  else
    ctx.reply().error(failure);
}

}  // namespace

void register_hll_commands(CommandTable& table) {
  CommandFamily t = table.family("hyperloglog");
  t.add("pfadd", -2, kWrite | kDenyOom | kFast, kFirstKey, &cmd_pfadd, "2.8.9",
        "Adds the specified elements to the specified HyperLogLog.");
  // may-replicate: PFCOUNT may store the cardinality it computed (Redis 7.0's flag).
  t.add("pfcount", -2, kReadonly | kMayReplicate, kAllKeys, &cmd_pfcount, "2.8.9",
        "Return the approximated cardinality of the set(s) observed by the HyperLogLog at "
        "key(s).");
  t.add("pfmerge", -2, kWrite | kDenyOom, kAllKeys, &cmd_pfmerge, "2.8.9",
        "Merge N different HyperLogLogs into a single one.");
  t.add("pfdebug", 3, kWrite | kDenyOom | kAdmin, {2, 2, 1}, &cmd_pfdebug, "2.8.9",
        "Internal commands for debugging HyperLogLog values");
  t.add("pfselftest", 1, kAdmin, kNoKeys, &cmd_pfselftest, "2.8.9",
        "An internal command for testing HyperLogLog values");
}

}  // namespace listd::server
