#include "listd/server/propagation.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "listd/persistence/rdb.h"  // LISTD_RDB_COMPANION_TYPES
#include "listd/server/executor.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

std::string to_str(long long v) { return std::to_string(v); }

const store::Entry* live(Executor& exec, int db, std::string_view key) {
  const store::Entry* e = exec.keyspace().db(db).peek(key);
  if (e && store::Database::expired(*e, exec.clock().unix_ms())) return nullptr;
  return e;
}

void emit(Executor& exec, int db, std::initializer_list<std::string_view> argv) {
  exec.propagate(db, std::span<const std::string_view>(argv.begin(), argv.size()));
}

// The effect on a key's expiry: its absolute deadline, no deadline, or the key is gone.
void emit_expiry_effect(Executor& exec, int db, std::string_view key, bool persist_if_none) {
  const store::Entry* e = live(exec, db, key);
  if (!e) {
    emit(exec, db, {"DEL", key});
  } else if (e->has_expire()) {
    const std::string at = to_str(e->expire_at_ms);
    emit(exec, db, {"PEXPIREAT", key, at});
  } else if (persist_if_none) {
    emit(exec, db, {"PERSIST", key});
  }
}

void emit_set_effect(Executor& exec, int db, std::string_view key, std::string_view value) {
  const store::Entry* e = live(exec, db, key);
  if (!e) {
    emit(exec, db, {"DEL", key});
  } else if (e->has_expire()) {
    const std::string at = to_str(e->expire_at_ms);
    emit(exec, db, {"SET", key, value, "PXAT", at});
  } else {
    emit(exec, db, {"SET", key, value});
  }
}

// Bulk strings of a RESP reply: one bulk, or an array/set of bulks (SPOP's two shapes).
std::vector<std::string_view> reply_bulks(std::string_view r) {
  std::vector<std::string_view> out;
  auto read_line = [&](std::size_t& p, long long& n) -> bool {
    const std::size_t nl = r.find("\r\n", p);
    if (nl == std::string_view::npos || nl <= p + 1) return false;
    const auto [ptr, ec] = std::from_chars(r.data() + p + 1, r.data() + nl, n);
    if (ec != std::errc()) return false;
    p = nl + 2;
    return true;
  };
  auto read_bulk = [&](std::size_t& p) -> bool {
    if (p >= r.size() || r[p] != '$') return false;
    long long len = 0;
    if (!read_line(p, len) || len < 0 || p + static_cast<std::size_t>(len) + 2 > r.size()) return false;
    out.push_back(r.substr(p, static_cast<std::size_t>(len)));
    p += static_cast<std::size_t>(len) + 2;
    return true;
  };
  std::size_t p = 0;
  if (r.empty()) return out;
  if (r[0] == '$') {
    read_bulk(p);
  } else if (r[0] == '*' || r[0] == '~') {
    long long n = 0;
    if (!read_line(p, n)) return out;
    for (long long i = 0; i < n; ++i)
      if (!read_bulk(p)) break;
  }
  return out;
}

std::string_view end_name(End e) { return e == End::kHead ? "LEFT" : "RIGHT"; }

}  // namespace

PropagationProbe probe_before(Executor& exec, int db, const CommandSpec& spec,
                              std::span<const std::string_view> argv) {
  PropagationProbe p;
  if (!(spec.flags & kBlocking)) return p;
  const std::string_view name = spec.full_name;
  if (name == "blpop" || name == "brpop" || name == "bzpopmin" || name == "bzpopmax") {
    for (std::size_t i = 1; i + 1 < argv.size(); ++i) {
      if (live(exec, db, argv[i])) {
        p.served_key = std::string(argv[i]);
        break;
      }
    }
  }
  return p;
}

