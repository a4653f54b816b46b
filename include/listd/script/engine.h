// The Lua engine behind EVAL: one Lua 5.1 state (Debian's C++ build, so a Lua error is a C++
// exception and RAII holds across it) with Redis 7.0's libraries, its read-only sandbox, the
// `redis` API and the reply conversions. The only part that sees Lua headers.
//
// API: compile(sha, body) stores a script; run(sha, keys, args, runner, caller) runs it and
// writes its reply in the caller's protocol. redis.call / redis.pcall reach the server through
// CommandRunner, declared here so that this part never depends on the server. An engine that
// serves FUNCTION libraries (a second instance, as Redis has) loads a library's code with
// load_library, whose redis.register_function calls reach the server's FunctionRegistrar, and
// runs a registered callback with call_function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "listd/protocol/reply_writer.h"

namespace listd::script {

/// redis.set_repl targets (Redis PROPAGATE_AOF / PROPAGATE_REPL).
enum ReplFlags : int { kReplNone = 0, kReplAof = 1, kReplReplica = 2, kReplAll = 3 };
/// redis.log levels (Redis LL_DEBUG .. LL_WARNING).
enum LogLevel : int { kLogDebug = 0, kLogVerbose = 1, kLogNotice = 2, kLogWarning = 3 };

/// What a script's redis.* calls need from the server, one run at a time.
class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  /// Runs one command for redis.call / redis.pcall. Either writes the command's reply, encoded
  /// in `resp`, into `reply` and returns "", or returns the reason it refused to run it
  /// (Redis scriptCall's texts, e.g. "Unknown Redis command called from script").
  virtual std::string call(std::span<const std::string_view> argv, protocol::RespVersion resp,
                           std::string& reply) = 0;
  /// redis.acl_check_cmd: whether the script's user may run `argv` (its command, subcommand
  /// and keys); nullopt when no such command exists.
  virtual std::optional<bool> acl_check(std::span<const std::string_view> argv) = 0;
  /// redis.log, already filtered to a valid level; the runner applies its verbosity.
  virtual void log(int level, std::string_view message) = 0;
  /// redis.set_repl with a valid ReplFlags value: later effects go only to those targets.
  virtual void set_repl(int flags) = 0;
  /// True: the run gets a count hook that calls interrupt() every kInterruptInstructions Lua
  /// instructions (Redis luaMaskCountHook, installed while busy-reply-threshold > 0).
  virtual bool wants_interrupts() const { return false; }
  /// The hook's question: true kills the script, which then raises "Script killed by user
  /// with SCRIPT KILL..." on every line until it ends, so pcall cannot swallow it.
  virtual bool interrupt() { return false; }
};

/// One redis.register_function call, as FUNCTION LOAD's library registry receives it.
struct RegisteredFunction {
  std::string name;
  std::optional<std::string> description;
  unsigned flags = 0;  ///< ScriptFlags (no kScriptCompatMode)
  int ref = 0;         ///< the callback, for call_function / release_function
};

/// The server side of redis.register_function during one load_library.
class FunctionRegistrar {
 public:
  virtual ~FunctionRegistrar() = default;
  /// Takes the function, or returns why not (Redis functionLibCreateFunction's text, e.g.
  /// "Function already exists in the library"); the engine then releases the callback.
  virtual std::string add(RegisteredFunction function) = 0;
};

/// How often a run with interrupts calls CommandRunner::interrupt (Redis: 100,000).
inline constexpr int kInterruptInstructions = 100000;

class LuaEngine {
 public:
  /// `heap_limit` caps the Lua heap in bytes (0: no cap); an allocation past it fails, and the
  /// script gets Lua's "not enough memory".
  explicit LuaEngine(std::size_t heap_limit = 0);
  ~LuaEngine();
  LuaEngine(const LuaEngine&) = delete;
  LuaEngine& operator=(const LuaEngine&) = delete;

  /// Compiles `body` (whose first `shebang_len` bytes are a shebang line, cut but for its
  /// newline so line numbers stay right) as script `sha`. Returns "" or the error reply text
  /// ("Error compiling script (new function): user_script:1: ...").
  std::string compile(std::string_view sha, std::string_view body, std::size_t shebang_len = 0);
  bool has(std::string_view sha) const;
  /// Drops compiled script `sha` (the script cache evicted it); a no-op if unknown.
  void forget(std::string_view sha);
  /// Runs script `sha` (compiled) with KEYS and ARGV, and writes its return value, or its
  /// error as "-<err> script: <sha>, on @user_script:<line>.", with `caller`. Returns true when
  /// that reply is a command's error the server already counted (redis.call's error raised or
  /// returned again: Redis' ignore_error_stats_update), so it must not be counted twice.
  bool run(std::string_view sha, std::span<const std::string_view> keys,
           std::span<const std::string_view> args, CommandRunner& runner,
           protocol::ReplyWriter caller);
  /// FUNCTION LOAD's run of a library's code (after its shebang line, newline kept): the code
  /// sees only `redis` with register_function, log, the LOG_* levels and the versions, and
  /// stops with "FUNCTION LOAD timeout" after `timeout_ms` (0: never). Returns "" or the error
  /// reply text ("ERR Error compiling function: ...", "ERR Error registering functions: ...").
  /// Callbacks registered before a failure stay registered: the registrar releases them.
  std::string load_library(std::string_view code, FunctionRegistrar& registrar,
                           std::uint64_t timeout_ms);
  /// FCALL: runs callback `ref` with KEYS and ARGV as its two arguments; errors name the
  /// function ("script: <name>, on @user_function:<line>."). Returns as run().
  bool call_function(int ref, std::string_view name, std::span<const std::string_view> keys,
                     std::span<const std::string_view> args, CommandRunner& runner,
                     protocol::ReplyWriter caller);
  /// Frees a callback's reference (a library deleted, replaced or flushed).
  void release_function(int ref);
  /// Bytes the Lua heap holds now (INFO used_memory_lua).
  std::size_t used_memory() const noexcept;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

/// Shebang flags of an EVAL script (Redis SCRIPT_FLAG_*).
enum ScriptFlags : unsigned {
  kScriptNoWrites = 1u << 0,
  kScriptAllowOom = 1u << 1,
  kScriptAllowStale = 1u << 2,
  kScriptNoCluster = 1u << 3,
  kScriptAllowCrossSlot = 1u << 4,
  kScriptCompatMode = 1u << 5,  ///< no shebang: the script keeps EVAL's own flags
};

struct Shebang {
  unsigned flags = kScriptCompatMode;
  std::size_t length = 0;  ///< bytes before the shebang's newline (0 without one)
  std::string error;       ///< non-empty: the reply text ("Invalid script shebang", ...)
};
/// The flag of one name, matched without case as register_function does (0: unknown).
unsigned script_flag_named(std::string_view name);
/// The names of `flags`, in Redis' order (FUNCTION LIST).
std::vector<std::string_view> script_flag_names(unsigned flags);

/// Redis evalExtractShebangFlags: reads `#!lua flags=a,b` on the first line.
Shebang parse_shebang(std::string_view body);

}  // namespace listd::script
