// The multi-part AOF manifest of Redis 7.0 (aof.c aofLoadManifestFromFile /
// getAofManifestAsString): one line per file, `file <name> seq <n> type b|h|i\n`.
//
// API: AofManifest (base, history and incr files; to_string in Redis' order: base, history,
// incrs), parse_manifest (Redis' rules and error texts), the file-name helpers.
// Parsing rules kept from Redis: lines starting with '#' are comments; every other line must end
// in '\n' and hold at most 1024 bytes; keys in any order, extra key/value pairs allowed (argc >= 6
// and even); a blank line, an empty manifest, a missing key, a path instead of a base name, a
// second base, an unknown type or a non-increasing incr seq are errors.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace listd::persistence {

enum class AofFileType : char { kBase = 'b', kHistory = 'h', kIncr = 'i' };

struct AofFileInfo {
  std::string name;
  long long seq = 0;
  AofFileType type = AofFileType::kIncr;
  bool operator==(const AofFileInfo&) const = default;
};

struct AofManifest {
  std::optional<AofFileInfo> base;
  std::vector<AofFileInfo> history;
  std::vector<AofFileInfo> incrs;
  long long curr_base_seq = 0;
  long long curr_incr_seq = 0;

  /// The manifest text, every line ending in '\n' (names quoted when they need it).
  std::string to_string() const;
  bool operator==(const AofManifest&) const = default;
};

/// Why a manifest was refused: Redis' message, and the 1-based line with its trimmed text (line
/// 0 when the error is not about one line, e.g. an empty manifest).
struct ManifestError {
  std::string message;
  int line = 0;
  std::string text;
};

/// Parses manifest text. On failure returns false and fills `error`.
bool parse_manifest(std::string_view text, AofManifest& out, ManifestError& error);

/// `<prefix>.<seq>.base.rdb` (or `.base.aof`), `<prefix>.<seq>.incr.aof`, `<prefix>.manifest`.
std::string base_file_name(std::string_view prefix, long long seq, bool rdb);
std::string incr_file_name(std::string_view prefix, long long seq);
std::string manifest_file_name(std::string_view prefix);

}  // namespace listd::persistence
