// LuaEngine: the state's set-up (counting, capped allocator; libraries; redis API; sandbox;
// error handler), script compilation and one run with Redis' reply and error forms.
#include <cstdlib>
#include <exception>
#include <string>

#include "listd/base/scope_exit.h"
#include "lua_internal.h"

namespace listd::script {
namespace {

using detail::state_of;

// Every allocation of the state goes through here: the count is INFO used_memory_lua, and the
// cap turns a runaway script into Lua's "not enough memory" instead of a huge process.
void* counting_alloc(void* ud, void* ptr, std::size_t old_size, std::size_t new_size) {
  auto& st = *static_cast<LuaEngine::State*>(ud);
  if (new_size == 0) {
    std::free(ptr);
    st.heap_used -= old_size;
    return nullptr;
  }
  if (st.heap_limit != 0 && new_size > old_size &&
      st.heap_used + (new_size - old_size) > st.heap_limit)
    return nullptr;
  void* p = std::realloc(ptr, new_size);
  if (!p) return nullptr;
  st.heap_used = st.heap_used - old_size + new_size;
  return p;
}

// __redis__err__handler (Redis eval.c's Lua text, here in C): any raised value becomes
// {err="ERR <tostring(value)>"} unless it is a table, and gets the source and line of the
// function that raised (the caller of a C function, when a C function raised).
int error_handler(lua_State* L) {
  lua_Debug ar;
  bool have = lua_getstack(L, 1, &ar) && lua_getinfo(L, "nSl", &ar);
  if (have && ar.what && std::string_view(ar.what) == "C")
    have = lua_getstack(L, 2, &ar) && lua_getinfo(L, "nSl", &ar);
  if (!lua_istable(L, 1)) {
    lua_getfield(L, LUA_REGISTRYINDEX, "listd.tostring");
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    const std::string text = std::string("ERR ") + lua_tostring(L, -1);
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushlstring(L, text.data(), text.size());
    lua_settable(L, -3);
    lua_replace(L, 1);
    lua_settop(L, 1);
  }
  if (have) {
    lua_pushstring(L, "source");
    lua_pushstring(L, ar.source);
    lua_settable(L, 1);
    lua_pushstring(L, "line");
    lua_pushinteger(L, ar.currentline);
    lua_settable(L, 1);
  }
  lua_settop(L, 1);
  return 1;
}

// An error table redis.call / redis.pcall built from a command's error reply.
bool already_counted_error(lua_State* L) {
  if (!lua_istable(L, -1)) return false;
  lua_pushstring(L, "err");
  lua_rawget(L, -2);
  const bool is_error = lua_type(L, -1) == LUA_TSTRING;
  lua_pop(L, 1);
  lua_pushstring(L, "ignore_error_stats_update");
  lua_rawget(L, -2);
  const bool counted = lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);
  return is_error && counted;
}

// The count hook: asks the runner whether to go on; once the script is killed, it fires on
// every line and raises again, so a pcall in the script cannot catch the kill and loop on.
void interrupt_hook(lua_State* L, lua_Debug*) {
  LuaEngine::State& st = state_of(L);
  bool kill = false;
  try {
    kill = st.runner && st.runner->interrupt();
  } catch (const std::exception&) {
    // Nothing may unwind through Lua's frames but a Lua error; the script goes on.
  }
  if (!kill) return;
  lua_sethook(L, interrupt_hook, LUA_MASKLINE, 0);
  detail::push_error_table(L, "Script killed by user with SCRIPT KILL...");
  lua_error(L);
}

std::string function_name(std::string_view sha) { return "f_" + std::string(sha); }

std::string string_field(lua_State* L, int table, const char* name, bool& present) {
  lua_getfield(L, table, name);
  present = lua_isstring(L, -1) != 0;
  std::string text;
  if (present) {
    std::size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    text.assign(s, len);
  }
  lua_pop(L, 1);
  return text;
}

}  // namespace

// The reply of a raised error (Redis luaCallFunction): "-<err> script: <sha>, on <src>:<line>."
void detail::write_run_error(lua_State* L, std::string_view sha, protocol::ReplyWriter& out) {
  if (!lua_istable(L, -1)) {
    const char* msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
    out.error("ERR Error running script " + std::string(sha) + ", " +
              std::string(msg).substr(0, 100) + " ");
    return;
  }
  const int table = lua_gettop(L);
  bool has_err = false, has_source = false, has_line = false;
  // A raised table without `err` crashes Redis 7.0.15 (error({})); listd answers an ERR.
  std::string text = string_field(L, table, "err", has_err);
  if (!has_err) text = "ERR unknown error";
  const std::string source = string_field(L, table, "source", has_source);
  const std::string line = string_field(L, table, "line", has_line);
  if (has_source && has_line)
    text += " script: " + std::string(sha) + ", on " + source + ":" + line + ".";
  out.error(text);
}

