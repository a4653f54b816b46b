// The value codec's writing half and the DUMP payload: see value_codec.h. The reading half is
// rdb::read_object (value_decoder.cpp).
#include "listd/persistence/value_codec.h"

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "listd/persistence/crc64.h"
#include "listd/store/listpack.h"
#include "rdb_primitives.h"

namespace listd::persistence {
namespace {

constexpr std::size_t kValueSpillAt = 64 * 1024;

// Appends RDB primitives to `out`, handing it to `spill` between elements once it is large.
class ValueBodyOut {
 public:
  ValueBodyOut(std::string& out, bool compress, const std::function<void()>& spill)
      : out_(out), spill_(spill), compress_(compress) {}

  void len(std::uint64_t n) { rdb::append_len(out_, n); }
  void str(std::string_view s) {
    rdb::append_string(out_, s, compress_);
    maybe_spill();
  }
  void raw(std::string_view s) { out_.append(s); }
  void le64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void maybe_spill() {
    if (spill_ && out_.size() >= kValueSpillAt) spill_();
  }

 private:
  std::string& out_;
  const std::function<void()>& spill_;
  bool compress_;
};

// A stream id as Redis' rax keys it: ms then seq, each big-endian.
std::string stream_raw_id(store::StreamId id) {
  std::string out(16, '\0');
  for (int i = 0; i < 8; ++i) {
    out[static_cast<std::size_t>(i)] = static_cast<char>(id.ms >> (56 - 8 * i));
    out[static_cast<std::size_t>(8 + i)] = static_cast<char>(id.seq >> (56 - 8 * i));
  }
  return out;
}

void write_stream_id(ValueBodyOut& out, store::StreamId id) {
  out.len(id.ms);
  out.len(id.seq);
}

void write_stream_group(ValueBodyOut& out, const std::string& name, const store::StreamGroup& g) {
  out.str(name);
  write_stream_id(out, g.last_id);
  out.len(static_cast<std::uint64_t>(g.entries_read));
  out.len(g.pel.size());
  for (const auto& [id, nack] : g.pel) {
    out.raw(stream_raw_id(id));
    out.le64(static_cast<std::uint64_t>(nack.delivery_time));
    out.len(nack.delivery_count);
    out.maybe_spill();
  }
  out.len(g.consumers.size());
  for (const auto& [cname, c] : g.consumers) {
    out.str(cname);
    out.le64(static_cast<std::uint64_t>(c.seen_time));
    out.len(c.pel.size());
    for (const auto& [id, nack] : c.pel) {
      out.raw(stream_raw_id(id));
      out.maybe_spill();
    }
  }
}

// RDB_TYPE_STREAM_LISTPACKS_2 (Redis 7.0 rdbSaveObject): the nodes as Redis listpacks, the stream's
// counters, then each group with its PEL and its consumers.
void write_stream(ValueBodyOut& out, const store::StreamValue& s) {
  out.len(s.nodes().size());
  for (const auto& [master, lp] : s.nodes()) {
    out.str(stream_raw_id(master));
    out.str(lp.to_listpack());
  }
  out.len(s.length());
  write_stream_id(out, s.last_id());
  write_stream_id(out, s.first_id());
  write_stream_id(out, s.max_deleted_id());
  out.len(s.entries_added());
  out.len(s.groups().size());
  for (const auto& [name, g] : s.groups()) write_stream_group(out, name, g);
}

// Redis double2ll: a score zzlInsertAt stores as a listpack integer.
bool score_as_integer(double d, long long& out) noexcept {
  constexpr double kLimit = static_cast<double>(LLONG_MAX / 2);
  if (!(d >= -kLimit && d <= kLimit)) return false;
  const auto ll = static_cast<long long>(d);
  if (static_cast<double>(ll) != d) return false;
  out = ll;
  return true;
}

// Redis d2string for a score that is not an integer.
std::string score_text(double d) {
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, "%.17g", d);
  return std::string(buf, static_cast<std::size_t>(n));
}

// A listpack-encoded hash as Redis writes it (RDB_TYPE_HASH_LISTPACK): field, value, ...
std::string hash_listpack(const store::HashValue& h) {
  store::Listpack lp;
  h.for_each([&](std::string_view f, std::string_view v) {
    lp.append_string(f);
    lp.append_string(v);
  });
  return std::string(lp.raw());
}

// A listpack-encoded sorted set (RDB_TYPE_ZSET_LISTPACK): member, score, ... ascending.
std::string zset_listpack(const store::ZSetValue& z) {
  store::Listpack lp;
  z.for_each([&](std::string_view m, double score) {
    lp.append_string(m);
    long long ll = 0;
    if (score_as_integer(score, ll))
      lp.append_int(ll);
    else
      lp.append_string(score_text(score));
  });
  return std::string(lp.raw());
}

void write_zset(ValueBodyOut& out, const store::ZSetValue& z) {
  out.len(z.size());
  z.for_each([&](std::string_view m, double score) {
    out.str(m);
    std::uint64_t bits;
    std::memcpy(&bits, &score, 8);
    out.le64(bits);
  });
}

}  // namespace

