// RDB writer: see rdb.h. Each key's object is written by the value codec (value_codec.h).
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>

#include "listd/persistence/crc64.h"
#include "listd/persistence/file_io.h"
#include "listd/persistence/rdb.h"
#include "listd/persistence/value_codec.h"
#include "rdb_primitives.h"

namespace listd::persistence {
namespace {

constexpr std::size_t kFlushAt = 64 * 1024;

// Buffers output, keeps the running CRC, hands full chunks to `flush_`.
class Out {
 public:
  Out(std::function<bool(std::string_view)> flush, bool compress)
      : flush_(std::move(flush)), compress_(compress) {}

  void byte(unsigned char b) {
    buf_.push_back(static_cast<char>(b));
    maybe_flush();
  }
  void raw(std::string_view s) {
    buf_.append(s);
    maybe_flush();
  }
  void len(std::uint64_t n) {
    rdb::append_len(buf_, n);
    maybe_flush();
  }
  void str(std::string_view s) {
    rdb::append_string(buf_, s, compress_);
    maybe_flush();
  }
  void le64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) buf_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    maybe_flush();
  }
  // The value's object, flushed as it grows (a large list is not copied whole first).
  void value(const store::Value& v) {
    encode_value_body(v, buf_, compress_, [this] { maybe_flush(); });
    maybe_flush();
  }
  void aux(std::string_view k, std::string_view v) {
    byte(rdb::kOpAux);
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
  bool compress_;
  std::string buf_;
  std::string pending_eof_;
  std::uint64_t crc_ = 0;
  bool ok_ = true;

 public:
  // Ends the file: the EOF opcode, then the CRC of every byte before the trailer.
  void prepare_finish() {
    byte(rdb::kOpEof);
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

// Redis rdbSaveKeyValuePair: the key's idle time or LFU counter, after its expiry.
void write_access_record(Out& out, const store::Entry& e, const RdbSaveOptions& o) {
  if (o.access_record == RdbSaveOptions::AccessRecord::kNone || !o.access_value) return;
  const std::uint64_t value = o.access_value(e.lru);
  if (o.access_record == RdbSaveOptions::AccessRecord::kIdle) {
    out.byte(rdb::kOpIdle);
    out.len(value);
  } else {
    out.byte(rdb::kOpFreq);
    out.byte(static_cast<unsigned char>(value));
  }
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
  if (!o.filter.exclude_functions) {
    for (const std::string& code : o.functions) {  // Redis rdbSaveFunctions
      out.byte(rdb::kOpFunction2);
      out.str(code);
    }
  }
  std::size_t keys = 0;
  const int databases = o.filter.exclude_data ? 0 : ks.database_count();
  for (int i = 0; i < databases; ++i) {
    const store::Database& db = ks.db(i);
    if (db.size() == 0) continue;
    out.byte(rdb::kOpSelectDb);
    out.len(static_cast<std::uint64_t>(i));
    out.byte(rdb::kOpResizeDb);
    out.len(db.size());
    out.len(db.expires_count());
    db.dict().for_each([&](const store::Entry& e) {
      if (e.has_expire() && e.expire_at_ms <= o.now_ms) return;
      if (is_empty(e.value)) return;
      if (e.has_expire()) {
        out.byte(rdb::kOpExpireTimeMs);
        out.le64(static_cast<std::uint64_t>(e.expire_at_ms));
      }
      write_access_record(out, e, o);
      out.byte(rdb_value_type(e.value));
      out.str(e.key());
      out.value(e.value);
      if ((keys++ & 1023) == 0 && o.progress) o.progress(keys);  // as Redis' rdbSaveDb
    });
    if (!out.ok()) return false;
  }
  out.prepare_finish();
  return out.finish_prepared();
}

}  // namespace

std::size_t key_count(const store::Keyspace& keyspace) noexcept {
  std::size_t n = 0;
  for (int i = 0; i < keyspace.database_count(); ++i) n += keyspace.db(i).size();
  return n;
}

bool write_rdb(int fd, const store::Keyspace& keyspace, const RdbSaveOptions& options,
               std::string& err) {
  Out out([&](std::string_view chunk) { return write_all(fd, chunk, err); }, options.compress);
  return write_all_parts(out, keyspace, options);
}

bool stream_rdb(const RdbSink& sink, const store::Keyspace& keyspace,
                const RdbSaveOptions& options) {
  Out out(sink, options.compress);
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

std::string encode_function_payload(const std::vector<std::string>& codes, bool compress) {
  std::string s;
  for (const std::string& code : codes) {
    s.push_back(static_cast<char>(rdb::kOpFunction2));
    rdb::append_string(s, code, compress);
  }
  append_dump_footer(s);
  return s;
}

std::string rdb_to_string(const store::Keyspace& keyspace, const RdbSaveOptions& options) {
  std::string s;
  Out out(
      [&](std::string_view chunk) {
        s.append(chunk);
        return true;
      },
      options.compress);
  write_all_parts(out, keyspace, options);
  return s;
}

}  // namespace listd::persistence
