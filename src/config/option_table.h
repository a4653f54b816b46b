// The option table's private interface: the descriptors of every option and the per-type
// codecs (parse, print, rewrite) that the Config registry (config.cpp) runs on them. Private to
// the config part (src/config/), not installed under include/.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "listd/config/config.h"

namespace listd::config::detail {

using Args = std::span<const std::string>;

// ---- Option descriptors --------------------------------------------------------------------

struct BoolSpec {
  bool ServerSettings::*field;
  bool def;
  const char* (*validate)(bool);  // optional: returns an error text
};

struct NumericSpec {
  long long (*load)(const ServerSettings&);
  void (*store)(ServerSettings&, long long);
  long long lo;
  long long hi;
  bool unsigned_bounds;  // Redis checks unsigned int / size_t / unsigned long long as unsigned
  long long def;
};

struct EnumValue {
  std::string_view name;
  int value;
};

struct EnumSpec {
  int (*load)(const ServerSettings&);
  void (*store)(ServerSettings&, int);
  std::span<const EnumValue> values;
  int def;
  const char* (*validate)(int) = nullptr;  // a refusal text for a value listd cannot honour
};

struct StringSpec {
  std::string ServerSettings::*field;
  std::string_view def;
  // Redis keeps these as NULL when empty: CONFIG REWRITE then removes them from the file, and
  // any non-empty value is always written.
  bool empty_is_null;
  const char* (*validate)(std::string_view);  // optional
};

struct SpecialSpec {
  // `from_file` distinguishes config-file lines (which accumulate `save` points) from CONFIG SET.
  bool (*set)(ServerSettings&, Args, bool from_file, std::string& err);
  std::string (*get)(const ServerSettings&);
  RewriteEntry (*rewrite)(const ServerSettings&);
};

/// How an inert integer reads and prints besides decimal (Redis OCTAL_CONFIG).
enum class InertFormat { kDecimal, kOctal };

/// An option listd validates and reports but does not act on (inert_option_table.cpp): its value
/// lives in ServerSettings::inert by name. The parse follows OptionInfo::type (kBool, kInteger,
/// kMemory, kEnum, kString).
struct InertSpec {
  std::string_view def;  // the CONFIG GET text of Redis' default
  long long lo = 0;
  long long hi = 0;
  bool unsigned_bounds = false;
  InertFormat format = InertFormat::kDecimal;
  std::span<const EnumValue> values = {};
  bool empty_is_null = false;  // as StringSpec::empty_is_null
  // Redis' own extra check, or listd's refusal of a value it would have to act on (an inert
  // option must never claim a protection listd does not give); gets the CONFIG GET text.
  const char* (*validate)(std::string_view) = nullptr;
  // listd's refusal of a value it would have to act on; in a config file only the final value
  // counts (a command-line override may undo a line of the file), see refused_after_load.
  const char* (*refuse)(std::string_view) = nullptr;
};

struct OptionSpec {
  OptionInfo info;
  std::variant<BoolSpec, NumericSpec, EnumSpec, StringSpec, SpecialSpec, InertSpec> impl;
};

// ---- Special codecs with a file of their own ---------------------------------------------

/// io-backend (io_backend_option.cpp).
OptionSpec io_backend_option();
/// tracking-table-max-keys (tracking_option.cpp).
OptionSpec tracking_table_max_keys_option();
/// maxmemory-clients (client_eviction_option.cpp).
OptionSpec maxmemory_clients_option();
/// hash-max-listpack-*, zset-max-listpack-*, set-max-intset-entries (encoding_options.cpp).
void add_encoding_options(std::vector<OptionSpec>& t);

/// client-output-buffer-limit (output_buffer_limit_option.cpp).
bool set_output_buffer_limits(ServerSettings& s, Args args, bool from_file, std::string& err);
std::string get_output_buffer_limits(const ServerSettings& s);
RewriteEntry rewrite_output_buffer_limits(const ServerSettings& s);
/// notify-keyspace-events (notify_option.cpp).
bool set_notify(ServerSettings& s, Args args, bool from_file, std::string& err);
std::string get_notify(const ServerSettings& s);
RewriteEntry rewrite_notify(const ServerSettings& s);
/// Redis rewriteConfigFormatMemory: 1gb, 64mb, 16kb or plain bytes.
std::string format_memory_for_file(long long bytes);

/// Inert options (inert_option_table.cpp): `acting` followed by every inert option.
std::vector<OptionSpec> with_inert_options(std::vector<OptionSpec> acting);
bool set_inert(const OptionSpec& spec, const InertSpec& inert, ServerSettings& s,
               const std::string& text, bool from_file, std::string& err);
std::string get_inert(const OptionSpec& spec, const InertSpec& inert, const ServerSettings& s);
RewriteEntry rewrite_inert(const OptionSpec& spec, const InertSpec& inert, const ServerSettings& s);
/// The multi-word inert options (inert_special_options.cpp).
void append_inert_special_options(std::vector<OptionSpec>& table);
/// An inert value by primary name, `def` when it is at its default; and its store, which
/// forgets a value equal to the default.
std::string inert_value(const ServerSettings& s, std::string_view name, std::string_view def);
void store_inert(ServerSettings& s, std::string_view name, std::string value, std::string_view def);

/// After a whole config load (file lines, then the command line): the first option whose final
/// value listd refuses (BoolSpec/EnumSpec validators, InertSpec::refuse), as "'name value':
/// reason"; per line these are not checked, as Redis keeps only the last value.
std::optional<std::string> refused_after_load(const ServerSettings& s);

/// The table, in CONFIG GET / REWRITE order.
const std::vector<OptionSpec>& table();

struct Lookup {
  const OptionSpec* spec = nullptr;
  std::string_view entry_name;  // the primary name or the alias, whichever matched
};

/// Exact, case-insensitive lookup by primary name or alias.
Lookup lookup(std::string_view name) noexcept;

/// Parses `args` into `s` (config-file rules when `from_file`); false with `err` set.
bool set_option(const OptionSpec& spec, ServerSettings& s, Args args, bool from_file,
                std::string& err);
/// The CONFIG GET text of the option.
std::string get_option(const OptionSpec& spec, const ServerSettings& s);
/// The lines CONFIG REWRITE writes for the option.
RewriteEntry rewrite_option(const OptionSpec& spec, const ServerSettings& s);

}  // namespace listd::config::detail
