// RDB reader: see rdb.h. Follows Redis 7.0 rdb.c rdbLoadRioWithLoadingCtx for the opcodes and
// the object types listd can hold (strings, lists, sets, hashes, sorted sets), including the
// compact encodings Redis writes (ziplist, listpack, intset, quicklist, quicklist2) so that a
// dump.rdb from Redis can be moved into listd.
#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "listd/base/number.h"
#include "listd/persistence/crc64.h"
#include "listd/persistence/rdb.h"
#include "rdb_format.h"

namespace listd::persistence {
namespace {

using namespace rdb_format;

struct ParseError {
  std::string message;
};

class Reader {
 public:
  explicit Reader(std::string_view d) : d_(d) {}
  std::size_t pos() const noexcept { return p_; }

  unsigned char byte() {
    need(1);
    return static_cast<unsigned char>(d_[p_++]);
  }
  std::string_view bytes(std::size_t n) {
    need(n);
    std::string_view s = d_.substr(p_, n);
    p_ += n;
    return s;
  }
  std::uint64_t le(int n) {
    need(static_cast<std::size_t>(n));
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(d_[p_ + i])) << (8 * i);
    p_ += static_cast<std::size_t>(n);
    return v;
  }
  std::uint64_t be(int n) {
    need(static_cast<std::size_t>(n));
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(d_[p_ + i]);
    p_ += static_cast<std::size_t>(n);
    return v;
  }
  // rdbLoadLenByRef: returns the length, or sets `encoded` with the encoding type.
  std::uint64_t len(bool* encoded = nullptr) {
    const unsigned char b = byte();
    const unsigned type = (b & 0xC0) >> 6;
    if (encoded) *encoded = false;
    switch (type) {
      case 0: return b & 0x3F;
      case 1: return (static_cast<std::uint64_t>(b & 0x3F) << 8) | byte();
      case 2:
        if (b == 0x80) return be(4);
        if (b == 0x81) return be(8);
        throw ParseError{"Unknown length encoding in rdbLoadLen()"};
      default:
        if (!encoded) throw ParseError{"Unexpected encoded length"};
        *encoded = true;
        return b & 0x3F;
    }
  }
  std::string str() {
    bool enc = false;
    const std::uint64_t l = len(&enc);
    if (!enc) return std::string(bytes(static_cast<std::size_t>(l)));
    switch (l) {
      case 0: return std::to_string(static_cast<std::int8_t>(le(1)));
      case 1: return std::to_string(static_cast<std::int16_t>(le(2)));
      case 2: return std::to_string(static_cast<std::int32_t>(le(4)));
      case 3: {
        const std::uint64_t clen = len();
        const std::uint64_t ulen = len();
        const std::string_view c = bytes(static_cast<std::size_t>(clen));
        return lzf_decompress(c, static_cast<std::size_t>(ulen));
      }
      default: throw ParseError{"Unknown RDB string encoding type"};
    }
  }
  double binary_double() {
    const std::uint64_t bits = le(8);
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  // rdbLoadDoubleValue (RDB_TYPE_ZSET): length byte, 253 nan, 254 +inf, 255 -inf.
  double text_double() {
    const unsigned char l = byte();
    if (l == 253) return NAN;
    if (l == 254) return INFINITY;
    if (l == 255) return -INFINITY;
    const std::string s(bytes(l));
    return std::strtod(s.c_str(), nullptr);
  }

 private:
  void need(std::size_t n) const {
    if (d_.size() - p_ < n)
      throw ParseError{"Short read or OOM loading DB. Unrecoverable error, aborting now."};
  }
  static std::string lzf_decompress(std::string_view in, std::size_t out_len) {
    std::string out;
    out.reserve(out_len);
    std::size_t ip = 0;
    while (ip < in.size()) {
      unsigned ctrl = static_cast<unsigned char>(in[ip++]);
      if (ctrl < 32) {
        ++ctrl;
        if (ip + ctrl > in.size() || out.size() + ctrl > out_len)
          throw ParseError{"Invalid LZF compressed string"};
        out.append(in.substr(ip, ctrl));
        ip += ctrl;
      } else {
        std::size_t l = ctrl >> 5;
        if (ip >= in.size()) throw ParseError{"Invalid LZF compressed string"};
        if (l == 7) {
          l += static_cast<unsigned char>(in[ip++]);
          if (ip >= in.size()) throw ParseError{"Invalid LZF compressed string"};
        }
        const std::size_t back = ((ctrl & 0x1f) << 8) + static_cast<unsigned char>(in[ip++]) + 1;
        l += 2;
        if (back > out.size() || out.size() + l > out_len)
          throw ParseError{"Invalid LZF compressed string"};
        std::size_t ref = out.size() - back;
        for (std::size_t i = 0; i < l; ++i) out.push_back(out[ref + i]);
      }
    }
    if (out.size() != out_len) throw ParseError{"Invalid LZF compressed string"};
    return out;
  }

  std::string_view d_;
  std::size_t p_ = 0;
};

// ---- compact encodings -------------------------------------------------------------------

std::uint64_t rd_le(std::string_view b, std::size_t at, int n) {
  if (at + static_cast<std::size_t>(n) > b.size()) throw ParseError{"Corrupt compact encoding"};
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}

std::int64_t sign_extend(std::uint64_t v, int bits) {
  const std::uint64_t m = 1ull << (bits - 1);
  return static_cast<std::int64_t>((v ^ m) - m);
}

std::vector<std::string> ziplist_entries(std::string_view zl) {
  std::vector<std::string> out;
  if (zl.size() < 11) throw ParseError{"Corrupt ziplist"};
  std::size_t p = 10;
  for (;;) {
    if (p >= zl.size()) throw ParseError{"Corrupt ziplist"};
    if (static_cast<unsigned char>(zl[p]) == 0xFF) break;
    // prevlen
    p += static_cast<unsigned char>(zl[p]) < 254 ? 1 : 5;
    if (p >= zl.size()) throw ParseError{"Corrupt ziplist"};
    const unsigned char e = static_cast<unsigned char>(zl[p]);
    std::size_t slen = 0;
    bool is_str = true;
    if ((e >> 6) == 0) {
      slen = e & 0x3F;
      p += 1;
    } else if ((e >> 6) == 1) {
      slen = ((e & 0x3F) << 8) | static_cast<unsigned char>(zl.at(p + 1));
      p += 2;
    } else if (e == 0x80) {
      slen = 0;
      for (int i = 1; i <= 4; ++i) slen = (slen << 8) | static_cast<unsigned char>(zl.at(p + i));
      p += 5;
    } else {
      is_str = false;
      std::int64_t v = 0;
      ++p;
      switch (e) {
        case 0xC0:
          v = sign_extend(rd_le(zl, p, 2), 16);
          p += 2;
          break;
        case 0xD0:
          v = sign_extend(rd_le(zl, p, 4), 32);
          p += 4;
          break;
        case 0xE0:
          v = static_cast<std::int64_t>(rd_le(zl, p, 8));
          p += 8;
          break;
        case 0xF0:
          v = sign_extend(rd_le(zl, p, 3), 24);
          p += 3;
          break;
        case 0xFE:
          v = sign_extend(rd_le(zl, p, 1), 8);
          p += 1;
          break;
        default:
          if (e >= 0xF1 && e <= 0xFD)
            v = (e & 0x0F) - 1;
          else
            throw ParseError{"Corrupt ziplist entry encoding"};
      }
      out.push_back(std::to_string(v));
    }
    if (is_str) {
      if (p + slen > zl.size()) throw ParseError{"Corrupt ziplist"};
      out.emplace_back(zl.substr(p, slen));
      p += slen;
    }
  }
  return out;
}

std::size_t lp_backlen_size(std::size_t l) {
  return l < 128 ? 1 : l < 16384 ? 2 : l < 2097152 ? 3 : l < 268435456 ? 4 : 5;
}

std::vector<std::string> listpack_entries(std::string_view lp) {
  std::vector<std::string> out;
  if (lp.size() < 7) throw ParseError{"Corrupt listpack"};
  std::size_t p = 6;
  for (;;) {
    if (p >= lp.size()) throw ParseError{"Corrupt listpack"};
    const unsigned char e = static_cast<unsigned char>(lp[p]);
    if (e == 0xFF) break;
    const std::size_t start = p;
    if ((e & 0x80) == 0) {
      out.push_back(std::to_string(e & 0x7F));
      p += 1;
    } else if ((e & 0xC0) == 0x80) {
      const std::size_t l = e & 0x3F;
      if (p + 1 + l > lp.size()) throw ParseError{"Corrupt listpack"};
      out.emplace_back(lp.substr(p + 1, l));
      p += 1 + l;
    } else if ((e & 0xE0) == 0xC0) {
      const std::uint64_t v =
          (static_cast<std::uint64_t>(e & 0x1F) << 8) | static_cast<unsigned char>(lp.at(p + 1));
      out.push_back(std::to_string(sign_extend(v, 13)));
      p += 2;
    } else if ((e & 0xF0) == 0xE0) {
      const std::size_t l =
          (static_cast<std::size_t>(e & 0x0F) << 8) | static_cast<unsigned char>(lp.at(p + 1));
      if (p + 2 + l > lp.size()) throw ParseError{"Corrupt listpack"};
      out.emplace_back(lp.substr(p + 2, l));
      p += 2 + l;
    } else {
      switch (e) {
        case 0xF0: {
          const std::size_t l = static_cast<std::size_t>(rd_le(lp, p + 1, 4));
          if (p + 5 + l > lp.size()) throw ParseError{"Corrupt listpack"};
          out.emplace_back(lp.substr(p + 5, l));
          p += 5 + l;
          break;
        }
        case 0xF1:
          out.push_back(std::to_string(sign_extend(rd_le(lp, p + 1, 2), 16)));
          p += 3;
          break;
        case 0xF2:
          out.push_back(std::to_string(sign_extend(rd_le(lp, p + 1, 3), 24)));
          p += 4;
          break;
        case 0xF3:
          out.push_back(std::to_string(sign_extend(rd_le(lp, p + 1, 4), 32)));
          p += 5;
          break;
        case 0xF4:
          out.push_back(std::to_string(static_cast<std::int64_t>(rd_le(lp, p + 1, 8))));
          p += 9;
          break;
        default: throw ParseError{"Corrupt listpack entry encoding"};
      }
    }
    p += lp_backlen_size(p - start);
  }
  return out;
}

std::vector<std::string> intset_entries(std::string_view is) {
  const std::size_t width = static_cast<std::size_t>(rd_le(is, 0, 4));
  const std::size_t n = static_cast<std::size_t>(rd_le(is, 4, 4));
  if ((width != 2 && width != 4 && width != 8) || 8 + width * n > is.size())
    throw ParseError{"Corrupt intset"};
  std::vector<std::string> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(std::to_string(sign_extend(rd_le(is, 8 + i * width, static_cast<int>(width)),
                                             static_cast<int>(width * 8))));
  return out;
}

double parse_score(const std::string& s) {
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) throw ParseError{"Corrupt sorted set score"};
  return d;
}

// ---- building values ---------------------------------------------------------------------

struct Loaded {
  store::Value value;
  bool empty;
};

Loaded make_list(const std::vector<std::string>& items,
                 store::Value v = store::Value::make_list()) {
  for (const auto& s : items) v.as_list().push_back(s);
  const bool empty = items.empty();
  return {std::move(v), empty};
}

void zadd(store::ZSetValue& z, std::string_view m, double score) {
  if (std::isnan(score)) throw ParseError{"Zset with NAN score detected"};
  if (z.score(m)) throw ParseError{"Duplicate zset fields detected"};
  z.insert(m, score);
}

// RDB_TYPE_LIST, _SET, _ZSET, _ZSET_2, _HASH: a length, then that many elements (or pairs).
Loaded read_plain_collection(Reader& r, unsigned type) {
  const std::uint64_t n = r.len();
  switch (type) {
    case kTypeList: {
      store::Value v = store::Value::make_list();
      for (std::uint64_t i = 0; i < n; ++i) v.as_list().push_back(r.str());
      return {std::move(v), n == 0};
    }
    case kTypeSet: {
      store::Value v = store::Value::make_set();
      for (std::uint64_t i = 0; i < n; ++i)
        if (!v.as_set().add(r.str())) throw ParseError{"Duplicate set members detected"};
      return {std::move(v), n == 0};
    }
    case kTypeHash: {
      store::Value v = store::Value::make_hash();
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::string f = r.str();
        const std::string val = r.str();
        if (!v.as_hash().set(f, val)) throw ParseError{"Duplicate hash fields detected"};
      }
      return {std::move(v), n == 0};
    }
    default: {  // kTypeZSet, kTypeZSet2
      store::Value v = store::Value::make_zset();
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::string m = r.str();
        const double score = type == kTypeZSet2 ? r.binary_double() : r.text_double();
        zadd(v.as_zset(), m, score);
      }
      return {std::move(v), n == 0};
    }
  }
}