LuaEngine::LuaEngine(std::size_t heap_limit) : state_(std::make_unique<State>()) {
  State& st = *state_;
  st.heap_limit = 0;  // the set-up itself is never refused
  st.L = lua_newstate(counting_alloc, &st);
  if (!st.L) std::abort();
  lua_State* L = st.L;
  detail::open_libraries(L);
  detail::register_redis_api(L);
  lua_getfield(L, LUA_GLOBALSINDEX, "tostring");
  lua_setfield(L, LUA_REGISTRYINDEX, "listd.tostring");
  lua_pushcfunction(L, error_handler);
  lua_setfield(L, LUA_GLOBALSINDEX, "__redis__err__handler");
  st.real_globals_ref = detail::install_sandbox(L);
  st.heap_limit = heap_limit;
}

LuaEngine::~LuaEngine() {
  if (state_ && state_->L) {
    state_->heap_limit = 0;
    lua_close(state_->L);
  }
}

std::size_t LuaEngine::used_memory() const noexcept { return state_->heap_used; }

std::string LuaEngine::compile(std::string_view sha, std::string_view body,
                               std::size_t shebang_len) {
  lua_State* L = state_->L;
  const int top = lua_gettop(L);
  base::ScopeExit restore([&] { lua_settop(L, top); });
  if (detail::load_text_chunk(L, body.substr(shebang_len), "@user_script") != 0) {
    const char* msg = lua_tostring(L, -1);
    return std::string("ERR Error compiling script (new function): ") + (msg ? msg : "");
  }
  lua_setfield(L, LUA_REGISTRYINDEX, function_name(sha).c_str());
  return {};
}

void LuaEngine::forget(std::string_view sha) {
  lua_State* L = state_->L;
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, function_name(sha).c_str());
}

bool LuaEngine::has(std::string_view sha) const {
  lua_State* L = state_->L;
  lua_getfield(L, LUA_REGISTRYINDEX, function_name(sha).c_str());
  const bool found = lua_isfunction(L, -1);
  lua_pop(L, 1);
  return found;
}

namespace {

void set_array_global(lua_State* L, int real_globals, const char* name,
                      std::span<const std::string_view> values) {
  lua_pushstring(L, name);
  lua_createtable(L, static_cast<int>(values.size()), 0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    lua_pushlstring(L, values[i].data(), values[i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  lua_rawset(L, real_globals);
}

}  // namespace

namespace {

// One run (EVAL or FCALL) of the function below the `nargs` arguments on top of the stack,
// with the error handler below it: the hook, the reply or error, the GC step.
bool call_and_reply(LuaEngine::State& st, int nargs, std::string_view name, CommandRunner& runner,
                    protocol::ReplyWriter& caller, int top) {
  lua_State* L = st.L;
  st.runner = &runner;
  st.resp = 2;
  if (runner.wants_interrupts())
    lua_sethook(L, interrupt_hook, LUA_MASKCOUNT, kInterruptInstructions);
  base::ScopeExit end_run([&] {
    lua_sethook(L, nullptr, 0, 0);
    st.runner = nullptr;
    lua_settop(L, top);
  });
  const int err = lua_pcall(L, nargs, 1, -(nargs + 2));
  // A collection step every 50 runs, as Redis, instead of a full cycle at an unlucky moment.
  if (++st.runs == 50) {
    lua_gc(L, LUA_GCSTEP, 50);
    st.runs = 0;
  }
  const bool counted = already_counted_error(L);
  if (err != 0)
    detail::write_run_error(L, name, caller);
  else
    detail::write_reply(L, caller, st.resp);
  return counted;
}

void push_array(lua_State* L, std::span<const std::string_view> values) {
  lua_createtable(L, static_cast<int>(values.size()), 0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    lua_pushlstring(L, values[i].data(), values[i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
}

}  // namespace

bool LuaEngine::run(std::string_view sha, std::span<const std::string_view> keys,
                    std::span<const std::string_view> args, CommandRunner& runner,
                    protocol::ReplyWriter caller) {
  State& st = *state_;
  lua_State* L = st.L;
  const int top = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, st.real_globals_ref);
  const int real_globals = lua_gettop(L);
  set_array_global(L, real_globals, "KEYS", keys);
  set_array_global(L, real_globals, "ARGV", args);
  lua_pushcfunction(L, error_handler);
  lua_getfield(L, LUA_REGISTRYINDEX, function_name(sha).c_str());
  return call_and_reply(st, 0, sha, runner, caller, top);
}

// Functions get KEYS and ARGV as arguments; the globals are not set (Redis luaCallFunction).
bool LuaEngine::call_function(int ref, std::string_view name,
                              std::span<const std::string_view> keys,
                              std::span<const std::string_view> args, CommandRunner& runner,
                              protocol::ReplyWriter caller) {
  State& st = *state_;
  lua_State* L = st.L;
  const int top = lua_gettop(L);
  lua_pushcfunction(L, error_handler);
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
  push_array(L, keys);
  push_array(L, args);
  return call_and_reply(st, 2, name, runner, caller, top);
}

void LuaEngine::release_function(int ref) { luaL_unref(state_->L, LUA_REGISTRYINDEX, ref); }

}  // namespace listd::script
