// RDB snapshots in the format every Redis from 5.0 to 7.x loads: version 9, plain types
// (string 0, list 1 "a length then that many strings", set 2, hash 4, sorted set 5 with binary
// doubles), AUX fields, SELECTDB + RESIZEDB per non-empty database, EXPIRETIME_MS for keys with
// a deadline, EOF and the CRC-64/Jones trailer (little-endian), as rdb.c writes and checks it.
// Every string (key, value, AUX field, FUNCTION code) follows rdbSaveRawString's LZF rule under
// rdbcompression (RdbSaveOptions::compress, value_codec.h).
// FUNCTION libraries go after the AUX fields, one RDB_OPCODE_FUNCTION2 (245) and the library's
// code each, as Redis 7.0 writes them; FUNCTION DUMP's payload is the same records, the RDB
// version (10) and the CRC-64 (encode/decode_function_payload).
//
// API: write_rdb (to a file descriptor, streaming), stream_rdb (to a chunk sink: a diskless
// sync), write_rdb_file (a new file, fdatasynced: the AOF rewrite child's base), save_rdb_file
// (temp file then rename: SAVE, BGSAVE's child, a new AOF's first base), rdb_to_string (tests),
// load_rdb (from bytes into a Keyspace; also reads what Redis 7.0 writes for lists, sets, hashes
// and sorted sets: LZF and integer strings, intset, ziplist, listpack, quicklist and quicklist2).
// Invariant of the writer: keys already expired at `now_ms` are not written; empty containers
// are never written (the store deletes them).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "listd/store/database.h"

