// FUNCTION LOAD on the Lua side (Redis function_lua.c): the library's code runs once with the
// load-time globals (only a reduced `redis`), under a timeout hook, and its
// redis.register_function calls hand callbacks to the server's FunctionRegistrar.
#include <chrono>
#include <cstdlib>
#include <string>

#include "listd/base/redis_text.h"
#include "listd/base/scope_exit.h"
#include "lua_internal.h"

namespace listd::script {
namespace {

using detail::state_of;

constexpr const char* kLoadApiKey = "listd.load_api";  // registry: the load-time globals

std::uint64_t steady_ms() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

[[noreturn]] void raise_error_table(lua_State* L, std::string_view text) {
  detail::push_error_table(L, text);
  lua_error(L);
  std::abort();  // unreachable: lua_error throws in the C++ build
}

// luaGetStringSds: a string or a number, as text.
bool string_at(lua_State* L, int index, std::string& out) {
  if (!lua_isstring(L, index)) return false;
  std::size_t len = 0;
  const char* s = lua_tolstring(L, index, &len);
  out.assign(s, len);
  return true;
}

// The flags table on top of the stack: every entry a known name (luaRegisterFunctionReadFlags).
bool read_flags(lua_State* L, unsigned& flags) {
  for (int i = 1;; ++i) {
    lua_pushnumber(L, i);
    lua_gettable(L, -2);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      return true;
    }
    const unsigned flag = lua_isstring(L, -1) ? script_flag_named(lua_tostring(L, -1)) : 0;
    lua_pop(L, 1);
    if (flag == 0) return false;
    flags |= flag;
  }
}

// One named argument of register_function{...}: the key at -2, the value at -1 (popped here).
// Returns "" or the error text.
std::string read_named_argument(lua_State* L, RegisteredFunction& f, bool& has_name,
                                bool& has_callback) {
  if (!lua_isstring(L, -2))
    return "named argument key given to redis.register_function is not a string";
  lua_pushvalue(L, -2);  // a copy: lua_tostring on a number key would break lua_next
  const std::string key = lua_tostring(L, -1);
  lua_pop(L, 1);
  std::string text;
  if (base::iequals(key, "function_name")) {
    if (!string_at(L, -1, f.name))
      return "function_name argument given to redis.register_function must be a string";
    has_name = true;
  } else if (base::iequals(key, "description")) {
    if (!string_at(L, -1, text))
      return "description argument given to redis.register_function must be a string";
    f.description = std::move(text);
  } else if (base::iequals(key, "callback")) {
    if (!lua_isfunction(L, -1))
      return "callback argument given to redis.register_function must be a function";
    if (has_callback) luaL_unref(L, LUA_REGISTRYINDEX, f.ref);
    f.ref = luaL_ref(L, LUA_REGISTRYINDEX);  // pops the value
    has_callback = true;
    return {};
  } else if (base::iequals(key, "flags")) {
    if (!lua_istable(L, -1))
      return "flags argument to redis.register_function must be a table representing function "
             "flags";
    if (!read_flags(L, f.flags)) return "unknown flag given";
  } else {
    return "unknown argument given to redis.register_function";
  }
  lua_pop(L, 1);
  return {};
}

// register_function{function_name=, callback=, description=, flags=}.
std::string read_named_arguments(lua_State* L, RegisteredFunction& f, bool& has_callback) {
  if (!lua_istable(L, 1))
    return "calling redis.register_function with a single argument is only applicable to Lua "
           "table (representing named arguments).";
  bool has_name = false;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    std::string error = read_named_argument(L, f, has_name, has_callback);
    if (!error.empty()) return error;
  }
  if (!has_name) return "redis.register_function must get a function name argument";
  if (!has_callback) return "redis.register_function must get a callback argument";
  return {};
}

// register_function(name, callback).
std::string read_positional_arguments(lua_State* L, RegisteredFunction& f, bool& has_callback) {
  if (!string_at(L, 1, f.name)) return "first argument to redis.register_function must be a string";
  if (!lua_isfunction(L, 2)) return "second argument to redis.register_function must be a function";
  lua_settop(L, 2);
  f.ref = luaL_ref(L, LUA_REGISTRYINDEX);
  has_callback = true;
  return {};
}

