// One value in Redis' RDB object encoding (a type byte, then the object), written and read by
// the same code for dump.rdb (rdb_writer.cpp / rdb_reader.cpp) and for DUMP / RESTORE, whose
// payload is Redis 7.0's createDumpPayload: the object, the RDB version (10, two bytes
// little-endian) and the CRC-64 of all that precedes it (eight bytes little-endian).
//
// API: rdb_value_type + encode_value_body (the writer's two halves, a key goes between them in
// a file), encode_dump_payload (DUMP), decode_dump_payload (RESTORE: verifyDumpPayload, then
// rdbLoadObject).
// Invariant: listd writes the plain types (string 0, list 1, set 2, hash 4, zset 5 with binary
// doubles) but a listpack hash or sorted set as Redis 7.0 does (hash 16, zset 17: on load the
// count alone decides whether a listpack stays one, so a reload keeps what Redis' keeps), and
// streams as type 19; Redis 7.0 reads all of them (a 6.x reads neither 16, 17 nor 19); it reads
// those and Redis 7.0's other compact encodings.
// Strings (elements, fields, listpack blobs, stream nodes, group and consumer names) are written
// by Redis rdbSaveRawString's rule: with `compress` (rdbcompression yes, Redis' default) one of
// more than 20 bytes is LZF-encoded when that saves at least 4 bytes; listd's LZF bytes may
// differ from liblzf's, the string they decode to does not.
// Decoding never trusts a length: a malformed payload is an error, never a crash.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "listd/store/value.h"

namespace listd::persistence {

/// The RDB version a DUMP payload carries (Redis 7.0's RDB_VERSION).
inline constexpr unsigned kDumpRdbVersion = 10;

/// The RDB type byte listd writes `v` under.
unsigned char rdb_value_type(const store::Value& v) noexcept;
/// Appends `v`'s object (without its type byte) to `out`, its strings LZF-compressed when
/// `compress` allows. When `spill` is given it is called whenever `out` holds 64 KB or more, so
/// a file writer can flush it (it may clear `out`).
void encode_value_body(const store::Value& v, std::string& out, bool compress,
                       const std::function<void()>& spill = {});

/// DUMP's reply for `v`: type byte, object, RDB version, CRC-64 (Redis createDumpPayload, whose
/// strings follow rdbcompression as a file's do: pass the setting as `compress`).
std::string encode_dump_payload(const store::Value& v, bool compress = true);

enum class DumpPayloadError {
  kNone,
  kVersionOrChecksum,  ///< Redis verifyDumpPayload failed: shorter than 10 bytes, a newer RDB
                       ///< version, or a CRC-64 mismatch
  kBadFormat,          ///< the object does not decode (or is an empty collection)
};

struct DecodedDump {
  DumpPayloadError error = DumpPayloadError::kNone;
  std::optional<store::Value> value;  ///< set when error is kNone
};

/// RESTORE's reading of a payload. Bytes between the object and the footer are ignored, as
/// Redis ignores them.
DecodedDump decode_dump_payload(std::string_view payload);

/// Redis verifyDumpPayload: true when the footer's version is at most 10 and its CRC-64 matches.
bool verify_dump_payload(std::string_view payload) noexcept;
/// Appends the footer (RDB version 10, CRC-64 of `payload` so far) to `payload`.
void append_dump_footer(std::string& payload);

}  // namespace listd::persistence
