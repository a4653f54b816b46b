// notify-keyspace-events: Redis 7.0's class letters (notify.c keyspaceEventsStringToFlags and
// keyspaceEventsFlagsToString), CONFIG GET text and CONFIG REWRITE line.
#include <algorithm>
#include <iterator>
#include <optional>

#include "listd/base/redis_text.h"
#include "option_table.h"

namespace listd::config::detail {
namespace {

struct NotifyClass {
  char letter;
  int flag;
};

// Redis' keyspaceEventsFlagsToString order (A and the K/E/m suffix handled separately).
constexpr NotifyClass kNotifyClasses[] = {
    {'g', kNotifyGeneric}, {'$', kNotifyString}, {'l', kNotifyList},    {'s', kNotifySet},
    {'h', kNotifyHash},    {'z', kNotifyZset},   {'x', kNotifyExpired}, {'e', kNotifyEvicted},
    {'t', kNotifyStream},  {'d', kNotifyModule}, {'n', kNotifyNew},
};

std::optional<int> parse_notify_flags(std::string_view text) {
  int flags = 0;
  for (char c : text) {
    if (c == '\0') break;  // Redis walks a C string
    switch (c) {
      case 'A': flags |= kNotifyAll; break;
      case 'K': flags |= kNotifyKeyspace; break;
      case 'E': flags |= kNotifyKeyevent; break;
      case 'm': flags |= kNotifyKeyMiss; break;
      default: {
        const auto* it = std::find_if(std::begin(kNotifyClasses), std::end(kNotifyClasses),
                                      [c](const NotifyClass& k) { return k.letter == c; });
        if (it == std::end(kNotifyClasses)) return std::nullopt;
        flags |= it->flag;
      }
    }
  }
  return flags;
}

std::string notify_flags_to_string(int flags) {
  std::string out;
  if ((flags & kNotifyAll) == kNotifyAll) {
    // Redis 7.0 prints "A" and then skips every class letter, 'n' included even though "A"
    // does not contain it.
    out += 'A';
  } else {
    for (const NotifyClass& k : kNotifyClasses) {
      if (flags & k.flag) out += k.letter;
    }
  }
  if (flags & kNotifyKeyspace) out += 'K';
  if (flags & kNotifyKeyevent) out += 'E';
  if (flags & kNotifyKeyMiss) out += 'm';
  return out;
}

}  // namespace

bool set_notify(ServerSettings& s, Args args, bool, std::string& err) {
  if (args.size() != 1) {
    err = "wrong number of arguments";
    return false;
  }
  const std::optional<int> flags = parse_notify_flags(args[0]);
  if (!flags) {
    err = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
    return false;
  }
  s.notify_keyspace_events = *flags;
  return true;
}

std::string get_notify(const ServerSettings& s) {
  return notify_flags_to_string(s.notify_keyspace_events);
}

RewriteEntry rewrite_notify(const ServerSettings& s) {
  return {"notify-keyspace-events",
          {"notify-keyspace-events " + base::repr(get_notify(s))},
          s.notify_keyspace_events != 0};
}

}  // namespace listd::config::detail
