// client-output-buffer-limit: Redis 7.0's grammar (config.c updateClientOutputBufferLimit),
// CONFIG GET text and CONFIG REWRITE lines. Several classes may come in one value, as
// <class> <hard> <soft> <soft-seconds> groups; one bad group refuses the whole value.
#include <fmt/format.h>

#include <cstdlib>

#include "listd/base/redis_text.h"
#include "option_table.h"

namespace listd::config::detail {
namespace {

// Redis getClientTypeByName; `master`, a class Redis knows but refuses to configure, gets the
// same error as an unknown name.
std::optional<ClientClass> class_by_name(const std::string& name) {
  if (base::iequals(name, "normal")) return ClientClass::kNormal;
  if (base::iequals(name, "slave") || base::iequals(name, "replica")) return ClientClass::kReplica;
  if (base::iequals(name, "pubsub")) return ClientClass::kPubsub;
  return std::nullopt;
}

// Redis getClientTypeName (CONFIG GET still says "slave"; the rewrite says "replica").
constexpr std::string_view kGetNames[kClientClassCount] = {"normal", "slave", "pubsub"};
constexpr std::string_view kRewriteNames[kClientClassCount] = {"normal", "replica", "pubsub"};

// Redis reads soft_seconds with strtoll into an int and only checks the end pointer and sign.
bool parse_soft_seconds(const std::string& word, long long& out) {
  char* end = nullptr;
  const int seconds = static_cast<int>(std::strtoll(word.c_str(), &end, 10));
  if (*end != '\0' || seconds < 0) return false;
  out = seconds;
  return true;
}

}  // namespace

bool set_output_buffer_limits(ServerSettings& s, Args args, bool, std::string& err) {
  if (args.size() % 4 != 0) {
    err = "Wrong number of arguments in buffer limit configuration.";
    return false;
  }
  auto next = s.client_obuf_limits;
  for (std::size_t j = 0; j < args.size(); j += 4) {
    const std::optional<ClientClass> cls = class_by_name(args[j]);
    if (!cls) {
      err = "Invalid client class specified in buffer limit configuration.";
      return false;
    }
    const std::optional<unsigned long long> hard = parse_memory_size(args[j + 1]);
    const std::optional<unsigned long long> soft = parse_memory_size(args[j + 2]);
    long long seconds = 0;
    if (!hard || !soft || !parse_soft_seconds(args[j + 3], seconds)) {
      err = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
      return false;
    }
    next[static_cast<std::size_t>(*cls)] = {*hard, *soft, seconds};
  }
  s.client_obuf_limits = next;
  return true;
}

std::string get_output_buffer_limits(const ServerSettings& s) {
  std::string out;
  for (std::size_t j = 0; j < kClientClassCount; ++j) {
    const OutputBufferLimit& l = s.client_obuf_limits[j];
    if (j != 0) out += ' ';
    out += fmt::format("{} {} {} {}", kGetNames[j], l.hard_bytes, l.soft_bytes, l.soft_seconds);
  }
  return out;
}

RewriteEntry rewrite_output_buffer_limits(const ServerSettings& s) {
  RewriteEntry e{"client-output-buffer-limit", {}, false, {}};
  for (std::size_t j = 0; j < kClientClassCount; ++j) {
    const OutputBufferLimit& l = s.client_obuf_limits[j];
    e.lines.push_back(fmt::format("client-output-buffer-limit {} {} {} {}", kRewriteNames[j],
                                  format_memory_for_file(static_cast<long long>(l.hard_bytes)),
                                  format_memory_for_file(static_cast<long long>(l.soft_bytes)),
                                  l.soft_seconds));
    e.line_force.push_back(l != kDefaultOutputBufferLimits[j]);
  }
  return e;
}

}  // namespace listd::config::detail
