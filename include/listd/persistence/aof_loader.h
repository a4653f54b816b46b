// Reads an AOF file (RESP arrays of bulk strings) and hands each complete command to a sink,
// with Redis 7.0's load rules (aof.c loadSingleAppendOnlyFile):
//  - `#` lines are annotations and are skipped;
//  - any other byte where a command must start, a bad `*`/`$` header or a payload not followed
//    by CRLF is a format error (fatal, whatever aof-load-truncated says);
//  - end of file inside a command is a torn tail: the result says kTruncated with the offset of
//    the end of the last complete command (the caller cuts the file there if the policy allows);
//  - a MULTI without its EXEC at the end is reverted: kTruncated at the offset before the MULTI
//    that opened the transaction (a MULTI inside it opens none), `reverted_multi` set (the sink
//    saw the queued commands: the caller discards them).
//    (Redis reverts only on a clean EOF; listd also cuts before the MULTI when the tail is torn
//    inside a transaction, so that later appends never land inside an unfinished MULTI.)
// The loader has no policy and no knowledge of commands: the sink may refuse one (unknown
// command), which stops loading with kFailed.
//
// API: load_aof_bytes (a buffer), load_aof_file (streams a file in 1 MB chunks; memory does
// not grow with the file). argv views given to the sink live until the sink returns.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace listd::persistence {

/// Runs one command. Return false (and set `error`) to stop loading.
using AofCommandSink =
    std::function<bool(std::span<const std::string_view> argv, std::string& error)>;

/// Called every kAofProgressCommands commands with the offset after the last one (Redis serves
/// its clients as often while it loads an AOF). Return false to stop loading (kFailed,
/// `interrupted` set).
using AofProgress = std::function<bool(std::uint64_t offset)>;
inline constexpr std::uint64_t kAofProgressCommands = 1024;

enum class AofLoadStatus {
  kOk,         ///< every byte was complete commands (or annotations)
  kEmpty,      ///< the file has no bytes after `start_offset`
  kTruncated,  ///< torn tail or unfinished MULTI: cut at valid_up_to to repair
  kFailed,     ///< format error, I/O error or refused command: `error`, at `error_offset`
};

struct AofLoadResult {
  AofLoadStatus status = AofLoadStatus::kOk;
  std::uint64_t commands = 0;     ///< commands handed to the sink
  std::uint64_t valid_up_to = 0;  ///< offset just after the last command to keep
  std::uint64_t end_offset = 0;   ///< bytes read in total (file size when no error)
  bool reverted_multi = false;
  bool interrupted = false;
  std::string error;
  std::uint64_t error_offset = 0;
};

/// Loads `data` as if it were a file; offsets are relative to `data` plus `base_offset`.
AofLoadResult load_aof_bytes(std::string_view data, const AofCommandSink& sink,
                             std::uint64_t base_offset = 0, const AofProgress& progress = {});
/// Loads the file at `path` starting at `start_offset` (after an RDB preamble, for example).
AofLoadResult load_aof_file(const std::string& path, const AofCommandSink& sink,
                            std::uint64_t start_offset = 0, const AofProgress& progress = {});

}  // namespace listd::persistence