unsigned char rdb_value_type(const store::Value& v) noexcept {
  switch (v.type()) {
    case store::ValueType::kString: return rdb::kTypeString;
    case store::ValueType::kList: return rdb::kTypeList;
    case store::ValueType::kSet: return rdb::kTypeSet;
    case store::ValueType::kHash:
      return v.as_hash().encoding() == store::HashValue::Encoding::kPacked ? rdb::kTypeHashListpack
                                                                           : rdb::kTypeHash;
    case store::ValueType::kZSet:
      return v.as_zset().encoding() == store::ZSetValue::Encoding::kPacked ? rdb::kTypeZSetListpack
                                                                           : rdb::kTypeZSet2;
    case store::ValueType::kStream: return rdb::kTypeStreamListpacks2;
  }
  return rdb::kTypeString;
}

void encode_value_body(const store::Value& v, std::string& buf, bool compress,
                       const std::function<void()>& spill) {
  ValueBodyOut out(buf, compress, spill);
  switch (v.type()) {
    case store::ValueType::kString: out.str(v.as_string().view()); return;
    case store::ValueType::kList: {
      const store::PackedList& l = v.as_list();
      out.len(l.size());
      l.scan_forward([&](std::size_t, std::string_view e) { out.str(e); });
      return;
    }
    case store::ValueType::kSet: {
      const store::SetValue& s = v.as_set();
      out.len(s.size());
      s.for_each([&](std::string_view m) { out.str(m); });
      return;
    }
    case store::ValueType::kHash: {
      const store::HashValue& h = v.as_hash();
      if (h.encoding() == store::HashValue::Encoding::kPacked) {
        out.str(hash_listpack(h));
        return;
      }
      out.len(h.size());
      h.for_each([&](std::string_view f, std::string_view val) {
        out.str(f);
        out.str(val);
      });
      return;
    }
    case store::ValueType::kZSet:
      if (v.as_zset().encoding() == store::ZSetValue::Encoding::kPacked) {
        out.str(zset_listpack(v.as_zset()));
        return;
      }
      write_zset(out, v.as_zset());
      return;
    case store::ValueType::kStream: write_stream(out, v.as_stream()); return;
  }
}

void append_dump_footer(std::string& payload) {
  payload.push_back(static_cast<char>(kDumpRdbVersion & 0xff));
  payload.push_back(static_cast<char>((kDumpRdbVersion >> 8) & 0xff));
  const std::uint64_t crc = crc64(0, payload);
  for (int i = 0; i < 8; ++i) payload.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
}

std::string encode_dump_payload(const store::Value& v, bool compress) {
  std::string payload(1, static_cast<char>(rdb_value_type(v)));
  encode_value_body(v, payload, compress);
  append_dump_footer(payload);
  return payload;
}

bool verify_dump_payload(std::string_view payload) noexcept {
  if (payload.size() < 10) return false;
  const std::string_view footer = payload.substr(payload.size() - 10);
  const unsigned version =
      static_cast<unsigned char>(footer[0]) | (static_cast<unsigned char>(footer[1]) << 8);
  if (version > kDumpRdbVersion) return false;
  std::uint64_t crc = 0;
  for (int i = 0; i < 8; ++i)
    crc |= static_cast<std::uint64_t>(static_cast<unsigned char>(footer[2 + i])) << (8 * i);
  return crc64(0, payload.substr(0, payload.size() - 8)) == crc;
}

DecodedDump decode_dump_payload(std::string_view payload) {
  DecodedDump out;
  if (!verify_dump_payload(payload)) {
    out.error = DumpPayloadError::kVersionOrChecksum;
    return out;
  }
  // Redis reads the object from the whole payload: the footer's bytes are readable to it.
  rdb::Reader r(payload);
  try {
    const unsigned type = r.byte();
    if (!rdb::is_object_type(type)) throw rdb::ParseError{"not an object type"};
    rdb::Loaded loaded = rdb::read_object(r, type);
    if (loaded.empty) throw rdb::ParseError{"empty key"};
    out.value.emplace(std::move(loaded.value));
  } catch (const rdb::ParseError&) {
    out.error = DumpPayloadError::kBadFormat;
  } catch (const std::logic_error&) {  // out_of_range from a compact blob, length_error
    out.error = DumpPayloadError::kBadFormat;
  }
  return out;
}

}  // namespace listd::persistence
