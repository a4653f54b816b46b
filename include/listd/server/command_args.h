// Argument grammars that several command families share, each written once in Redis 7.0's check
// order (the order is visible on the wire: the first failing check names the error):
// LEFT|RIGHT, and the "numkeys key [key ...] WHERE [COUNT count]" of LMPOP, BLMPOP, ZMPOP and
// BZMPOP. Single-family options stay in their handlers, parsed by index like Redis.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "listd/server/list_end.h"

namespace listd::server {

class CommandContext;

/// Redis getListPositionFromObjectOrReply: argv[i] is LEFT or RIGHT, in any case. Otherwise
/// replies the syntax error and returns false.
bool parse_end(CommandContext& ctx, std::size_t i, End& out);

/// The words that name a container's two ends in an MPOP command.
struct MpopEnds {
  std::string_view head;  ///< "left" for lists, "min" for sorted sets
  std::string_view tail;  ///< "right", "max"
};
inline constexpr MpopEnds kListEnds{"left", "right"};
inline constexpr MpopEnds kZSetEnds{"min", "max"};

/// What an MPOP command asked for.
struct MpopArgs {
  std::span<const std::string_view> keys;
  End where = End::kHead;  ///< LEFT / MIN: kHead; RIGHT / MAX: kTail
  long long count = 1;     ///< COUNT, 1 when absent
};

/// Redis lmpopGenericCommand / zmpopGenericCommand: parses "numkeys key [key ...] WHERE
/// [COUNT count]" with numkeys at argv[numkeys_at]. Errors, in Redis' order: numkeys not an
/// integer >= 1 ("numkeys should be greater than 0"); no argument left for WHERE, or WHERE not
/// one of `ends` (syntax error); COUNT not an integer >= 1 ("count should be greater than 0");
/// any other, repeated or valueless option (syntax error). Replies the error and returns
/// nullopt. The timeout of BLMPOP/BZMPOP is checked by the caller, after this.
std::optional<MpopArgs> parse_mpop_args(CommandContext& ctx, std::size_t numkeys_at, MpopEnds ends);

}  // namespace listd::server
