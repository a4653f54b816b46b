// Stream argument grammar and replies shared by the stream command families (Redis 7.0
// t_stream.c): id parsing (streamGenericParseIDOrReply), the XADD/XTRIM trim options
// (streamParseAddOrTrimArgsOrReply), the entry-range reply (streamReplyWithRange without a
// group) and the id reply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "listd/protocol/reply_writer.h"
#include "listd/store/stream_value.h"

namespace listd::server {

class CommandContext;

inline constexpr std::string_view kInvalidStreamIdErr =
    "ERR Invalid stream ID specified as stream command argument";

/// `<ms>-<seq>`, `<ms>` (seq = missing_seq), `-` / `+` unless `strict`, and `<ms>-*` when
/// `seq_given` is non-null (then *seq_given says whether the sequence was given).
bool parse_stream_id(std::string_view text, store::StreamId& id, std::uint64_t missing_seq,
                     bool strict, bool* seq_given = nullptr) noexcept;
/// The same, replying kInvalidStreamIdErr on failure.
bool parse_stream_id_or_reply(CommandContext& ctx, std::string_view text, store::StreamId& id,
                              std::uint64_t missing_seq, bool strict, bool* seq_given = nullptr);

/// The start or end of an interval (XRANGE, XPENDING, XAUTOCLAIM): `(` makes it exclusive
/// (moved by one id; Redis' "invalid start/end ID for the interval" at the edge of the space).
bool parse_interval_id_or_reply(CommandContext& ctx, std::string_view text, bool start,
                                store::StreamId& id);

/// The parsed XADD / XTRIM options.
struct StreamAddTrimArgs {
  store::StreamTrim trim;
  store::StreamId id;
  bool id_given = false;
  bool seq_given = false;
  bool no_mkstream = false;
  std::size_t trim_arg = 0;  // argv index of the MAXLEN count / MINID id (for the effect)
  std::size_t id_pos = 0;    // XADD: argv index of the id
};
/// Parses argv from index 2 as Redis does; false after replying the error.
bool parse_add_trim_args(CommandContext& ctx, bool xadd, StreamAddTrimArgs& out);

/// "<ms>-<seq>" as a bulk string.
void reply_stream_id(protocol::ReplyWriter r, store::StreamId id);
/// One entry: [id, [field, value, ...]].
void reply_stream_entry(protocol::ReplyWriter r, const store::StreamIterator& it);
/// The live entries in [start, end] (reversed when `rev`), at most `count` (0 = all), as an
/// array of entries; returns how many.
std::size_t reply_stream_range(protocol::ReplyWriter r, const store::StreamValue& s,
                               store::StreamId start, store::StreamId end, std::size_t count,
                               bool rev);

}  // namespace listd::server
