// Redis rdbLoadObject for the types listd holds: see rdb_primitives.h. Reads the plain types,
// the compact encodings Redis writes (ziplist, listpack, intset, quicklist, quicklist2) and
// streams with their groups, from the RDB file reader and RESTORE alike; every input is
// untrusted, so each blob is decoded whole and checked as it is read.
#include <stdexcept>
#include <vector>

#include "listd/store/encoding_limits.h"
#include "rdb_primitives.h"

namespace listd::persistence::rdb {
namespace {

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
      // Redis: a hashtable from the start when over hash-max-listpack-entries, else a listpack
      // until a field or value is over hash-max-listpack-value.
      store::Value v = store::Value::make_hash();
      if (n > store::encoding_limits().hash_max_listpack_entries) v.as_hash().convert_to_table();
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::string f = r.str();
        const std::string val = r.str();
        if (!v.as_hash().set(f, val)) throw ParseError{"Duplicate hash fields detected"};
      }
      return {std::move(v), n == 0};
    }
    default: {  // kTypeZSet, kTypeZSet2
      // Redis loads a skip list and makes it a listpack if it fits one (count and lengths).
      store::Value v(store::ZSetValue::create_skiplist());
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::string m = r.str();
        const double score = type == kTypeZSet2 ? r.binary_double() : r.text_double();
        zadd(v.as_zset(), m, score);
      }
      v.as_zset().convert_to_listpack_if_fits();
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
      // Redis keeps a loaded listpack whatever its values' lengths: only the count converts.
      store::Value v = store::Value::make_hash();
      if (items.size() / 2 > store::encoding_limits().hash_max_listpack_entries)
        v.as_hash().convert_to_table();
      for (std::size_t i = 0; i < items.size(); i += 2)
        if (!v.as_hash().load_pair(items[i], items[i + 1]))
          throw ParseError{"Duplicate hash fields detected"};
      return {std::move(v), items.empty()};
    }
    default: {  // kTypeZSetZiplist, kTypeZSetListpack
      const auto items = type == kTypeZSetZiplist ? ziplist_entries(blob) : listpack_entries(blob);
      if (items.size() % 2) throw ParseError{"Corrupt sorted set"};
      // As the hash: only the count decides.
      store::Value v(store::ZSetValue::for_load(items.size() / 2));
      for (std::size_t i = 0; i < items.size(); i += 2) {
        const double score = parse_score(items[i + 1]);
        if (std::isnan(score)) throw ParseError{"Zset with NAN score detected"};
        if (v.as_zset().score(items[i])) throw ParseError{"Duplicate zset fields detected"};
        v.as_zset().load_member(items[i], score);
      }
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
    s.append_node(master, *lp);
  }
  s.set_length(r.len());
  s.set_last_id(read_len_id(r));
  s.set_first_id(read_len_id(r));
  s.set_max_deleted_id(read_len_id(r));
  s.set_entries_added(r.len());
  for (std::uint64_t n = r.len(); n > 0; --n) read_stream_group(r, s);
  return s;
}

}  // namespace

bool is_object_type(unsigned type) noexcept {
  return type <= kTypeZSet2 || (type >= kTypeListZiplist && type <= kTypeHashZiplist) ||
         type == kTypeListQuicklist || (type >= kTypeHashListpack && type <= kTypeSetListpack);
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

}  // namespace listd::persistence::rdb
