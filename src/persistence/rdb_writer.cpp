// RDB writer: see rdb.h. Opcode and type values in rdb_format.h.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>

#include "listd/persistence/crc64.h"
#include "listd/persistence/file_io.h"
#include "listd/persistence/rdb.h"
#include "rdb_format.h"

namespace listd::persistence {
namespace {

using namespace rdb_format;

constexpr std::size_t kFlushAt = 64 * 1024;

// Redis rdbSaveLen: 6-bit, 14-bit, 32-bit or 64-bit big-endian lengths.
void append_len(std::string& buf, std::uint64_t n) {
  if (n < (1u << 6)) {
    buf.push_back(static_cast<char>(n));
  } else if (n < (1u << 14)) {
    buf.push_back(static_cast<char>(0x40 | (n >> 8)));
    buf.push_back(static_cast<char>(n & 0xff));
  } else if (n <= 0xffffffffull) {
    buf.push_back(static_cast<char>(0x80));
    for (int i = 3; i >= 0; --i) buf.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  } else {
    buf.push_back(static_cast<char>(0x81));
    for (int i = 7; i >= 0; --i) buf.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  }
}

// Buffers output, keeps the running CRC, hands full chunks to `flush_`.
class Out {
 public:
  explicit Out(std::function<bool(std::string_view)> flush) : flush_(std::move(flush)) {}

  void byte(unsigned char b) {
    buf_.push_back(static_cast<char>(b));
    maybe_flush();
  }
  void raw(std::string_view s) {
    buf_.append(s);
    maybe_flush();
  }
  void len(std::uint64_t n) {
    append_len(buf_, n);
    maybe_flush();
  }
  void str(std::string_view s) {
    len(s.size());
    raw(s);
  }
  void le64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) buf_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    maybe_flush();
  }
  void aux(std::string_view k, std::string_view v) {
    byte(kOpAux);
    str(k);
    str(v);
  }
  bool ok() const noexcept { return ok_; }

 private:
  void maybe_flush() {
    if (buf_.size() < kFlushAt || !ok_) return;
    crc_ = crc64(crc_, buf_);
    ok_ = flush_(buf_);
    buf_.clear();
  }

  std::function<bool(std::string_view)> flush_;
  std::string buf_;
  std::string pending_eof_;
  std::uint64_t crc_ = 0;
  bool ok_ = true;

 public:
  // Ends the file: the EOF opcode, then the CRC of every byte before the trailer.
  void prepare_finish() {
    byte(kOpEof);
    crc_ = crc64(crc_, buf_);
    pending_eof_.swap(buf_);
    buf_.clear();
  }
  bool finish_prepared() {
    std::string trailer(8, '\0');
    for (int i = 0; i < 8; ++i)
      trailer[static_cast<std::size_t>(i)] = static_cast<char>((crc_ >> (8 * i)) & 0xff);
    return ok_ && flush_(pending_eof_) && flush_(trailer);
  }
};

void write_value(Out& out, const store::Value& v) {
  switch (v.type()) {
    case store::ValueType::kString: out.byte(kTypeString); return;
    case store::ValueType::kList: out.byte(kTypeList); return;
    case store::ValueType::kSet: out.byte(kTypeSet); return;
    case store::ValueType::kHash: out.byte(kTypeHash); return;
    case store::ValueType::kZSet: out.byte(kTypeZSet2); return;
    case store::ValueType::kStream: out.byte(kTypeStreamListpacks2); return;
  }
}

// A stream id as Redis' rax keys it: ms then seq, each big-endian.
std::string raw_id(store::StreamId id) {
  std::string out(16, '\0');
  for (int i = 0; i < 8; ++i) {
    out[static_cast<std::size_t>(i)] = static_cast<char>(id.ms >> (56 - 8 * i));
    out[static_cast<std::size_t>(8 + i)] = static_cast<char>(id.seq >> (56 - 8 * i));
  }
  return out;
}

void write_id(Out& out, store::StreamId id) {
  out.len(id.ms);
  out.len(id.seq);
}

// RDB_TYPE_STREAM_LISTPACKS_2 (Redis 7.0 rdbSaveObject): the nodes as they are, the stream's
// counters, then each group with its PEL and its consumers.
void write_stream(Out& out, const store::StreamValue& s) {
  out.len(s.nodes().size());
  for (const auto& [master, lp] : s.nodes()) {
    out.str(raw_id(master));
    out.str(lp.raw());
  }
  out.len(s.length());
  write_id(out, s.last_id());
  write_id(out, s.first_id());
  write_id(out, s.max_deleted_id());
  out.len(s.entries_added());
  out.len(s.groups().size());
  for (const auto& [name, g] : s.groups()) {
    out.str(name);
    write_id(out, g.last_id);
    out.len(static_cast<std::uint64_t>(g.entries_read));
    out.len(g.pel.size());
    for (const auto& [id, nack] : g.pel) {
      out.raw(raw_id(id));
      out.le64(static_cast<std::uint64_t>(nack.delivery_time));
      out.len(nack.delivery_count);
    }
    out.len(g.consumers.size());
    for (const auto& [cname, c] : g.consumers) {
      out.str(cname);
      out.le64(static_cast<std::uint64_t>(c.seen_time));
      out.len(c.pel.size());
      for (const auto& [id, nack] : c.pel) out.raw(raw_id(id));
    }
  }
}

