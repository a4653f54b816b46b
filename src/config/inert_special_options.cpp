// The multi-word options of Redis 7.0's config table that listd validates and reports but does
// not act on (oom-score-adj-values, shutdown-on-sigint / -sigterm), with Redis' grammar, CONFIG GET
// text and rewrite lines. Values live in ServerSettings::inert like the single-word ones
// (inert_option_table.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "option_table.h"

namespace listd::config::detail {
namespace {

// ---- oom-score-adj-values --------------------------------------------------------------------

constexpr std::string_view kOomDefault = "0 200 800";

bool set_oom_values(ServerSettings& s, Args args, bool, std::string& err) {
  if (args.size() != 3) {
    err = "wrong number of arguments";
    return false;
  }
  std::string text;
  for (const std::string& word : args) {
    char* end = nullptr;
    const long long v = std::strtoll(word.c_str(), &end, 10);
    if (*end != '\0' || v < -2000 || v > 2000) {
      err = "Invalid oom-score-adj-values, elements must be between -2000 and 2000.";
      return false;
    }
    if (!text.empty()) text += ' ';
    text += std::to_string(v);
  }
  store_inert(s, "oom-score-adj-values", std::move(text), kOomDefault);
  return true;
}

std::string get_oom_values(const ServerSettings& s) {
  return inert_value(s, "oom-score-adj-values", kOomDefault);
}

RewriteEntry rewrite_oom_values(const ServerSettings& s) {
  const std::string v = get_oom_values(s);
  return {"oom-score-adj-values", {"oom-score-adj-values " + v}, v != kOomDefault};
}

// ---- shutdown-on-sigint / shutdown-on-sigterm ------------------------------------------------

// Redis' flag words; listd's signal shutdown is Redis' "default" (a final save with save
// points), so only that is accepted: the others would change what a signal does.
bool set_shutdown_flags(std::string_view name, Args args, std::string& err) {
  static constexpr std::string_view kWords[] = {"default", "save", "nosave", "now", "force"};
  bool save = false;
  bool nosave = false;
  bool other = false;
  for (const std::string& word : args) {
    const auto* it = std::find_if(std::begin(kWords), std::end(kWords),
                                  [&](std::string_view w) { return base::iequals(w, word); });
    if (it == std::end(kWords)) {
      err = "argument(s) must be one of the following: default, save, nosave, now, force";
      return false;
    }
    save = save || *it == "save";
    nosave = nosave || *it == "nosave";
    other = other || *it != "default";
  }
  if (args.empty()) {
    err = "argument(s) must be one of the following: default, save, nosave, now, force";
    return false;
  }
  if (save && nosave) {
    err = "shutdown options SAVE and NOSAVE can't be used simultaneously";
    return false;
  }
  if (other) {
    err = fmt::format("listd shuts down on a signal as Redis' default only ({} must be default)",
                      name);
    return false;
  }
  return true;
}

bool set_sigint(ServerSettings&, Args args, bool, std::string& err) {
  return set_shutdown_flags("shutdown-on-sigint", args, err);
}
bool set_sigterm(ServerSettings&, Args args, bool, std::string& err) {
  return set_shutdown_flags("shutdown-on-sigterm", args, err);
}
std::string get_shutdown_default(const ServerSettings&) { return "default"; }
RewriteEntry rewrite_sigint(const ServerSettings&) {
  return {"shutdown-on-sigint", {"shutdown-on-sigint default"}, false};
}
RewriteEntry rewrite_sigterm(const ServerSettings&) {
  return {"shutdown-on-sigterm", {"shutdown-on-sigterm default"}, false};
}

OptionSpec multi_word(std::string_view name, std::string_view alias, unsigned flags,
                      SpecialSpec spec) {
  return {{name, alias, OptionType::kSpecial, flags | kOptionMultiArg}, spec};
}

}  // namespace

void append_inert_special_options(std::vector<OptionSpec>& t) {
  t.push_back(multi_word("oom-score-adj-values", {}, 0,
                         {&set_oom_values, &get_oom_values, &rewrite_oom_values}));
  t.push_back(multi_word("shutdown-on-sigint", {}, 0,
                         {&set_sigint, &get_shutdown_default, &rewrite_sigint}));
  t.push_back(multi_word("shutdown-on-sigterm", {}, 0,
                         {&set_sigterm, &get_shutdown_default, &rewrite_sigterm}));
}

}  // namespace listd::config::detail
