// RDB reader: see rdb.h. Follows Redis 7.0 rdb.c rdbLoadRioWithLoadingCtx for the opcodes; each
// key's object is read by the value codec (value_decoder.cpp), which DUMP/RESTORE shares.
#include <stdexcept>
#include <string>
#include <vector>

#include "listd/base/number.h"
#include "listd/persistence/crc64.h"
#include "listd/persistence/rdb.h"
#include "listd/persistence/value_codec.h"
#include "rdb_primitives.h"

namespace listd::persistence {
namespace {

using rdb::kOpAux;
using rdb::kOpEof;
using rdb::kOpExpireTime;
using rdb::kOpExpireTimeMs;
using rdb::kOpFreq;
using rdb::kOpFunction;
using rdb::kOpFunction2;
using rdb::kOpIdle;
using rdb::kOpModuleAux;
using rdb::kOpResizeDb;
using rdb::kOpSelectDb;
using rdb::Loaded;
using rdb::ParseError;
using rdb::read_object;
using rdb::Reader;

// "REDIS" and four digits: the format version.
int read_header(Reader& r) {
  const std::string_view magic = r.bytes(9);
  if (magic.substr(0, 5) != "REDIS")
    throw ParseError{"Wrong signature trying to load DB from file"};
  int ver = 0;
  for (char c : magic.substr(5)) {
    if (c < '0' || c > '9') throw ParseError{"Wrong signature trying to load DB from file"};
    ver = ver * 10 + (c - '0');
  }
  if (ver < 1 || ver > 10)
    throw ParseError{"Can't handle RDB format version " + std::to_string(ver)};
  return ver;
}

// Where the next key goes, the deadline an EXPIRETIME opcode gave it and the access an IDLE or
// FREQ opcode recorded (-1: none).
struct Cursor {
  store::Database* db;
  std::int64_t expire = -1;
  long long idle_s = -1;
  long long freq = -1;
};

// Consumes an opcode that is not a key (SELECTDB, EXPIRETIME, AUX, ...). False for a key type.
bool read_opcode(Reader& r, unsigned type, store::Keyspace& ks, Cursor& at, RdbLoadResult& res) {
  switch (type) {
    case kOpExpireTime: at.expire = static_cast<std::int64_t>(r.le(4)) * 1000; return true;
    case kOpExpireTimeMs: at.expire = static_cast<std::int64_t>(r.le(8)); return true;
    case kOpFreq: at.freq = r.byte(); return true;
    case kOpIdle: at.idle_s = static_cast<long long>(r.len() & 0x7fffffffffffffffull); return true;
    case kOpSelectDb: {
      const std::uint64_t id = r.len();
      if (id >= static_cast<std::uint64_t>(ks.database_count()))
        throw ParseError{
            "FATAL: Data file was created with a Redis server configured to handle "
            "more than " +
            std::to_string(ks.database_count()) + " databases. Exiting"};
      at.db = &ks.db(static_cast<int>(id));
      return true;
    }
    case kOpResizeDb:
      r.len();
      r.len();
      return true;
    case kOpAux: {
      const std::string name = r.str();
      const std::string value = r.str();
      long long db = 0;
      if (name == "repl-stream-db" && base::parse_strict_integer(value, db))
        res.repl_stream_db = static_cast<int>(db);
      if (name == "used-mem" && base::parse_strict_integer(value, db) && db > 0)
        res.rdb_used_mem = static_cast<std::uint64_t>(db);
      return true;
    }
    case kOpFunction2: res.functions.push_back(r.str()); return true;  // loaded by the server
    case kOpModuleAux:
    case kOpFunction:
      throw ParseError{"listd cannot load modules or 7.0-rc functions from an RDB file"};
    default: return false;
  }
}

// One key of type `type`: skipped when empty or (if asked) expired, else added to the database.
void read_key(Reader& r, unsigned type, Cursor& at, const RdbLoadOptions& o, RdbLoadResult& res) {
  std::string key = r.str();
  Loaded obj = read_object(r, type);
  const std::int64_t expire = at.expire;
  const long long idle_s = at.idle_s, freq = at.freq;
  at.expire = at.idle_s = at.freq = -1;
  if (obj.empty) {
    ++res.empty_skipped;
    return;
  }
  if (o.skip_expired && expire >= 0 && expire < o.now_ms) {
    ++res.expired_skipped;
    return;
  }
  store::Database& db = *at.db;
  if (db.peek(key))
    throw ParseError{"RDB has duplicated key '" + key + "' in DB " + std::to_string(db.index())};
  store::Entry* e = db.add(key, std::move(obj.value));
  if (expire >= 0) db.set_expire(*e, expire);
  if (o.access_word) e->lru = o.access_word(idle_s, freq);
  ++res.keys;
}

// The CRC-64 trailer (version 5 on); a zero checksum means the writer did not compute one.
void check_trailer(Reader& r, std::string_view data, int version, RdbLoadResult& res) {
  const std::size_t body = r.pos();
  if (version < 5) return;
  const std::uint64_t expected = r.le(8);
  if (expected == 0) return;
  if (crc64(0, data.substr(0, body)) != expected)
    throw ParseError{"Wrong RDB checksum. Aborting now."};
  res.checksum_checked = true;
}

// The progress callback, each time the reader passed another interval (Redis calls it per rio
// chunk; here between two records).
void report_progress(const Reader& r, const RdbLoadOptions& o, RdbLoadResult& res,
                     std::size_t& next_report) {
  if (r.pos() < next_report) return;
  next_report = (r.pos() / o.progress_interval_bytes + 1) * o.progress_interval_bytes;
  if (o.progress(r.pos(), res)) return;
  res.interrupted = true;
  throw ParseError{"Loading interrupted"};
}

}  // namespace

RdbLoadResult load_rdb(std::string_view data, store::Keyspace& ks, const RdbLoadOptions& o) {
  RdbLoadResult res;
  Reader r(data);
  try {
    res.version = read_header(r);
    Cursor at{&ks.db(0)};
    const bool reports = o.progress && o.progress_interval_bytes > 0;
    std::size_t next_report = reports ? o.progress_interval_bytes : 0;
    for (unsigned type = r.byte(); type != kOpEof; type = r.byte()) {
      if (!read_opcode(r, type, ks, at, res)) read_key(r, type, at, o, res);
      if (reports) report_progress(r, o, res, next_report);
    }
    check_trailer(r, data, res.version, res);
    res.consumed = r.pos();
    res.ok = true;
  } catch (const ParseError& e) {
    res.error = e.message;
    res.consumed = r.pos();
  } catch (const std::out_of_range&) {
    res.error = "Corrupt compact encoding";
    res.consumed = r.pos();
  }
  return res;
}

std::string decode_function_payload(std::string_view payload, std::vector<std::string>& codes) {
  if (!verify_dump_payload(payload)) return "ERR DUMP payload version or checksum are wrong";
  Reader r(payload.substr(0, payload.size() - 10));
  try {
    while (r.pos() < payload.size() - 10) {
      const unsigned type = r.byte();
      if (type != kOpFunction && type != kOpFunction2) return "ERR given type is not a function";
      if (type == kOpFunction) return "ERR Failed loading library payload";  // 7.0-rc records
      codes.push_back(r.str());
    }
  } catch (const ParseError&) {
    return "ERR Failed loading library payload";
  }
  return {};
}

}  // namespace listd::persistence