// RDB_TYPE_LIST_QUICKLIST (ziplist nodes) and _QUICKLIST_2 (listpack or plain nodes).
Loaded read_quicklist(Reader& r, unsigned type) {
  store::Value v = store::Value::make_list();
  const std::uint64_t nodes = r.len();
  for (std::uint64_t i = 0; i < nodes; ++i) {
    std::uint64_t container = 2;  // packed
    if (type == kTypeListQuicklist2) container = r.len();
    const std::string blob = r.str();
    if (container == 1) {
      v.as_list().push_back(blob);  // a plain node: one element
    } else {
      for (const auto& s :
           type == kTypeListQuicklist ? ziplist_entries(blob) : listpack_entries(blob))
        v.as_list().push_back(s);
    }
  }
  const bool empty = v.as_list().empty();
  return {std::move(v), empty};
}

// A set, hash or sorted set in one compact blob (intset, ziplist or listpack).
Loaded read_packed_collection(Reader& r, unsigned type) {
  const std::string blob = r.str();
  switch (type) {
    case kTypeSetIntset:
    case kTypeSetListpack: {
      store::Value v = store::Value::make_set();
      const auto items = type == kTypeSetIntset ? intset_entries(blob) : listpack_entries(blob);
      for (const auto& s : items)
        if (!v.as_set().add(s)) throw ParseError{"Duplicate set members detected"};
      return {std::move(v), items.empty()};
    }
    case kTypeHashZiplist:
    case kTypeHashListpack: {
      const auto items = type == kTypeHashZiplist ? ziplist_entries(blob) : listpack_entries(blob);
      if (items.size() % 2) throw ParseError{"Corrupt hash"};
      store::Value v = store::Value::make_hash();
      for (std::size_t i = 0; i < items.size(); i += 2)
        if (!v.as_hash().set(items[i], items[i + 1]))
          throw ParseError{"Duplicate hash fields detected"};
      return {std::move(v), items.empty()};
    }
    default: {  // kTypeZSetZiplist, kTypeZSetListpack
      const auto items = type == kTypeZSetZiplist ? ziplist_entries(blob) : listpack_entries(blob);
      if (items.size() % 2) throw ParseError{"Corrupt sorted set"};
      store::Value v = store::Value::make_zset();
      for (std::size_t i = 0; i < items.size(); i += 2)
        zadd(v.as_zset(), items[i], parse_score(items[i + 1]));
      return {std::move(v), items.empty()};
    }
  }
}

