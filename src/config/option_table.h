// The option table's private interface: the descriptors of every option and the per-type
// codecs (parse, print, rewrite) that the Config registry (config.cpp) runs on them. Private to
// the config part (src/config/), not installed under include/.
#pragma once

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

struct OptionSpec {
  OptionInfo info;
  std::variant<BoolSpec, NumericSpec, EnumSpec, StringSpec, SpecialSpec> impl;
};

// ---- Special codecs with a file of their own ---------------------------------------------

/// client-output-buffer-limit (output_buffer_limit_option.cpp).
bool set_output_buffer_limits(ServerSettings& s, Args args, bool from_file, std::string& err);
std::string get_output_buffer_limits(const ServerSettings& s);
RewriteEntry rewrite_output_buffer_limits(const ServerSettings& s);
/// Redis rewriteConfigFormatMemory: 1gb, 64mb, 16kb or plain bytes.
std::string format_memory_for_file(long long bytes);

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
