#include "listd/server/scan_args.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "listd/server/command_context.h"
#include "listd/server/errors.h"
#include "listd/server/text.h"

namespace listd::server {

bool parse_scan_cursor(CommandContext& ctx, std::size_t i, std::uint64_t& out) {
  const std::string text(ctx.arg(i));
  char* end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 10);
  // Redis parseScanCursorOrReply uses strtoul the same way, so "" is cursor 0.
  if (*end != '\0' || errno == ERANGE || std::isspace(static_cast<unsigned char>(text[0]))) {
    ctx.reply().error("ERR invalid cursor");
    return false;
  }
  return true;
}

bool parse_scan_options(CommandContext& ctx, std::size_t i, bool allow_type, ScanOptions& o) {
  for (; i < ctx.argc(); i += 2) {
    const bool has_value = ctx.argc() - i >= 2;
    const std::string_view opt = ctx.arg(i);
    if (base::iequals(opt, "count") && has_value) {
      if (!ctx.parse_integer(i + 1, o.count)) return false;
      if (o.count < 1) {
        ctx.reply().error(kSyntaxErr);
        return false;
      }
    } else if (base::iequals(opt, "match") && has_value) {
      o.pattern = ctx.arg(i + 1);
      o.use_pattern = !(o.pattern.size() == 1 && o.pattern[0] == '*');
    } else if (allow_type && base::iequals(opt, "type") && has_value) {
      o.type = ctx.arg(i + 1);
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  return true;
}

void reply_empty_scan(CommandContext& ctx) {
  auto r = ctx.reply();
  r.array_header(2);
  r.bulk("0");
  r.array_header(0);
}

}  // namespace listd::server
