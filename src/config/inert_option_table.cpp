// The single-word options of Redis 7.0's config table that listd validates, reports and rewrites
// exactly as Redis does but does not act on (docs/COMPATIBILITY.md, "Options accepted but
// inert"), so a stock redis.conf loads. Each value lives in ServerSettings::inert by name. An
// option whose non-default value would claim a behaviour or a protection listd does not have
// (cluster-enabled, maxmemory-clients, aclfile, ...) accepts only its default
// and refuses the rest with a text that says so.
#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "option_table.h"

namespace listd::config::detail {
namespace {

using base::iequals;

// ---- Refusals of values listd would have to act on -------------------------------------------

const char* no_cluster(std::string_view v) {
  return v == "no" ? nullptr : "listd has no cluster mode (cluster-enabled must be no)";
}
const char* no_syslog(std::string_view v) {
  return v == "no" ? nullptr : "listd does not log to syslog (syslog-enabled must be no)";
}
const char* no_unixsocketperm(std::string_view v) {
  return v == "0"
             ? nullptr
             : "listd does not change the unix socket's permissions (unixsocketperm must be 0)";
}
// listd's DEBUG is always allowed; reporting Redis' "no" would claim it is blocked.
const char* debug_always_allowed(std::string_view v) {
  return v == "yes" ? nullptr : "listd always allows DEBUG (enable-debug-command must be yes)";
}
const char* no_module_command(std::string_view v) {
  return v == "no" ? nullptr : "listd has no MODULE command (enable-module-command must be no)";
}

// ---- Redis' own checks -----------------------------------------------------------------------

// Redis isValidActiveDefrag in a build without jemalloc's defrag hint (Debian's 7.0.15 as well).
const char* no_active_defrag(std::string_view v) {
  return v == "no" ? nullptr
                   : "Active defragmentation cannot be enabled: it requires a Redis server "
                     "compiled with a modified Jemalloc like the one shipped by default with the "
                     "Redis source distribution";
}

// Redis isValidAnnouncedHostname (NET_HOST_STR_LEN is 256).
const char* valid_announced_hostname(std::string_view v) {
  if (v.size() >= 256) return "Hostnames must be less than 256 characters";
  for (char c : v) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.';
    if (!ok) return "Hostnames may only contain alphanumeric characters, hyphens or dots";
  }
  return nullptr;
}

// Redis validateProcTitleTemplate: sdstemplate's grammar ("{{" is a literal brace, a variable
// must be known and closed) and a non-empty result once trimmed. Only {title} and
// {server-mode} can expand to nothing here.
const char* valid_proc_title_template(std::string_view v) {
  static constexpr std::string_view kVariables[] = {
      "title", "listen-addr", "server-mode", "config-file", "port", "tls-port", "unixsocket"};
  bool visible = false;
  std::size_t i = 0;
  while (i < v.size()) {
    if (v[i] != '{') {
      visible = visible || v[i] != ' ';
      ++i;
      continue;
    }
    if (i + 1 >= v.size()) return "template format is invalid or contains unknown variables";
    if (v[i + 1] == '{') {
      visible = true;
      i += 2;
      continue;
    }
    const std::size_t close = v.find('}', i + 1);
    if (close == std::string_view::npos) {
      return "template format is invalid or contains unknown variables";
    }
    const std::string_view name = v.substr(i + 1, close - i - 1);
    bool known = false;
    for (std::string_view k : kVariables) known = known || k == name;
    if (!known) return "template format is invalid or contains unknown variables";
    visible = visible || (name != "title" && name != "server-mode" && name != "unixsocket");
    i = close + 1;
  }
  return visible ? nullptr : "template format is invalid or contains unknown variables";
}

// ---- Enumerations (the value is the position; only the names matter here) --------------------

constexpr EnumValue kSyslogFacility[] = {{"user", 0},   {"local0", 1}, {"local1", 2},
                                         {"local2", 3}, {"local3", 4}, {"local4", 5},
                                         {"local5", 6}, {"local6", 7}, {"local7", 8}};
constexpr EnumValue kDisklessLoad[] = {{"disabled", 0}, {"on-empty-db", 1}, {"swapdb", 2}};
constexpr EnumValue kOomScoreAdj[] = {{"no", 0}, {"yes", 1}, {"relative", 1}, {"absolute", 2}};
constexpr EnumValue kSanitizeDump[] = {{"no", 0}, {"yes", 1}, {"clients", 2}};
constexpr EnumValue kProtectedAction[] = {{"no", 0}, {"yes", 1}, {"local", 2}};
constexpr EnumValue kEndpointType[] = {{"ip", 0}, {"hostname", 1}, {"unknown-endpoint", 2}};
constexpr EnumValue kPropagationError[] = {{"ignore", 0}, {"panic", 1}, {"panic-on-replicas", 2}};

// ---- Table builders --------------------------------------------------------------------------

constexpr unsigned kNone = 0;
constexpr unsigned kImm = kOptionImmutable;

using Check = const char* (*)(std::string_view);

// Marks the option's check as listd's refusal (InertSpec::refuse) rather than Redis' own.
OptionSpec refusing(OptionSpec spec) {
  InertSpec& inert = std::get<InertSpec>(spec.impl);
  inert.refuse = inert.validate;
  inert.validate = nullptr;
  return spec;
}

OptionSpec flag(std::string_view name, unsigned flags, bool def, std::string_view alias = {},
                Check check = nullptr) {
  InertSpec spec{def ? "yes" : "no"};
  spec.validate = check;
  return {{name, alias, OptionType::kBool, flags}, spec};
}

// Redis' int / long / long long configs (signed bounds).
OptionSpec number(std::string_view name, unsigned flags, long long lo, long long hi,
                  std::string_view def, std::string_view alias = {}, Check check = nullptr) {
  InertSpec spec{def, lo, hi};
  spec.validate = check;
  return {{name, alias, OptionType::kInteger, flags}, spec};
}

// Redis' unsigned int / size_t configs (unsigned bounds), optionally memory-typed or octal.
OptionSpec unsigned_number(std::string_view name, unsigned flags, OptionType type, long long hi,
                           std::string_view def, std::string_view alias = {},
                           InertFormat format = InertFormat::kDecimal, Check check = nullptr) {
  InertSpec spec{def, 0, hi, true, format};
  spec.validate = check;
  return {{name, alias, type, flags}, spec};
}

OptionSpec choice(std::string_view name, unsigned flags, std::span<const EnumValue> values,
                  std::string_view def, Check check = nullptr) {
  InertSpec spec{def};
  spec.values = values;
  spec.validate = check;
  return {{name, {}, OptionType::kEnum, flags}, spec};
}

OptionSpec text(std::string_view name, unsigned flags, std::string_view def, bool empty_is_null,
                std::string_view alias = {}, Check check = nullptr) {
  InertSpec spec{def};
  spec.empty_is_null = empty_is_null;
  spec.validate = check;
  return {{name, alias, OptionType::kString, flags}, spec};
}

void append_booleans(std::vector<OptionSpec>& t) {
  const auto add = [&t](OptionSpec spec) { t.push_back(std::move(spec)); };
  add(flag("rdbchecksum", kImm, true));
  add(flag("io-threads-do-reads", kImm, false));
  add(flag("always-show-logo", kImm, false));
  add(flag("rdb-del-sync-files", kNone, false));
  add(flag("set-proc-title", kImm, true));
  add(flag("dynamic-hz", kNone, true));
  add(flag("lazyfree-lazy-eviction", kNone, false));
  add(flag("lazyfree-lazy-expire", kNone, false));
  add(flag("lazyfree-lazy-server-del", kNone, false));
  add(flag("lazyfree-lazy-user-del", kNone, false));
  add(flag("lazyfree-lazy-user-flush", kNone, false));
  add(flag("repl-disable-tcp-nodelay", kNone, false));
  add(flag("aof-rewrite-incremental-fsync", kNone, true));
  add(flag("cluster-require-full-coverage", kNone, true));
  add(flag("rdb-save-incremental-fsync", kNone, true));
  add(flag("cluster-replica-no-failover", kNone, false, "cluster-slave-no-failover"));
  add(flag("replica-lazy-flush", kNone, false, "slave-lazy-flush"));
  add(flag("replica-ignore-maxmemory", kNone, true, "slave-ignore-maxmemory"));
  add(flag("jemalloc-bg-thread", kNone, true));
  add(flag("activedefrag", kNone, false, {}, &no_active_defrag));
  add(refusing(flag("syslog-enabled", kImm, false, {}, &no_syslog)));
  add(refusing(flag("cluster-enabled", kImm, false, {}, &no_cluster)));
  add(flag("cluster-allow-reads-when-down", kNone, false));
  add(flag("cluster-allow-pubsubshard-when-down", kNone, true));
  add(flag("crash-log-enabled", kNone, true));
  add(flag("crash-memcheck-enabled", kNone, true));
  add(flag("disable-thp", kImm, true));
  add(flag("cluster-allow-replica-migration", kNone, true));
  add(flag("aof-disable-auto-gc", kNone, false));
  add(flag("replica-ignore-disk-write-errors", kNone, false));
  add(flag("tls-cluster", kNone, false));
}

void append_strings_and_enums(std::vector<OptionSpec>& t) {
  const auto add = [&t](OptionSpec spec) { t.push_back(std::move(spec)); };
  add(text("cluster-announce-ip", kNone, "", true));
  add(text("cluster-config-file", kImm, "nodes.conf", false));
  add(text("cluster-announce-hostname", kNone, "", true, {}, &valid_announced_hostname));
  add(text("syslog-ident", kImm, "redis", false));
  add(text("server_cpulist", kImm, "", true));
  add(text("bio_cpulist", kImm, "", true));
  add(text("aof_rewrite_cpulist", kImm, "", true));
  add(text("bgsave_cpulist", kImm, "", true));
  add(text("ignore-warnings", kNone, "", false));
  add(text("proc-title-template", kNone, "{title} {listen-addr} {server-mode}", false, {},
           &valid_proc_title_template));
  add(text("bind-source-addr", kNone, "", true));
  // Enumerations.
  add(choice("syslog-facility", kImm, kSyslogFacility, "local0"));
  add(choice("repl-diskless-load", kNone, kDisklessLoad, "disabled"));
  add(choice("oom-score-adj", kNone, kOomScoreAdj, "no"));
  add(choice("sanitize-dump-payload", kNone, kSanitizeDump, "no"));
  add(refusing(
      choice("enable-debug-command", kImm, kProtectedAction, "yes", &debug_always_allowed)));
  add(refusing(choice("enable-module-command", kImm, kProtectedAction, "no", &no_module_command)));
  add(choice("cluster-preferred-endpoint-type", kNone, kEndpointType, "ip"));
  add(choice("propagation-error-behavior", kNone, kPropagationError, "ignore"));
}

// int, long and long long configs: signed bounds.
void append_signed_numbers(std::vector<OptionSpec>& t) {
  const auto add = [&t](OptionSpec spec) { t.push_back(std::move(spec)); };
  add(number("io-threads", kImm, 1, 128, "1"));
  // listd's list blocks are 8 KB (Redis' default -2); other sizes only move memory use.
  add(number("list-max-listpack-size", kNone, INT_MIN, INT_MAX, "-2", "list-max-ziplist-size"));
  add(number("cluster-replica-validity-factor", kNone, 0, INT_MAX, "10",
             "cluster-slave-validity-factor"));
  add(number("cluster-migration-barrier", kNone, 0, INT_MAX, "1"));
  add(number("active-defrag-cycle-min", kNone, 1, 99, "1"));
  add(number("active-defrag-cycle-max", kNone, 1, 99, "25"));
  add(number("active-defrag-threshold-lower", kNone, 0, 1000, "10"));
  add(number("active-defrag-threshold-upper", kNone, 0, 1000, "100"));
  add(number("cluster-port", kImm, 0, 65535, "0"));
  add(number("cluster-announce-bus-port", kNone, 0, 65535, "0"));
  add(number("cluster-announce-port", kNone, 0, 65535, "0"));
  add(number("cluster-announce-tls-port", kNone, 0, 65535, "0"));
  add(number("active-expire-effort", kNone, 1, 10, "1"));
  add(number("shutdown-timeout", kNone, 0, INT_MAX, "10"));
  add(number("active-defrag-max-scan-fields", kNone, 1, LONG_MAX, "1000"));
  add(number("cluster-node-timeout", kNone, 0, LLONG_MAX, "15000"));
}

// unsigned int, size_t and unsigned long long configs: unsigned bounds.
void append_unsigned_numbers(std::vector<OptionSpec>& t) {
  constexpr OptionType kInt = OptionType::kInteger;
  constexpr OptionType kMem = OptionType::kMemory;
  const auto add = [&t](OptionSpec spec) { t.push_back(std::move(spec)); };
  add(refusing(unsigned_number("unixsocketperm", kImm, kInt, 0777, "0", {}, InertFormat::kOctal,
                               &no_unixsocketperm)));
  add(unsigned_number("socket-mark-id", kImm, kInt, UINT_MAX, "0"));
  add(unsigned_number("cluster-link-sendbuf-limit", kNone, kMem, static_cast<long long>(ULLONG_MAX),
                      "0"));
  {
    InertSpec ignore{"104857600", 1, LLONG_MAX, true};  // 100mb
    t.push_back({{"active-defrag-ignore-bytes", {}, kMem, kNone}, ignore});
  }
}

// ---- Parsing ---------------------------------------------------------------------------------

std::string numeric_bounds_error(const InertSpec& n) {
  if (n.unsigned_bounds) {
    const auto lo = static_cast<unsigned long long>(n.lo);
    const auto hi = static_cast<unsigned long long>(n.hi);
    if (n.format == InertFormat::kOctal) {
      return fmt::format("argument must be between {:o} and {:o} inclusive", lo, hi);
    }
    return fmt::format("argument must be between {} and {} inclusive", lo, hi);
  }
  return fmt::format("argument must be between {} and {} inclusive", n.lo, n.hi);
}

// Redis numericParseString: memory, then octal, then a plain integer.
bool parse_numeric(const InertSpec& n, OptionType type, const std::string& text, long long& v,
                   std::string& err) {
  if (type == OptionType::kMemory) {
    if (const std::optional<unsigned long long> bytes = parse_memory_size(text)) {
      v = static_cast<long long>(*bytes);
      return true;
    }
  }
  if (n.format == InertFormat::kOctal) {
    char* end = nullptr;
    errno = 0;
    v = std::strtoll(text.c_str(), &end, 8);
    if (errno == 0 && *end == '\0') return true;
  }
  if (type == OptionType::kInteger && n.format == InertFormat::kDecimal &&
      base::parse_strict_integer(text, v)) {
    return true;
  }
  if (type == OptionType::kMemory) {
    err = "argument must be a memory value";
  } else if (n.format == InertFormat::kOctal) {
    err = "argument couldn't be parsed as an octal number";
  } else {
    err = "argument couldn't be parsed into an integer";
  }
  return false;
}

// Redis numericBoundaryCheck.
bool numeric_in_bounds(const InertSpec& n, long long v, std::string& err) {
  if (n.unsigned_bounds) {
    const auto u = static_cast<unsigned long long>(v);
    if (u > static_cast<unsigned long long>(n.hi) || u < static_cast<unsigned long long>(n.lo)) {
      err = numeric_bounds_error(n);
      return false;
    }
    return true;
  }
  if (v > n.hi || v < n.lo) {
    err = numeric_bounds_error(n);
    return false;
  }
  return true;
}

// The CONFIG GET text of a parsed number (Redis numericConfigGet).
std::string numeric_text(const InertSpec& n, OptionType type, long long v) {
  if (type == OptionType::kMemory) return std::to_string(static_cast<unsigned long long>(v));
  if (n.format == InertFormat::kOctal) return fmt::format("{:o}", v);
  return std::to_string(v);
}

// The canonical CONFIG GET text of `text`, or false with Redis' error.
bool canonical_text(const OptionSpec& spec, const InertSpec& n, const std::string& text,
                    std::string& out, std::string& err) {
  switch (spec.info.type) {
    case OptionType::kBool:
      if (iequals(text, "yes") || iequals(text, "no")) {
        out = iequals(text, "yes") ? "yes" : "no";
        return true;
      }
      err = "argument must be 'yes' or 'no'";
      return false;
    case OptionType::kEnum:
      for (const EnumValue& v : n.values) {
        if (iequals(v.name, text)) {
          // Redis prints an enum by its value's first name: "relative" reads back as "yes".
          for (const EnumValue& first : n.values) {
            if (first.value == v.value) {
              out = first.name;
              break;
            }
          }
          return true;
        }
      }
      err = "argument(s) must be one of the following: ";
      for (std::size_t i = 0; i < n.values.size(); ++i) {
        if (i != 0) err += ", ";
        err += n.values[i].name;
      }
      return false;
    case OptionType::kString: out = text; return true;
    default: {
      long long v = 0;
      if (!parse_numeric(n, spec.info.type, text, v, err) || !numeric_in_bounds(n, v, err)) {
        return false;
      }
      out = numeric_text(n, spec.info.type, v);
      return true;
    }
  }
}

}  // namespace

