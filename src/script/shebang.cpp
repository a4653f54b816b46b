// Redis eval.c evalExtractShebangFlags: `#!lua [flags=a,b]` on a script's first line.
#include <optional>
#include <string>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/script/engine.h"

namespace listd::script {
namespace {

struct FlagName {
  unsigned flag;
  std::string_view name;
};
constexpr FlagName kFlags[] = {
    {kScriptNoWrites, "no-writes"},
    {kScriptAllowOom, "allow-oom"},
    {kScriptAllowStale, "allow-stale"},
    {kScriptNoCluster, "no-cluster"},
    {kScriptAllowCrossSlot, "allow-cross-slot-keys"},
};

// flags=a,b: every name known, or the error.
std::string read_flags(std::string_view list, unsigned& flags) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = list.find(',', start);
    const std::string_view name =
        list.substr(start, comma == std::string_view::npos ? comma : comma - start);
    unsigned found = 0;
    for (const FlagName& f : kFlags)
      if (f.name == name) found = f.flag;
    if (!found) return "ERR Unexpected flag in script shebang: " + std::string(name);
    flags |= found;
    if (comma == std::string_view::npos) return {};
    start = comma + 1;
  }
}

}  // namespace

unsigned script_flag_named(std::string_view name) {
  for (const FlagName& f : kFlags)
    if (base::iequals(f.name, name)) return f.flag;
  return 0;
}

std::vector<std::string_view> script_flag_names(unsigned flags) {
  std::vector<std::string_view> names;
  for (const FlagName& f : kFlags)
    if (flags & f.flag) names.push_back(f.name);
  return names;
}

Shebang parse_shebang(std::string_view body) {
  Shebang result;
  if (body.substr(0, 2) != "#!") return result;
  const std::size_t newline = body.find('\n');
  if (newline == std::string_view::npos) {
    result.error = "ERR Invalid script shebang";
    return result;
  }
  result.length = newline;
  const auto parts = base::split_args(body.substr(0, newline));
  if (!parts || parts->empty()) {
    result.error = "ERR Invalid engine in script shebang";
    return result;
  }
  if ((*parts)[0] != "#!lua") {
    result.error = "ERR Unexpected engine in script shebang: " + (*parts)[0];
    return result;
  }
  result.flags &= ~kScriptCompatMode;
  for (std::size_t i = 1; i < parts->size(); ++i) {
    const std::string& part = (*parts)[i];
    if (part.rfind("flags=", 0) == 0) {
      result.error = read_flags(std::string_view(part).substr(6), result.flags);
    } else {
      result.error = "ERR Unknown lua shebang option: " + part;
    }
    if (!result.error.empty()) return result;
  }
  return result;
}

}  // namespace listd::script
