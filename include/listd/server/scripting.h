// EVAL's server side: the script cache (sha -> body and shebang flags, shared by EVAL and
// SCRIPT LOAD), the Lua engine that runs them, and one run's set-up (Redis eval.c
// evalGenericCommand + script.c scriptPrepareForRun): the script's own client in the caller's
// db speaking RESP2, time frozen at the run's start, the read-only rules of _RO commands and
// no-writes scripts. Owned by the Executor (Executor::scripting()).
//
// Effects: the EVAL is one execution unit of the effect stream (Executor::execute), so a run
// that wrote once is logged as that command, several writes inside MULTI/EXEC; the EVAL itself
// is never logged. Waiters are served after the run, by execute()'s drain.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "listd/script/engine.h"
#include "listd/server/client.h"
#include "listd/server/command_table.h"
#include "listd/server/script_stats.h"

namespace listd::server {

class Executor;
class FunctionLibraries;
struct FunctionInfo;
class ScriptRunner;

class Scripting {
 public:
  struct Script {
    std::string body;
    unsigned flags = script::kScriptCompatMode;  ///< script::ScriptFlags from the shebang
    bool loaded = false;                         ///< SCRIPT LOAD made or met it: never evicted
    std::list<std::string>::iterator lru;        ///< its place in eval_lru_ while not `loaded`
  };

  explicit Scripting(Executor& exec);
  ~Scripting();

  /// The script of `body`, compiled and cached if new (EVAL, SCRIPT LOAD). Returns its sha,
  /// or "" with the error reply text in `error` (a bad shebang, a compile error).
  /// The cache's bound (listd's own, `script-cache-max-eval`): scripts only EVAL has sent are
  /// kept in least-recently-used order and the oldest is evicted past the bound (EVALSHA of it
  /// then answers NOSCRIPT, and clients send the body again); SCRIPT LOAD's are kept for good.
  std::string load(std::string_view body, std::string& error, bool by_script_load = false);
  /// The cached script of `sha` (40 hex digits, any case), or null.
  const Script* find(std::string_view sha) const;
  /// EVALSHA ran cached script `sha`: it becomes the most recently used.
  void touch(std::string_view sha);
  /// Scripts the bound evicted since start-up (INFO stats evicted_scripts).
  std::uint64_t evicted_scripts() const noexcept { return evicted_scripts_; }
  /// SCRIPT FLUSH: forgets every script and starts a fresh Lua state.
  void flush();

  /// Runs cached script `sha` for `caller`, its reply appended to caller.out.
  /// `read_only_command`: EVAL_RO / EVALSHA_RO.
  void run(Client& caller, std::string_view sha, const Script& script,
           std::span<const std::string_view> keys, std::span<const std::string_view> args,
           bool read_only_command);

  /// FCALL / FCALL_RO of `function`; `argv` is the caller's whole command (FUNCTION STATS).
  void run_function(Client& caller, const FunctionInfo& function,
                    std::span<const std::string_view> argv, std::size_t numkeys,
                    bool read_only_command);
  /// The FUNCTION libraries and their engine.
  FunctionLibraries& functions() noexcept { return *functions_; }
  const FunctionLibraries& functions() const noexcept { return *functions_; }

  /// What FUNCTION STATS shows of a running function.
  struct RunningFunction {
    std::string_view name;
    std::span<const std::string> argv;
    std::uint64_t duration_ms = 0;
  };
  /// The running function, if a function runs (not an EVAL).
  std::optional<RunningFunction> running_function() const;
  bool running_eval() const noexcept { return run_ && run_->is_eval; }

  bool running() const noexcept { return run_ != nullptr; }
  /// The running script passed busy-reply-threshold (Redis SCRIPT_TIMEDOUT): other clients
  /// get busy_error() but for the allow-busy commands, served from the script's hook.
  bool busy() const noexcept { return run_ && run_->timed_out; }
  /// Redis' BUSY text for the running script's kind.
  std::string_view busy_error() const noexcept;
  /// SCRIPT KILL (`function_kill` false) or FUNCTION KILL, in Redis scriptKill's order of
  /// checks: "" when the script will stop, else the error reply (NOTBUSY, UNKILLABLE, BUSY).
  std::string kill(bool function_kill);
  /// SHUTDOWN NOSAVE while busy: the script stops, and its effects and reply are dropped (Redis
  /// exits from the hook without propagating them).
  void kill_for_shutdown() noexcept;
  /// The count hook's question (Redis scriptInterrupt): past the threshold, protects the
  /// caller and lets the event loop run; true once the script is killed.
  bool interrupt();
  std::size_t script_count() const noexcept { return scripts_.size(); }
  /// Per-script calls and times (INFO scriptstats, a listd extension).
  ScriptStats& stats() noexcept { return stats_; }
  /// The client redis.call runs commands as (Redis' lua client): never a tracking caller.
  const Client& script_client() const noexcept { return script_client_; }
  const ScriptStats& stats() const noexcept { return stats_; }
  /// Bytes of the cached bodies and their names (INFO used_memory_scripts_eval).
  std::size_t scripts_memory() const noexcept { return scripts_bytes_; }
  /// The Lua heap (INFO used_memory_lua).
  std::size_t lua_memory() const noexcept;
  /// `spec`'s flags for this call (Redis getCommandFlags): for EVAL and EVALSHA(_RO) of a
  /// script with a shebang, the write and denyoom flags its flags imply.
  std::uint32_t command_flags(const CommandSpec& spec,
                              std::span<const std::string_view> argv) const;

 private:
  /// Redis scriptPrepareForRun's refusals for a script with a shebang (`flags`), or "".
  std::string refusal(unsigned flags, bool read_only_command) const;
  struct Run;
  /// The run of one script or function: the checks, the script client, frozen time, the
  /// busy state; `invoke` calls the engine and returns its run() result.
  template <typename Invoke>
  void run_generic(Client& caller, Run& run, unsigned flags, bool read_only_command,
                   Invoke&& invoke);

  struct Run {
    Client* caller = nullptr;
    const ScriptRunner* runner = nullptr;
    std::string name;               ///< the sha (the function name for FCALL)
    std::vector<std::string> argv;  ///< FCALL's command (FUNCTION STATS)
    std::uint64_t start_ms = 0;     ///< monotonic, for the busy threshold
    bool is_eval = true;
    bool timed_out = false;
    bool killed = false;
    bool shutdown = false;  ///< killed by SHUTDOWN NOSAVE
  };

  Executor& exec_;
  std::unique_ptr<script::LuaEngine> engine_;
  std::unique_ptr<FunctionLibraries> functions_;
  /// Evicts least recently used EVAL-only scripts past the configured bound.
  void enforce_bound();

  std::unordered_map<std::string, Script> scripts_;  // by lower-case sha
  std::list<std::string> eval_lru_;                  // EVAL-only shas, most recent first
  std::uint64_t evicted_scripts_ = 0;
  std::size_t scripts_bytes_ = 0;
  ScriptStats stats_;
  Client script_client_{0};
  Run* run_ = nullptr;  ///< the running script (one at most: EVAL is refused inside scripts)
};

}  // namespace listd::server