void propagate_command(Executor& exec, int db, const CommandSpec& spec,
                       std::span<const std::string_view> argv, const PropagationProbe& probe,
                       std::string_view reply) {
  const std::string_view name = spec.full_name;
  const std::size_t argc = argv.size();
  if (name == "expire" || name == "pexpire" || name == "expireat" || name == "pexpireat") {
    emit_expiry_effect(exec, db, argv[1], false);
  } else if (name == "set") {
    emit_set_effect(exec, db, argv[1], argv[2]);
  } else if (name == "setex" || name == "psetex") {
    emit_set_effect(exec, db, argv[1], argv[3]);
  } else if (name == "getex") {
    emit_expiry_effect(exec, db, argv[1], true);
  } else if (name == "getdel") {
    emit(exec, db, {"DEL", argv[1]});
  } else if (name == "incrbyfloat") {
    const store::Entry* e = live(exec, db, argv[1]);
    if (e && e->value.is(store::ValueType::kString)) {
      const std::string v(e->value.as_string().view());
      emit(exec, db, {"SET", argv[1], v, "KEEPTTL"});
    } else {
      exec.propagate(db, argv);
    }
  } else if (name == "spop") {
    std::vector<std::string_view> srem{"SREM", argv[1]};
    for (std::string_view m : reply_bulks(reply)) srem.push_back(m);
    if (srem.size() > 2) exec.propagate(db, srem);
  } else if (name == "blpop" || name == "brpop") {
    if (!probe.served_key.empty())
      emit(exec, db, {name == "blpop" ? "LPOP" : "RPOP", probe.served_key});
  } else if (name == "bzpopmin" || name == "bzpopmax") {
    if (!probe.served_key.empty())
      emit(exec, db, {name == "bzpopmin" ? "ZPOPMIN" : "ZPOPMAX", probe.served_key});
  } else if (name == "blmove") {
    emit(exec, db, {"LMOVE", argv[1], argv[2], argv[3], argv[4]});
  } else if (name == "brpoplpush") {
    emit(exec, db, {"RPOPLPUSH", argv[1], argv[2]});
  } else if (name == "blmpop" || name == "bzmpop") {
    // BLMPOP timeout numkeys key... -> LMPOP numkeys key...: deterministic on the same data.
    std::vector<std::string_view> v{name == "blmpop" ? "LMPOP" : "ZMPOP"};
    v.insert(v.end(), argv.begin() + 2, argv.end());
    exec.propagate(db, v);
  } else if (argc > 0) {
    exec.propagate(db, argv);
  }
}

std::size_t probe_waiter(Executor& exec, const blocking::BlockKey& key) {
  const store::Entry* e = live(exec, key.db, key.key);
  if (!e) return 0;
  if (e->value.is(store::ValueType::kList)) return e->value.as_list().size();
#if LISTD_RDB_COMPANION_TYPES
  if (e->value.is(store::ValueType::kZSet)) return e->value.as_zset().size();
#endif
  return 0;
}

void propagate_served_waiter(Executor& exec, const Client& c, const blocking::BlockKey& key,
                             std::size_t size_before) {
  const BlockSpec& b = c.block;
  const int db = key.db;
  const std::string n = to_str(static_cast<long long>(
      std::min<std::size_t>(size_before, static_cast<std::size_t>(std::max<long long>(b.count, 1)))));
  switch (b.kind) {
    case BlockSpec::Kind::kPop:
      emit(exec, db, {b.from == End::kHead ? "LPOP" : "RPOP", key.key});
      break;
    case BlockSpec::Kind::kMultiPop:
      emit(exec, db, {b.from == End::kHead ? "LPOP" : "RPOP", key.key, n});
      break;
    case BlockSpec::Kind::kMove:
      if (strcasecmp_eq(c.last_command, "brpoplpush"))
        emit(exec, db, {"RPOPLPUSH", key.key, b.destination});
      else
        emit(exec, db, {"LMOVE", key.key, b.destination, end_name(b.from), end_name(b.to)});
      break;
    case BlockSpec::Kind::kZPop:
      emit(exec, db, {b.zmax ? "ZPOPMAX" : "ZPOPMIN", key.key});
      break;
    case BlockSpec::Kind::kZMultiPop:
      emit(exec, db, {b.zmax ? "ZPOPMAX" : "ZPOPMIN", key.key, n});
      break;
  }
}

}  // namespace listd::server
