// The script cache and one EVAL run (scripting.h).
#include "listd/server/scripting.h"

#include "listd/base/redis_text.h"
#include "listd/base/scope_exit.h"
#include "listd/script/sha1.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/function_library.h"
#include "listd/server/persistence.h"
#include "listd/server/replication_replica.h"
#include "listd/server/script_runner.h"

namespace listd::server {
namespace {

// The Lua heap cap: a runaway script gets "not enough memory" instead of growing the server
// without bound, and below INT_MAX / 6 bytes lua-cjson 2.1.0's int-sized buffers cannot
// overflow (the CVE-2022-24834 class), since every byte it encodes lives in this heap first.
constexpr std::size_t kLuaHeapLimit = std::size_t{256} << 20;

constexpr std::string_view kBusyScriptErr =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
constexpr std::string_view kBusyFunctionErr =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

}  // namespace

Scripting::Scripting(Executor& exec)
    : exec_(exec),
      engine_(std::make_unique<script::LuaEngine>(kLuaHeapLimit)),
      functions_(std::make_unique<FunctionLibraries>(kLuaHeapLimit)) {
  script_client_.authenticated = true;
  script_client_.addr = "lua";  // MONITOR's "[0 lua]"
}

Scripting::~Scripting() = default;

std::size_t Scripting::lua_memory() const noexcept { return engine_->used_memory(); }

std::string Scripting::load(std::string_view body, std::string& error, bool by_script_load) {
  std::string sha = script::sha1_hex(body);
  if (auto it = scripts_.find(sha); it != scripts_.end()) {
    Script& known = it->second;
    if (known.loaded) return sha;
    if (by_script_load) {  // SCRIPT LOAD keeps it for good
      eval_lru_.erase(known.lru);
      known.loaded = true;
    } else {
      eval_lru_.splice(eval_lru_.begin(), eval_lru_, known.lru);
    }
    return sha;
  }
  const script::Shebang shebang = script::parse_shebang(body);
  if (!shebang.error.empty()) {
    error = shebang.error;
    return {};
  }
  error = engine_->compile(sha, body, shebang.length);
  if (!error.empty()) return {};
  scripts_bytes_ += sha.size() + body.size();
  Script& added =
      scripts_.emplace(sha, Script{std::string(body), shebang.flags, false, {}}).first->second;
  added.loaded = by_script_load;
  if (!by_script_load) {
    eval_lru_.push_front(sha);
    added.lru = eval_lru_.begin();
    enforce_bound();
  }
  return sha;
}

void Scripting::touch(std::string_view sha) {
  const auto it = scripts_.find(base::to_lower(sha));
  if (it != scripts_.end() && !it->second.loaded)
    eval_lru_.splice(eval_lru_.begin(), eval_lru_, it->second.lru);
}

void Scripting::enforce_bound() {
  const long long bound = exec_.config().settings().script_cache_max_eval;
  // The script just added is at the front: with a bound of 1 or more it is never the victim.
  while (bound > 0 && eval_lru_.size() > static_cast<std::size_t>(bound)) {
    const std::string victim = std::move(eval_lru_.back());
    eval_lru_.pop_back();
    const auto it = scripts_.find(victim);
    scripts_bytes_ -= victim.size() + it->second.body.size();
    scripts_.erase(it);
    engine_->forget(victim);
    stats_.forget_script(victim);
    ++evicted_scripts_;
  }
}

const Scripting::Script* Scripting::find(std::string_view sha) const {
  if (sha.size() != 40) return nullptr;
  const auto it = scripts_.find(base::to_lower(sha));
  return it == scripts_.end() ? nullptr : &it->second;
}

void Scripting::flush() {
  scripts_.clear();
  eval_lru_.clear();
  stats_.forget_scripts();
  scripts_bytes_ = 0;
  engine_ = std::make_unique<script::LuaEngine>(kLuaHeapLimit);
}

std::uint32_t Scripting::command_flags(const CommandSpec& spec,
                                       std::span<const std::string_view> argv) const {
  if (argv.size() < 2) return spec.flags;
  unsigned flags = script::kScriptCompatMode;
  const bool fcall = spec.name.starts_with("fcall");
  if (!spec.name.starts_with("eval") && !fcall) return spec.flags;
  const bool by_sha = spec.name.starts_with("evalsha");
  // Redis evalGetCommandFlags: the cached script's flags, else (EVAL) the body's shebang;
  // fcallGetCommandFlags: the function's (never compat mode).
  if (fcall) {
    const FunctionInfo* f = functions_->find(argv[1]);
    if (!f) return spec.flags;
    flags = f->flags;
  } else if (const Script* s = by_sha ? find(argv[1]) : nullptr) {
    flags = s->flags;
  } else if (!by_sha && argv[1].starts_with("#!")) {
    const script::Shebang shebang = script::parse_shebang(argv[1]);
    if (shebang.error.empty()) flags = shebang.flags;
  }
  if (flags & script::kScriptCompatMode) return spec.flags;
  // scriptFlagsToCmdFlags: declared flags say whether it writes, so may-replicate goes too.
  std::uint32_t out = spec.flags & ~(kStale | kDenyOom | kWrite | kMayReplicate);
  if (!(flags & (script::kScriptAllowOom | script::kScriptNoWrites))) out |= kDenyOom;
  if (!(flags & script::kScriptNoWrites)) out |= kWrite;
  if (flags & script::kScriptAllowStale) out |= kStale;
  return out;
}

std::string Scripting::refusal(unsigned flags, bool read_only_command) const {
  // Without a shebang EVAL keeps its own stale flag, so a stale replica refuses it here.
  if (flags & script::kScriptCompatMode)
    return exec_.replica_side().stale_refused() ? std::string(kMasterDownErr) : std::string();
  if (!(flags & script::kScriptNoWrites)) {
    if (exec_.persistence().refusing_writes())
      return "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to "
             "persist to disk. Writable scripts are blocked. Use 'no-writes' flag for read only "
             "scripts.";
    if (read_only_command)
      return "ERR Can not execute a script with write flag using *_ro command.";
  }
  // The no-writes flag implies allow-oom (Redis scriptPrepareForRun).
  if (exec_.pre_command_oom() && !(flags & (script::kScriptAllowOom | script::kScriptNoWrites)))
    return "OOM allow-oom flag is not set on the script, can not run it when used memory > "
           "'maxmemory'";
  return {};
}

template <typename Invoke>
void Scripting::run_generic(Client& caller, Run& run, unsigned flags, bool read_only_command,
                            Invoke&& invoke) {
  if (std::string why = refusal(flags, read_only_command); !why.empty()) {
    caller.reply().error(why);
    return;
  }
  const bool compat = (flags & script::kScriptCompatMode) != 0;
  const bool no_writes = !compat && (flags & script::kScriptNoWrites);
  // The script's client starts in the caller's db, in RESP2, every run (prepareLuaClient).
  script_client_.db = caller.db;
  script_client_.user = caller.user;  // redis.call is checked as the caller's ACL user
  script_client_.resp = protocol::RespVersion::kResp2;
  script_client_.out.clear();
  const bool allow_oom = !compat && (flags & script::kScriptAllowOom);
  ScriptRunner runner(exec_, script_client_, read_only_command || no_writes, allow_oom);
  run.caller = &caller;
  run.runner = &runner;
  const std::uint64_t start_us = exec_.clock().read().mono_us;
  run.start_ms = start_us / 1000;
  run_ = &run;
  exec_.freeze_time(true);  // lazy expiry and relative times see the run's start
  const std::size_t out_before = caller.out.size();
  base::ScopeExit end_run([&] {
    exec_.freeze_time(false);
    caller.script_running = false;
    run_ = nullptr;
  });
  if (invoke(runner, caller.reply())) exec_.error_already_counted();
  const std::uint64_t end_us = exec_.clock().read().mono_us;
  stats_.record(run.is_eval, run.name, end_us > start_us ? end_us - start_us : 0,
                caller.out.size() > out_before && caller.out[out_before] == '-');
  if (run.shutdown) {
    // SHUTDOWN NOSAVE: Redis exits from the hook; nothing of the script is logged or answered.
    exec_.effects().discard_unit();
    caller.out.resize(out_before);
  }
}

void Scripting::run(Client& caller, std::string_view sha, const Script& s,
                    std::span<const std::string_view> keys, std::span<const std::string_view> args,
                    bool read_only_command) {
  // Keep the sha: the cache entry `s` cannot change during the run (SCRIPT FLUSH is refused
  // inside scripts and while one is busy), but `sha` may point into the caller's request.
  Run run;
  run.name = std::string(sha);
  run_generic(caller, run, s.flags, read_only_command,
              [&](ScriptRunner& runner, protocol::ReplyWriter out) {
                return engine_->run(run.name, keys, args, runner, out);
              });
}

void Scripting::run_function(Client& caller, const FunctionInfo& f,
                             std::span<const std::string_view> argv, std::size_t numkeys,
                             bool read_only_command) {
  Run run;
  run.name = f.name;
  run.is_eval = false;
  run.argv.assign(argv.begin(), argv.end());
  const auto keys = argv.subspan(3, numkeys);
  const auto args = argv.subspan(3 + numkeys);
  // The library cannot go during the run: FUNCTION DELETE/FLUSH/LOAD are refused inside
  // scripts and while one is busy, so `f` stays valid.
  run_generic(caller, run, f.flags, read_only_command,
              [&](ScriptRunner& runner, protocol::ReplyWriter out) {
                return functions_->engine().call_function(f.ref, run.name, keys, args, runner, out);
              });
}

std::optional<Scripting::RunningFunction> Scripting::running_function() const {
  if (!run_ || run_->is_eval) return std::nullopt;
  return RunningFunction{run_->name, run_->argv, exec_.clock().monotonic_ms() - run_->start_ms};
}

std::string_view Scripting::busy_error() const noexcept {
  if (run_ && !run_->is_eval) return kBusyFunctionErr;
  return kBusyScriptErr;
}

bool Scripting::interrupt() {
  Run& r = *run_;
  if (!r.timed_out) {
    const long long threshold = exec_.config().settings().busy_reply_threshold;
    const std::uint64_t elapsed = exec_.clock().monotonic_ms() - r.start_ms;
    if (threshold <= 0 || elapsed < static_cast<std::uint64_t>(threshold)) return false;
    exec_.persistence().log().warning("Slow script detected: still in execution after " +
                                      std::to_string(elapsed) +
                                      " milliseconds. You can try killing the script using the " +
                                      (r.is_eval ? "SCRIPT KILL" : "FUNCTION KILL") +
                                      " command. Script name is: " + r.name + ".");
    r.timed_out = true;
    r.caller->script_running = true;
  }
  exec_.run_events_while_busy();
  if (r.killed) exec_.persistence().log().warning("Lua script killed by user with SCRIPT KILL.");
  return r.killed;
}

std::string Scripting::kill(bool function_kill) {
  if (!run_) return "NOTBUSY No scripts in execution right now.";
  if (run_->runner->wrote())
    return "UNKILLABLE Sorry the script already executed write commands against the dataset. "
           "You can either wait the script termination or kill the server in a hard way using "
           "the SHUTDOWN NOSAVE command.";
  if (!function_kill && !run_->is_eval) return std::string(kBusyFunctionErr);
  if (function_kill && run_->is_eval) return std::string(kBusyScriptErr);
  run_->killed = true;
  return {};
}

void Scripting::kill_for_shutdown() noexcept {
  if (!run_) return;
  run_->killed = true;
  run_->shutdown = true;
}

}  // namespace listd::server