// A rax key or PEL id: ms then seq, big-endian.
store::StreamId be_id(std::string_view raw) {
  if (raw.size() != 16) throw ParseError{"Stream node key entry is not the size of a stream ID"};
  store::StreamId id;
  for (int i = 0; i < 8; ++i) {
    id.ms = (id.ms << 8) | static_cast<unsigned char>(raw[static_cast<std::size_t>(i)]);
    id.seq = (id.seq << 8) | static_cast<unsigned char>(raw[static_cast<std::size_t>(8 + i)]);
  }
  return id;
}

store::StreamId read_len_id(Reader& r) {
  store::StreamId id;
  id.ms = r.len();
  id.seq = r.len();
  return id;
}

// One consumer group: the group PEL (NACKs without owners yet), then the consumers, whose
// PELs give each NACK its owner (Redis rdbLoadObject's checks).
void read_stream_group(Reader& r, store::StreamValue& s) {
  std::string name = r.str();
  const store::StreamId last = read_len_id(r);
  const auto entries_read = static_cast<long long>(r.len());
  auto [it, inserted] = s.groups().try_emplace(std::move(name), last, entries_read);
  if (!inserted) throw ParseError{"Duplicated consumer group name"};
  store::StreamGroup& g = it->second;
  for (std::uint64_t n = r.len(); n > 0; --n) {
    const store::StreamId id = be_id(r.bytes(16));
    store::StreamNack& nack = g.pel[id];
    nack.delivery_time = static_cast<std::int64_t>(r.le(8));
    nack.delivery_count = r.len();
  }
  for (std::uint64_t n = r.len(); n > 0; --n) {
    const std::string cname = r.str();
    bool created = false;
    store::StreamConsumer& c =
        g.create_consumer(cname, static_cast<std::int64_t>(r.le(8)), &created);
    if (!created) throw ParseError{"Duplicate stream consumer detected"};
    for (std::uint64_t k = r.len(); k > 0; --k) {
      const store::StreamId id = be_id(r.bytes(16));
      const auto nack = g.pel.find(id);
      if (nack == g.pel.end() || nack->second.consumer)
        throw ParseError{"Consumer entry not found in group global PEL"};
      nack->second.consumer = &c;
      c.pel[id] = &nack->second;
    }
  }
  for (const auto& [id, nack] : g.pel)
    if (!nack.consumer) throw ParseError{"Stream CG PEL entry without consumer"};
}