namespace listd::persistence {

inline constexpr int kRdbVersion = 9;

/// What a snapshot made for a replica's full sync records of the stream it starts from.
struct RdbReplInfo {
  int stream_db = 0;     ///< AUX "repl-stream-db": the db the stream's next bytes apply to
  std::string replid;    ///< AUX "repl-id"
  long long offset = 0;  ///< AUX "repl-offset": the stream offset at the fork
};

/// What a replica asked to leave out of its RDB (REPLCONF rdb-filter-only; Redis'
/// SLAVE_REQ_RDB_EXCLUDE_DATA / _FUNCTIONS). The header and the AUX fields are always written.
struct RdbFilter {
  bool exclude_data = false;       ///< no SELECTDB, no key in any database
  bool exclude_functions = false;  ///< no FUNCTION2 record
  /// True when something is left out: such an RDB never goes to dump.rdb (diskless only).
  bool any() const noexcept { return exclude_data || exclude_functions; }
  friend bool operator==(const RdbFilter&, const RdbFilter&) = default;
};

struct RdbSaveOptions {
  std::string redis_ver = "7.0.15";  ///< AUX "redis-ver"
  std::int64_t now_ms = 0;           ///< AUX "ctime" and the expiry cut-off
  bool aof_base = false;             ///< AUX "aof-base" 1: this RDB is an AOF base file
  /// rdbcompression: every string (keys, values, AUX fields, FUNCTION code) of more than 20
  /// bytes is LZF-encoded when that saves at least 4 bytes (Redis rdbSaveRawString).
  bool compress = true;
  std::optional<RdbReplInfo> repl;     ///< the repl-* AUX fields (a replica's full sync)
  std::vector<std::string> functions;  ///< each FUNCTION library's code
  RdbFilter filter;                    ///< the parts left out (a filtered replica's RDB)
  /// Redis rdbSaveKeyValuePair's access record before each key: IDLE (248, the idle seconds)
  /// under an LRU maxmemory-policy, FREQ (249, the LFU counter) under an LFU one, none else.
  /// `access_value` maps the key's store::Entry::lru to that number.
  enum class AccessRecord : std::uint8_t {
    kNone,
    kIdle,
    kFreq
  } access_record = AccessRecord::kNone;
  std::function<std::uint64_t(std::uint32_t lru)> access_value;
  /// Called with the count of keys written at the first key and every 1024 keys after (a fork
  /// child's progress reports, child_reports.h); unset: nothing is called.
  std::function<void(std::size_t keys)> progress;
};

/// The keys of every database (Redis dbTotalServerKeyCount): what a snapshot is to write, at
/// most (expired keys are left out as it goes).
std::size_t key_count(const store::Keyspace& keyspace) noexcept;

/// Takes each chunk of a snapshot being written; false stops the writer.
using RdbSink = std::function<bool(std::string_view chunk)>;
/// Writes the keyspace to `sink` in chunks of about 64 KB (a diskless sync's sockets). False
/// when the sink refused a chunk.
bool stream_rdb(const RdbSink& sink, const store::Keyspace& keyspace,
                const RdbSaveOptions& options);
/// Writes the keyspace to `fd` (buffered, one write per 64 KB). False with `err` on failure.
bool write_rdb(int fd, const store::Keyspace& keyspace, const RdbSaveOptions& options,
               std::string& err);
/// Writes the keyspace to `path` (created or emptied) and fdatasyncs it. On failure the file is
/// removed and `err` says why.
bool write_rdb_file(const std::string& path, const store::Keyspace& keyspace,
                    const RdbSaveOptions& options, std::string& err);
/// Where a snapshot of `path` is written before its rename: `<path>.tmp-<pid>`.
std::string rdb_temp_path(const std::string& path, long pid);
/// write_rdb_file to `temp`, then renames it over `path` and syncs the directory: readers see
/// the old or the new snapshot, never a mix.
bool save_rdb_file(const std::string& temp, const std::string& path,
                   const store::Keyspace& keyspace, const RdbSaveOptions& options,
                   std::string& err);
/// save_rdb_file through this process's temporary file (SAVE, a new AOF's first base).
bool save_rdb_file(const std::string& path, const store::Keyspace& keyspace,
                   const RdbSaveOptions& options, std::string& err);
/// The RDB bytes of the keyspace (tests, small data sets).
std::string rdb_to_string(const store::Keyspace& keyspace, const RdbSaveOptions& options);

struct RdbLoadResult;

struct RdbLoadOptions {
  std::int64_t now_ms = 0;
  /// Drop keys whose deadline passed (a master loading dump.rdb does; an AOF base does not,
  /// because the AOF will DEL them).
  bool skip_expired = true;
  /// When set, each loaded key's store::Entry::lru is this function of the IDLE seconds and the
  /// FREQ counter recorded before it (-1 when absent), as Redis' objectSetLRUOrLFU at load.
  std::function<std::uint32_t(long long idle_s, long long freq)> access_word;
  /// When set, called each time another `progress_interval_bytes` of the input has been read
  /// (Redis rdbLoadProgressCallback), with the bytes read and the result so far (keys, the
  /// "used-mem" AUX field). Returning false stops the load: not ok, `interrupted` set.
  std::size_t progress_interval_bytes = 0;
  std::function<bool(std::size_t loaded_bytes, const RdbLoadResult& so_far)> progress;
};

struct RdbLoadResult {
  bool ok = false;
  std::string error;
  int version = 0;
  std::size_t consumed = 0;  ///< bytes of the RDB, trailer included (an AOF tail may follow)
  std::uint64_t keys = 0;    ///< keys loaded
  std::uint64_t expired_skipped = 0;
  std::uint64_t empty_skipped = 0;
  bool checksum_checked = false;
  int repl_stream_db = -1;             ///< AUX "repl-stream-db" when present (a master's full sync)
  std::uint64_t rdb_used_mem = 0;      ///< AUX "used-mem" when present
  bool interrupted = false;            ///< RdbLoadOptions::progress asked to stop
  std::vector<std::string> functions;  ///< the FUNCTION libraries' codes, to load
};

/// Loads RDB bytes (`data` starts with "REDIS") into `keyspace`, which must not hold the keys
/// already (a duplicate key is an error).
RdbLoadResult load_rdb(std::string_view data, store::Keyspace& keyspace,
                       const RdbLoadOptions& options);

/// FUNCTION DUMP: a FUNCTION2 record per code (LZF-compressed as a file's under `compress`, the
/// rdbcompression setting), RDB version 10 and the CRC-64, little-endian.
std::string encode_function_payload(const std::vector<std::string>& codes, bool compress = true);
/// FUNCTION RESTORE's reading of a payload (Redis verifyDumpPayload, then the records): ""
/// with the codes, or the error reply text.
std::string decode_function_payload(std::string_view payload, std::vector<std::string>& codes);

}  // namespace listd::persistence
