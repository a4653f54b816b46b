// LOLWUT [VERSION version] [args...]: computer art, as Redis 7.0.15 lolwut.c dispatches it.
//
// The VERSION option and the argument grammar are Redis' (an integer version; 5 takes columns,
// squares per row and per column, 6 takes columns and rows, each an integer clamped to Redis'
// limits); every other version answers "Redis ver. <version>\n" as 7.0 does. The drawings for 5
// and 6 are listd's own, deterministic, and end with a caption naming the server's version, as
// Redis' do. The reply is verbatim text (RESP3 `=`, RESP2 bulk).
#include <algorithm>
#include <cstdint>
#include <string>

#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/version.h"

namespace listd::server {
namespace {

/// The optional integer arguments after the version's own position; false after replying.
bool parse_art_args(CommandContext& ctx, std::size_t from, long long* out, std::size_t n) {
  for (std::size_t i = 0; i < n && from + i < ctx.argc(); ++i)
    if (!ctx.parse_integer(from + i, out[i])) return false;
  return true;
}

/// A small deterministic generator: the same art for the same arguments.
struct ArtRandom {
  std::uint32_t state = 2463534242u;
  std::uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
};

/// Version 5: a grid of squares that come apart towards the bottom (after schotter's idea). At
/// most 1,000 lines, so LOLWUT stays cheap whatever the arguments.
std::string draw_squares(long long cols, long long per_row, long long per_col) {
  const long long side = std::max(1LL, cols / per_row);
  const long long square_rows = std::max(1LL, side / 2);
  const long long height = std::min(1000LL, square_rows * per_col);
  std::string art;
  ArtRandom rnd;
  for (long long y = 0; y < height; ++y) {
    const long long sy = y / square_rows;
    std::string line(static_cast<std::size_t>(cols), ' ');
    for (long long sx = 0; sx < per_row; ++sx) {
      // Disorder grows with the square's row: a shift of up to sy * side / per_col columns.
      const long long spread = sy * side / std::max(1LL, per_col) + 1;
      const long long shift = static_cast<long long>(rnd.next() % spread) - spread / 2;
      const long long left = sx * side + shift, right = left + side - 1;
      const bool edge_row = y % square_rows == 0 || y % square_rows == square_rows - 1;
      for (long long x = left; x <= right; ++x) {
        if (x < 0 || x >= cols) continue;
        const bool edge_col = x == left || x == right;
        if (edge_row || edge_col) line[static_cast<std::size_t>(x)] = edge_row ? '-' : '|';
      }
    }
    art += line;
    art += '\n';
  }
  art += "\nlistd - squares coming apart, characters on a terminal. Redis ver. ";
  return art;
}

/// Version 6: a skyline under a moon, `cols` by `rows` characters.
std::string draw_skyline(long long cols, long long rows) {
  std::string art;
  ArtRandom rnd;
  std::string heights(static_cast<std::size_t>(cols), 0);
  for (long long x = 0; x < cols;) {  // buildings 2..7 columns wide
    const long long width = 2 + rnd.next() % 6, h = rnd.next() % (rows * 2 / 3 + 1);
    for (long long k = 0; k < width && x < cols; ++k, ++x)
      heights[static_cast<std::size_t>(x)] = static_cast<char>(std::min(h, 127LL));
  }
  const long long moon_x = cols * 3 / 4, moon_y = rows / 5;
  for (long long y = 0; y < rows; ++y) {
    for (long long x = 0; x < cols; ++x) {
      const long long from_ground = rows - 1 - y;
      char ch = ' ';
      if (from_ground < heights[static_cast<std::size_t>(x)])
        ch = (rnd.next() % 5 == 0) ? ':' : '#';  // lit windows
      else if (x == moon_x && y == moon_y)
        ch = 'O';
      else if (rnd.next() % 41 == 0)
        ch = '.';  // stars
      art += ch;
    }
    art += '\n';
  }
  art += "\nlistd - a city at night. Redis ver. ";
  return art;
}

// LOLWUT [VERSION version] [args ...]
void cmd_lolwut(CommandContext& ctx) {
  long long version = 7;
  std::size_t args_at = 1;
  if (ctx.argc() >= 3 && base::iequals(ctx.arg(1), "version")) {
    if (!ctx.parse_integer(2, version)) return;
    args_at = 3;
  }
  // Redis formats the version as "%u.0.0" and tests its first characters: only 5 and 6 draw.
  const auto as_unsigned = static_cast<unsigned>(version);
  std::string text;
  if (as_unsigned == 5) {
    long long a[3] = {66, 8, 12};  // columns, squares per row, squares per column
    if (!parse_art_args(ctx, args_at, a, 3)) return;
    text = draw_squares(std::clamp(a[0], 1LL, 1000LL), std::clamp(a[1], 1LL, 200LL),
                        std::clamp(a[2], 1LL, 200LL));
  } else if (as_unsigned == 6) {
    long long a[2] = {80, 20};  // columns, rows
    if (!parse_art_args(ctx, args_at, a, 2)) return;
    text = draw_skyline(std::clamp(a[0], 1LL, 1000LL), std::clamp(a[1], 1LL, 1000LL));
  } else {
    text = "Redis ver. ";
  }
  text.append(kRedisCompatVersion).append("\n");
  ctx.reply().verbatim(text);
}

}  // namespace

void register_lolwut_commands(CommandTable& table) {
  CommandFamily t = table.family("server");
  t.add("lolwut", -1, kReadonly | kFast, kNoKeys, &cmd_lolwut, "5.0.0",
        "Display some computer art and the Redis version");
}

}  // namespace listd::server