void write_payload(Out& out, const store::Value& v) {
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
      out.len(h.size());
      h.for_each([&](std::string_view f, std::string_view val) {
        out.str(f);
        out.str(val);
      });
      return;
    }
    case store::ValueType::kZSet: {
      const store::ZSetValue& z = v.as_zset();
      out.len(z.size());
      z.for_each([&](std::string_view m, double score) {
        out.str(m);
        std::uint64_t bits;
        std::memcpy(&bits, &score, 8);
        out.le64(bits);
      });
      return;
    }
    case store::ValueType::kStream: write_stream(out, v.as_stream()); return;
  }
}

bool is_empty(const store::Value& v) {
  switch (v.type()) {
    case store::ValueType::kString: return false;
    case store::ValueType::kList: return v.as_list().empty();
    case store::ValueType::kSet: return v.as_set().empty();
    case store::ValueType::kHash: return v.as_hash().empty();
    case store::ValueType::kZSet: return v.as_zset().empty();
    case store::ValueType::kStream: return false;  // an empty stream is a value of its own
  }
  return false;
}

bool write_all_parts(Out& out, const store::Keyspace& ks, const RdbSaveOptions& o) {
  char header[16];
  std::snprintf(header, sizeof header, "REDIS%04d", kRdbVersion);
  out.raw(header);
  out.aux("redis-ver", o.redis_ver);
  out.aux("redis-bits", "64");
  out.aux("ctime", std::to_string(o.now_ms / 1000));
  out.aux("used-mem", "0");
  if (o.repl) {  // Redis rdbSaveInfoAuxFields' order: after used-mem, before aof-base
    out.aux("repl-stream-db", std::to_string(o.repl->stream_db));
    out.aux("repl-id", o.repl->replid);
    out.aux("repl-offset", std::to_string(o.repl->offset));
  }
  out.aux("aof-base", o.aof_base ? "1" : "0");
  for (const std::string& code : o.functions) {  // Redis rdbSaveFunctions
    out.byte(kOpFunction2);
    out.str(code);
  }
  for (int i = 0; i < ks.database_count(); ++i) {
    const store::Database& db = ks.db(i);
    if (db.size() == 0) continue;
    out.byte(kOpSelectDb);
    out.len(static_cast<std::uint64_t>(i));
    out.byte(kOpResizeDb);
    out.len(db.size());
    out.len(db.expires_count());
    db.dict().for_each([&](const store::Entry& e) {
      if (e.has_expire() && e.expire_at_ms <= o.now_ms) return;
      if (is_empty(e.value)) return;
      if (e.has_expire()) {
        out.byte(kOpExpireTimeMs);
        out.le64(static_cast<std::uint64_t>(e.expire_at_ms));
      }
      write_value(out, e.value);
      out.str(e.key());
      write_payload(out, e.value);
    });
    if (!out.ok()) return false;
  }
  out.prepare_finish();
  return out.finish_prepared();
}

}  // namespace

bool write_rdb(int fd, const store::Keyspace& keyspace, const RdbSaveOptions& options,
               std::string& err) {
  Out out([&](std::string_view chunk) { return write_all(fd, chunk, err); });
  return write_all_parts(out, keyspace, options);
}

bool write_rdb_file(const std::string& path, const store::Keyspace& keyspace,
                    const RdbSaveOptions& options, std::string& err) {
  bool ok = false;
  {
    const UniqueFd fd = create_file(path, err);
    ok = fd && write_rdb(fd.get(), keyspace, options, err) && data_sync(fd.get(), err);
  }
  if (!ok) remove_file(path);
  return ok;
}

std::string rdb_temp_path(const std::string& path, long pid) {
  return path + ".tmp-" + std::to_string(pid);
}

bool save_rdb_file(const std::string& temp, const std::string& path,
                   const store::Keyspace& keyspace, const RdbSaveOptions& options,
                   std::string& err) {
  return write_rdb_file(temp, keyspace, options, err) && install_file(temp, path, err);
}

bool save_rdb_file(const std::string& path, const store::Keyspace& keyspace,
                   const RdbSaveOptions& options, std::string& err) {
  return save_rdb_file(rdb_temp_path(path, static_cast<long>(::getpid())), path, keyspace, options,
                       err);
}

std::string encode_function_payload(const std::vector<std::string>& codes) {
  std::string s;
  for (const std::string& code : codes) {
    s.push_back(static_cast<char>(kOpFunction2));
    append_len(s, code.size());
    s.append(code);
  }
  s.push_back(10);  // Redis 7.0's RDB_VERSION, two bytes little-endian
  s.push_back(0);
  const std::uint64_t crc = crc64(0, s);
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  return s;
}

std::string rdb_to_string(const store::Keyspace& keyspace, const RdbSaveOptions& options) {
  std::string s;
  Out out([&](std::string_view chunk) {
    s.append(chunk);
    return true;
  });
  write_all_parts(out, keyspace, options);
  return s;
}

}  // namespace listd::persistence