// RDB_TYPE_STREAM_LISTPACKS_2, as Redis 7.0 writes it.
store::StreamValue read_stream(Reader& r) {
  store::StreamValue s;
  store::StreamId prev;
  for (std::uint64_t n = r.len(); n > 0; --n) {
    const store::StreamId master = be_id(r.str());
    auto lp = store::Listpack::from_raw(r.str());
    if (!lp) throw ParseError{"Stream listpack integrity check failed"};
    if (lp->first() == store::Listpack::kNone) throw ParseError{"Empty listpack inside stream"};
    if (!s.nodes().empty() && master <= prev) throw ParseError{"Stream nodes out of order"};
    prev = master;
    s.append_node(master, std::move(*lp));
  }
  s.set_length(r.len());
  s.set_last_id(read_len_id(r));
  s.set_first_id(read_len_id(r));
  s.set_max_deleted_id(read_len_id(r));
  s.set_entries_added(r.len());
  for (std::uint64_t n = r.len(); n > 0; --n) read_stream_group(r, s);
  return s;
}

Loaded read_object(Reader& r, unsigned type) {
  switch (type) {
    case kTypeString: return {store::Value::make_string(r.str()), false};
    case kTypeList:
    case kTypeSet:
    case kTypeZSet:
    case kTypeZSet2:
    case kTypeHash: return read_plain_collection(r, type);
    case kTypeListZiplist: return make_list(ziplist_entries(r.str()));
    case kTypeListQuicklist:
    case kTypeListQuicklist2: return read_quicklist(r, type);
    case kTypeSetIntset:
    case kTypeSetListpack:
    case kTypeHashZiplist:
    case kTypeHashListpack:
    case kTypeZSetZiplist:
    case kTypeZSetListpack: return read_packed_collection(r, type);
    case kTypeStreamListpacks2: return {store::Value(read_stream(r)), false};
    default: throw ParseError{"Unknown RDB encoding type " + std::to_string(type)};
  }
}

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

