// Per-script statistics, a listd extension (Redis has none: every EVALSHA of a queue library
// lands in one cmdstat_evalsha row): calls, total and longest run time and failed runs for
// each cached EVAL script (by sha) and each FUNCTION (by name), shown by `INFO scriptstats`
// (not in the default sections, like commandstats). SCRIPT FLUSH forgets the scripts' rows,
// CONFIG RESETSTAT every row; a function's row is shown while the function exists.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace listd::server {

class FunctionLibraries;

struct ScriptRunStats {
  std::uint64_t calls = 0;
  std::uint64_t usec = 0;
  std::uint64_t max_usec = 0;
  std::uint64_t failed = 0;  ///< runs whose reply was an error
};

class ScriptStats {
 public:
  /// One finished run of EVAL script `sha` (`is_eval`) or of function `name`.
  void record(bool is_eval, std::string_view name, std::uint64_t usec, bool failed);
  void forget_scripts() { scripts_.clear(); }
  void forget_script(std::string_view sha) {
    if (auto it = scripts_.find(sha); it != scripts_.end()) scripts_.erase(it);
  }
  void reset() {
    scripts_.clear();
    functions_.clear();
  }
  const ScriptRunStats* script(std::string_view sha) const;
  const ScriptRunStats* function(std::string_view name) const;
  /// The INFO section: "# Scriptstats", then `script_<sha>:calls=..,usec=..,usec_per_call=..,
  /// max_usec=..,failed_calls=..` rows by sha and `function_<name>:...` rows by name.
  void append_info(const FunctionLibraries& functions, std::string& out) const;

 private:
  std::map<std::string, ScriptRunStats, std::less<>> scripts_;
  std::map<std::string, ScriptRunStats, std::less<>> functions_;
};

}  // namespace listd::server
