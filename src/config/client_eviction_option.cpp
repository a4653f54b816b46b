// maxmemory-clients (Redis 7.0's ssize_t MEMORY_CONFIG | PERCENT_CONFIG, -100..SSIZE_MAX): the
// ceiling on what normal and pub/sub clients hold together before the largest are closed
// (server/client_eviction.h). Bytes, or a percentage of maxmemory kept as a negative number,
// as Redis keeps it: "10%" reads back as "10%".
#include <fmt/format.h>

#include <climits>

#include "listd/base/number.h"
#include "option_table.h"

namespace listd::config::detail {
namespace {

constexpr long long kLowestPercent = -100;

// Redis numericParseString for this option: a memory value first, then a percentage.
bool set_maxmemory_clients(ServerSettings& s, Args args, bool, std::string& err) {
  if (args.size() != 1) {
    err = "wrong number of arguments";
    return false;
  }
  const std::string_view text = args[0];
  long long v = 0;
  if (const std::optional<unsigned long long> bytes = parse_memory_size(text)) {
    if (*bytes > static_cast<unsigned long long>(LLONG_MAX)) {
      err = fmt::format("argument must be between {} and {} inclusive", kLowestPercent, LLONG_MAX);
      return false;
    }
    v = static_cast<long long>(*bytes);
  } else if (text.size() > 1 && text.back() == '%' &&
             base::parse_strict_integer(text.substr(0, text.size() - 1), v) && v >= 0) {
    if (-v < kLowestPercent) {
      err = fmt::format("percentage argument must be less or equal to {}", -kLowestPercent);
      return false;
    }
    v = -v;
  } else {
    err = "argument must be a memory or percent value";
    return false;
  }
  s.maxmemory_clients = v;
  return true;
}

std::string get_maxmemory_clients(const ServerSettings& s) {
  const long long v = s.maxmemory_clients;
  return v < 0 ? fmt::format("{}%", -v) : std::to_string(v);
}

// Redis rewriteConfigPercentOption / rewriteConfigBytesOption: a line the file has is rewritten
// even at the default; one it lacks is appended only when not the default.
RewriteEntry rewrite_maxmemory_clients(const ServerSettings& s) {
  const long long v = s.maxmemory_clients;
  const std::string text = v < 0 ? fmt::format("{}%", -v) : format_memory_for_file(v);
  return {"maxmemory-clients", {"maxmemory-clients " + text}, v != 0};
}

}  // namespace

OptionSpec maxmemory_clients_option() {
  return {{"maxmemory-clients", {}, OptionType::kSpecial, 0},
          SpecialSpec{&set_maxmemory_clients, &get_maxmemory_clients, &rewrite_maxmemory_clients}};
}

}  // namespace listd::config::detail
