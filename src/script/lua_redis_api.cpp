// The `redis` table (Redis script_lua.c luaRegisterRedisAPI plus eval.c's additions), with
// Redis' argument checks and error texts (SCRIPTING.md §1.3, §1.4).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "listd/script/sha1.h"
#include "lua_internal.h"

namespace listd::script::detail {
namespace {

[[noreturn]] void raise_error_table(lua_State* L, std::string_view text) {
  push_error_table(L, text);
  lua_error(L);
  std::abort();  // unreachable: lua_error throws in the C++ build
}

// Redis luaArgsToRedisArgv: strings as they are, numbers as "%.17g"; anything else refused.
// `numbers` owns the formatted numbers, so the views stay valid.
bool collect_argv(lua_State* L, std::vector<std::string_view>& argv,
                  std::vector<std::string>& numbers) {
  const int argc = lua_gettop(L);
  if (argc == 0) {
    push_error_table(L, "Please specify at least one argument for this redis lib call");
    return false;
  }
  numbers.reserve(static_cast<std::size_t>(argc));
  for (int i = 1; i <= argc; ++i) {
    const int type = lua_type(L, i);
    if (type == LUA_TNUMBER) {
      char buf[64];
      const int n = std::snprintf(buf, sizeof buf, "%.17g", lua_tonumber(L, i));
      numbers.emplace_back(buf, static_cast<std::size_t>(n));
      argv.emplace_back(numbers.back());
    } else if (type == LUA_TSTRING) {
      std::size_t len = 0;
      const char* s = lua_tolstring(L, i, &len);
      argv.emplace_back(s, len);
    } else {
      push_error_table(L, "Lua redis lib command arguments must be strings or integers");
      return false;
    }
  }
  return true;
}

void mark_counted(lua_State* L) {
  // The command already counted its error; the script's re-raise must not count it again.
  lua_pushstring(L, "ignore_error_stats_update");
  lua_pushboolean(L, 1);
  lua_settable(L, -3);
}

// redis.call (raise = true) and redis.pcall.
int generic_call(lua_State* L, bool raise) {
  LuaEngine::State& st = state_of(L);
  if (!st.runner)
    raise_error_table(L, "redis.call/pcall can only be called inside a script invocation");
  std::vector<std::string_view> argv;
  std::vector<std::string> numbers;
  if (!collect_argv(L, argv, numbers)) {
    if (raise) lua_error(L);
    return 1;
  }
  if (st.in_call) {
    push_error_table(L,
                     "luaRedisGenericCommand() recursive call detected. Are you doing funny "
                     "stuff with Lua debug hooks?");
    return 1;
  }
  std::string reply;
  std::string refusal;
  st.in_call = true;
  try {
    refusal = st.runner->call(
        argv, st.resp == 3 ? protocol::RespVersion::kResp3 : protocol::RespVersion::kResp2, reply);
  } catch (...) {
    st.in_call = false;
    throw;
  }
  st.in_call = false;
  if (!refusal.empty()) {
    push_error_table(L, refusal);
    mark_counted(L);
    if (raise) lua_error(L);
    return 1;
  }
  const bool is_error = !reply.empty() && reply[0] == '-';
  push_reply(L, reply);
  if (is_error) mark_counted(L);
  if (raise && is_error) lua_error(L);
  return 1;
}

int redis_call(lua_State* L) { return generic_call(L, true); }
int redis_pcall(lua_State* L) { return generic_call(L, false); }

int redis_sha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) raise_error_table(L, "wrong number of arguments");
  std::size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  const std::string hex = sha1_hex(s ? std::string_view(s, len) : std::string_view());
  lua_pushlstring(L, hex.data(), hex.size());
  return 1;
}

bool one_string_argument(lua_State* L) {
  if (lua_gettop(L) == 1 && lua_type(L, -1) == LUA_TSTRING) return true;
  push_error_table(L, "wrong number or type of arguments");  // returned, not raised
  return false;
}

int redis_error_reply(lua_State* L) {
  if (!one_string_argument(L)) return 1;
  std::size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  std::string text;
  if (len == 0 || s[0] != '-') text = "-";
  text.append(s, len);
  push_error_table(L, text);
  return 1;
}

int redis_status_reply(lua_State* L) {
  if (!one_string_argument(L)) return 1;
  lua_newtable(L);
  lua_pushstring(L, "ok");
  lua_pushvalue(L, -3);
  lua_settable(L, -3);
  return 1;
}