// Where the next key goes and the deadline an EXPIRETIME opcode gave it.
struct Cursor {
  store::Database* db;
  std::int64_t expire = -1;
};

// Consumes an opcode that is not a key (SELECTDB, EXPIRETIME, AUX, ...). False for a key type.
bool read_opcode(Reader& r, unsigned type, store::Keyspace& ks, Cursor& at, RdbLoadResult& res) {
  switch (type) {
    case kOpExpireTime: at.expire = static_cast<std::int64_t>(r.le(4)) * 1000; return true;
    case kOpExpireTimeMs: at.expire = static_cast<std::int64_t>(r.le(8)); return true;
    case kOpFreq: r.byte(); return true;
    case kOpIdle: r.len(); return true;
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
  at.expire = -1;
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

}  // namespace

RdbLoadResult load_rdb(std::string_view data, store::Keyspace& ks, const RdbLoadOptions& o) {
  RdbLoadResult res;
  Reader r(data);
  try {
    res.version = read_header(r);
    Cursor at{&ks.db(0)};
    for (unsigned type = r.byte(); type != kOpEof; type = r.byte())
      if (!read_opcode(r, type, ks, at, res)) read_key(r, type, at, o, res);
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
  // verifyDumpPayload: the version two bytes before the CRC-64 of all that precedes it.
  constexpr std::string_view kBadPayload = "ERR DUMP payload version or checksum are wrong";
  if (payload.size() < 10) return std::string(kBadPayload);
  Reader footer(payload.substr(payload.size() - 10));
  const std::uint64_t version = footer.le(2);
  const std::uint64_t crc = footer.le(8);
  if (version > 10 || crc64(0, payload.substr(0, payload.size() - 8)) != crc)
    return std::string(kBadPayload);
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