int register_function(lua_State* L) {
  LuaEngine::State& st = state_of(L);
  if (!st.registrar)
    raise_error_table(L, "redis.register_function can only be called on FUNCTION LOAD command");
  const int argc = lua_gettop(L);
  if (argc < 1 || argc > 2)
    raise_error_table(L, "wrong number of arguments to redis.register_function");
  RegisteredFunction f;
  bool has_callback = false;
  std::string error = argc == 1 ? read_named_arguments(L, f, has_callback)
                                : read_positional_arguments(L, f, has_callback);
  if (error.empty()) {
    const int ref = f.ref;
    error = st.registrar->add(std::move(f));
    if (error.empty()) return 0;
    luaL_unref(L, LUA_REGISTRYINDEX, ref);
  } else if (has_callback) {
    luaL_unref(L, LUA_REGISTRYINDEX, f.ref);
  }
  raise_error_table(L, error);
}

// The load-time globals (luaEngineInitEngine): a table holding only `redis`, which holds
// register_function, log, the LOG_* levels and the versions; a miss in either raises the
// nonexistent-global error, and both are read-only. Built once, kept in the registry.
void push_load_api(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kLoadApiKey);
  if (lua_istable(L, -1)) return;
  lua_pop(L, 1);
  lua_newtable(L);  // the error metatable, shared
  lua_pushcfunction(L, detail::nonexistent_global);
  lua_setfield(L, -2, "__index");
  const int error_mt = lua_gettop(L);
  lua_newtable(L);
  const int globals = lua_gettop(L);
  lua_newtable(L);
  const int redis = lua_gettop(L);
  lua_pushcfunction(L, register_function);
  lua_setfield(L, redis, "register_function");
  lua_getfield(L, LUA_GLOBALSINDEX, "redis");  // the run-time API, read through its proxy
  for (const char* name : {"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING",
                           "REDIS_VERSION", "REDIS_VERSION_NUM"}) {
    lua_getfield(L, -1, name);
    lua_setfield(L, redis, name);
  }
  lua_pop(L, 1);
  lua_pushvalue(L, error_mt);
  lua_setmetatable(L, redis);
  lua_setfield(L, globals, "redis");
  lua_pushvalue(L, error_mt);
  lua_setmetatable(L, globals);
  detail::push_read_only(L, globals);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, kLoadApiKey);
  lua_replace(L, error_mt);
  lua_settop(L, error_mt);
}

// Points the globals' reads at the table on top of the stack (popped): the load-time API or
// the real globals. The globals are a proxy; its metatable's __index is the table read.
void set_globals_source(lua_State* L) {
  lua_getmetatable(L, LUA_GLOBALSINDEX);
  lua_insert(L, -2);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

void load_hook(lua_State* L, lua_Debug*) {
  LuaEngine::State& st = state_of(L);
  if (st.load_timeout_ms == 0 || steady_ms() - st.load_start_ms <= st.load_timeout_ms) return;
  lua_sethook(L, load_hook, LUA_MASKLINE, 0);
  raise_error_table(L, "FUNCTION LOAD timeout");
}

// luaExtractErrorInformation's message: a string gets "ERR ", a table gives its `err`.
std::string load_error_message(lua_State* L) {
  if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER)
    return std::string("ERR ") + lua_tostring(L, -1);
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "err");
    std::string text = lua_isstring(L, -1) ? lua_tostring(L, -1) : "(null)";
    lua_pop(L, 1);
    return text;
  }
  return "(null)";
}

}  // namespace

std::string LuaEngine::load_library(std::string_view code, FunctionRegistrar& registrar,
                                    std::uint64_t timeout_ms) {
  State& st = *state_;
  lua_State* L = st.L;
  const int top = lua_gettop(L);
  push_load_api(L);
  set_globals_source(L);
  base::ScopeExit restore([&] {
    lua_sethook(L, nullptr, 0, 0);
    st.registrar = nullptr;
    lua_rawgeti(L, LUA_REGISTRYINDEX, st.real_globals_ref);
    set_globals_source(L);
    lua_settop(L, top);
  });
  if (detail::load_text_chunk(L, code, "@user_function") != 0) {
    const char* msg = lua_tostring(L, -1);
    return std::string("ERR Error compiling function: ") + (msg ? msg : "");
  }
  st.registrar = &registrar;
  st.load_timeout_ms = timeout_ms;
  st.load_start_ms = steady_ms();
  lua_sethook(L, load_hook, LUA_MASKCOUNT, kInterruptInstructions);
  if (lua_pcall(L, 0, 0, 0) != 0)
    return "ERR Error registering functions: " + load_error_message(L);
  return {};
}

}  // namespace listd::script
