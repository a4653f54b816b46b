// The multi-word options of Redis 7.0's config table that listd validates and reports but does
// not act on (replicaof, oom-score-adj-values, latency-tracking-info-percentiles,
// shutdown-on-sigint / -sigterm), with Redis' grammar, CONFIG GET text and rewrite lines. Values
// live in ServerSettings::inert like the single-word ones (inert_option_table.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "option_table.h"

namespace listd::config::detail {
namespace {

// ---- replicaof (alias slaveof) ---------------------------------------------------------------

// Redis setConfigReplicaOfOption's grammar; a master address is refused: listd has no replica
// side, and accepting it would claim the data is being copied.
bool set_replicaof(ServerSettings&, Args args, bool, std::string& err) {
  if (args.size() != 2) {
    err = "wrong number of arguments";
    return false;
  }
  if (base::iequals(args[0], "no") && base::iequals(args[1], "one")) return true;
  char* end = nullptr;
  const long port = std::strtol(args[1].c_str(), &end, 10);
  if (port < 0 || port > 65535 || *end != '\0') {
    err = "Invalid master port";
    return false;
  }
  err = "listd cannot replicate from a master (replicaof is not supported)";
  return false;
}

std::string get_replicaof(const ServerSettings&) { return {}; }

// Redis removes every replicaof line from a master's file.
RewriteEntry rewrite_replicaof(const ServerSettings&) { return {"replicaof", {}, false}; }

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

// ---- latency-tracking-info-percentiles -------------------------------------------------------

constexpr std::string_view kPercentilesDefault = "50 99 99.9";

// "%f" then Redis trimDoubleString: 99.900000 -> 99.9, 50.000000 -> 50.
std::string percentile_text(double v) {
  std::string out = fmt::format("{:f}", v);
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

bool set_percentiles(ServerSettings& s, Args args, bool, std::string& err) {
  if (args.size() == 1 && args[0].empty()) args = {};  // one empty word: no percentiles
  std::string text;
  for (const std::string& word : args) {
    double v = 0;
    if (!base::parse_double(word, v)) {
      err = "Invalid latency-tracking-info-percentiles parameters";
      return false;
    }
    if (v > 100.0 || v < 0.0) {
      err = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
      return false;
    }
    if (!text.empty()) text += ' ';
    text += percentile_text(v);
  }
  store_inert(s, "latency-tracking-info-percentiles", std::move(text), kPercentilesDefault);
  return true;
}

std::string get_percentiles(const ServerSettings& s) {
  return inert_value(s, "latency-tracking-info-percentiles", kPercentilesDefault);
}

// Redis always writes this line (an empty list as "").
RewriteEntry rewrite_percentiles(const ServerSettings& s) {
  const std::string v = get_percentiles(s);
  return {"latency-tracking-info-percentiles",
          {"latency-tracking-info-percentiles " + (v.empty() ? std::string("\"\"") : v)},
          true};
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
  t.push_back(multi_word("replicaof", "slaveof", kOptionImmutable,
                         {&set_replicaof, &get_replicaof, &rewrite_replicaof}));
  t.push_back(multi_word("oom-score-adj-values", {}, 0,
                         {&set_oom_values, &get_oom_values, &rewrite_oom_values}));
  t.push_back(multi_word("latency-tracking-info-percentiles", {}, 0,
                         {&set_percentiles, &get_percentiles, &rewrite_percentiles}));
  t.push_back(multi_word("shutdown-on-sigint", {}, 0,
                         {&set_sigint, &get_shutdown_default, &rewrite_sigint}));
  t.push_back(multi_word("shutdown-on-sigterm", {}, 0,
                         {&set_sigterm, &get_shutdown_default, &rewrite_sigterm}));
}

}  // namespace listd::config::detail