int redis_log(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc < 2) raise_error_table(L, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(L, 1)) raise_error_table(L, "First argument must be a number (log level).");
  const int level = static_cast<int>(lua_tonumber(L, 1));
  if (level < kLogDebug || level > kLogWarning) raise_error_table(L, "Invalid debug level.");
  std::string message;
  for (int i = 2; i <= argc; ++i) {
    std::size_t len = 0;
    const char* s = lua_tolstring(L, i, &len);
    if (!s) continue;
    if (i != 2) message += ' ';
    message.append(s, len);
  }
  if (LuaEngine::State& st = state_of(L); st.runner) st.runner->log(level, message);
  return 0;
}

int redis_acl_check_cmd(lua_State* L) {
  LuaEngine::State& st = state_of(L);
  if (!st.runner)
    raise_error_table(L, "redis.acl_check_cmd can only be called inside a script invocation");
  std::vector<std::string_view> argv;
  std::vector<std::string> numbers;
  if (!collect_argv(L, argv, numbers)) return lua_error(L);
  const std::optional<bool> allowed = st.runner->acl_check(argv);
  if (!allowed) raise_error_table(L, "Invalid command passed to redis.acl_check_cmd()");
  lua_pushboolean(L, *allowed ? 1 : 0);
  return 1;
}

int redis_setresp(lua_State* L) {
  LuaEngine::State& st = state_of(L);
  if (!st.runner)
    raise_error_table(L, "redis.setresp can only be called inside a script invocation");
  if (lua_gettop(L) != 1) raise_error_table(L, "redis.setresp() requires one argument.");
  const int resp = static_cast<int>(lua_tonumber(L, 1));
  if (resp != 2 && resp != 3) raise_error_table(L, "RESP version must be 2 or 3.");
  st.resp = resp;
  return 0;
}

int redis_set_repl(lua_State* L) {
  LuaEngine::State& st = state_of(L);
  if (!st.runner)
    raise_error_table(L, "redis.set_repl can only be called inside a script invocation");
  if (lua_gettop(L) != 1) raise_error_table(L, "redis.set_repl() requires two arguments.");
  const int flags = static_cast<int>(lua_tonumber(L, 1));
  if ((flags & ~kReplAll) != 0)
    raise_error_table(L,
                      "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or "
                      "REPL_NONE.");
  st.runner->set_repl(flags);
  return 0;
}

// Deprecated since 7.0 (effects are always replicated): answers true.
int redis_replicate_commands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

// Outside a SCRIPT DEBUG session, breakpoint answers false and debug does nothing.
int redis_breakpoint(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}
int redis_debug(lua_State*) { return 0; }

void set_number(lua_State* L, const char* name, double value) {
  lua_pushnumber(L, value);
  lua_setfield(L, -2, name);
}

}  // namespace

void register_redis_api(lua_State* L) {
  static const luaL_Reg functions[] = {
      {"call", redis_call},
      {"pcall", redis_pcall},
      {"sha1hex", redis_sha1hex},
      {"error_reply", redis_error_reply},
      {"status_reply", redis_status_reply},
      {"log", redis_log},
      {"setresp", redis_setresp},
      {"acl_check_cmd", redis_acl_check_cmd},
      {"set_repl", redis_set_repl},
      {"replicate_commands", redis_replicate_commands},
      {"breakpoint", redis_breakpoint},
      {"debug", redis_debug},
      {nullptr, nullptr},
  };
  lua_newtable(L);
  for (const luaL_Reg* f = functions; f->name; ++f) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
  set_number(L, "LOG_DEBUG", kLogDebug);
  set_number(L, "LOG_VERBOSE", kLogVerbose);
  set_number(L, "LOG_NOTICE", kLogNotice);
  set_number(L, "LOG_WARNING", kLogWarning);
  set_number(L, "REPL_NONE", kReplNone);
  set_number(L, "REPL_AOF", kReplAof);
  set_number(L, "REPL_SLAVE", kReplReplica);
  set_number(L, "REPL_REPLICA", kReplReplica);
  set_number(L, "REPL_ALL", kReplAll);
  lua_pushstring(L, "7.0.15");
  lua_setfield(L, -2, "REDIS_VERSION");
  set_number(L, "REDIS_VERSION_NUM", 0x07000f);
  lua_setfield(L, LUA_GLOBALSINDEX, "redis");
}

}  // namespace listd::script::detail
