// Per-script statistics (script_stats.h).
#include "listd/server/script_stats.h"

#include <fmt/format.h>

#include "listd/server/function_library.h"

namespace listd::server {
namespace {

void append_row(std::string& out, std::string_view kind, std::string_view name,
                const ScriptRunStats& s) {
  out += fmt::format("{}_{}:calls={},usec={},usec_per_call={:.2f},max_usec={},failed_calls={}\r\n",
                     kind, name, s.calls, s.usec,
                     s.calls ? static_cast<double>(s.usec) / static_cast<double>(s.calls) : 0.0,
                     s.max_usec, s.failed);
}

}  // namespace

void ScriptStats::record(bool is_eval, std::string_view name, std::uint64_t usec, bool failed) {
  auto& rows = is_eval ? scripts_ : functions_;
  auto it = rows.find(name);
  if (it == rows.end()) it = rows.emplace(std::string(name), ScriptRunStats{}).first;
  ScriptRunStats& s = it->second;
  ++s.calls;
  s.usec += usec;
  if (usec > s.max_usec) s.max_usec = usec;
  if (failed) ++s.failed;
}

const ScriptRunStats* ScriptStats::script(std::string_view sha) const {
  const auto it = scripts_.find(sha);
  return it == scripts_.end() ? nullptr : &it->second;
}

const ScriptRunStats* ScriptStats::function(std::string_view name) const {
  const auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

void ScriptStats::append_info(const FunctionLibraries& functions, std::string& out) const {
  out += "# Scriptstats\r\n";
  for (const auto& [sha, s] : scripts_) append_row(out, "script", sha, s);
  for (const auto& [name, s] : functions_)
    if (const FunctionInfo* f = functions.find(name); f && f->name == name)
      append_row(out, "function", name, s);
}

}  // namespace listd::server