std::vector<OptionSpec> with_inert_options(std::vector<OptionSpec> acting) {
  append_booleans(acting);
  append_strings_and_enums(acting);
  append_signed_numbers(acting);
  append_unsigned_numbers(acting);
  append_inert_special_options(acting);
  return acting;
}

std::string inert_value(const ServerSettings& s, std::string_view name, std::string_view def) {
  const auto it = s.inert.non_default.find(name);
  return it == s.inert.non_default.end() ? std::string(def) : it->second;
}

void store_inert(ServerSettings& s, std::string_view name, std::string value,
                 std::string_view def) {
  if (value == def) {
    if (const auto it = s.inert.non_default.find(name); it != s.inert.non_default.end()) {
      s.inert.non_default.erase(it);
    }
    return;
  }
  s.inert.non_default.insert_or_assign(std::string(name), std::move(value));
}

bool set_inert(const OptionSpec& spec, const InertSpec& inert, ServerSettings& s,
               const std::string& text, bool from_file, std::string& err) {
  std::string value;
  if (!canonical_text(spec, inert, text, value, err)) return false;
  for (const auto check : {inert.validate, from_file ? nullptr : inert.refuse}) {
    if (check == nullptr) continue;
    if (const char* e = check(value)) {
      err = e;
      return false;
    }
  }
  store_inert(s, spec.info.name, std::move(value), inert.def);
  return true;
}

std::string get_inert(const OptionSpec& spec, const InertSpec& inert, const ServerSettings& s) {
  return inert_value(s, spec.info.name, inert.def);
}

// Redis' rewrite of each type: memory as 64mb/16kb, percent as "10%", octal as digits, strings
// quoted, a NULL-when-empty string removed; forced when it differs from the default.
RewriteEntry rewrite_inert(const OptionSpec& spec, const InertSpec& inert,
                           const ServerSettings& s) {
  const std::string_view name = spec.info.name;
  const std::string value = inert_value(s, name, inert.def);
  const bool force = value != inert.def;
  switch (spec.info.type) {
    case OptionType::kString:
      if (inert.empty_is_null && value.empty()) return {name, {}, false};
      return {name, {fmt::format("{} {}", name, base::repr(value))}, force};
    case OptionType::kMemory:
      if (value.back() != '%') {
        const long long bytes = static_cast<long long>(std::stoull(value));
        return {name, {fmt::format("{} {}", name, format_memory_for_file(bytes))}, force};
      }
      [[fallthrough]];
    default: return {name, {fmt::format("{} {}", name, value)}, force};
  }
}

}  // namespace listd::config::detail
