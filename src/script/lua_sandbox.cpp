// The read-only sandbox on stock Lua 5.1 (SCRIPTING.md §6.3). Redis patches its Lua with a
// `readonly` flag on tables; Debian's Lua has none, so every protected table is replaced by an
// empty proxy whose metatable reads through to the real table and refuses writes. The builtins
// that bypass metamethods either see through a proxy (rawget, next, pairs, ipairs) or refuse
// it (rawset, setmetatable, table.insert/remove/sort), as Redis' C API checks do.
#include <cstdlib>
#include <string>

#include "lua_internal.h"

namespace listd::script::detail {
namespace {

constexpr const char* kReadonly = "Attempt to modify a readonly table";
// Registry keys: proxy -> real table; proxy -> what getmetatable(proxy) answers.
constexpr const char* kProxiesKey = "listd.proxies";
constexpr const char* kApparentKey = "listd.apparent_metatables";

// An assignment through a proxy: luaL_error adds the script's position, as the VM does in
// Redis' luaV_settable.
int refuse_assignment(lua_State* L) { return luaL_error(L, "%s", kReadonly); }

// Raised from a builtin: no position, as Redis' lua_rawset / lua_setmetatable raise it.
[[noreturn]] void refuse_in_api(lua_State* L) {
  lua_pushstring(L, kReadonly);
  lua_error(L);
  std::abort();  // unreachable: lua_error throws in the C++ build
}

// Pushes the real table behind the value at `index`, or nothing and false if it is no proxy.
bool push_real(lua_State* L, int index) {
  if (lua_type(L, index) != LUA_TTABLE) return false;
  lua_getfield(L, LUA_REGISTRYINDEX, kProxiesKey);
  lua_pushvalue(L, index);
  lua_rawget(L, -2);
  lua_remove(L, -2);
  if (lua_istable(L, -1)) return true;
  lua_pop(L, 1);
  return false;
}

bool is_proxy(lua_State* L, int index) {
  if (!push_real(L, index)) return false;
  lua_pop(L, 1);
  return true;
}

// The original function in upvalue 1, called with every argument; arg 1 is refused if it is
// a proxy (rawset, setmetatable, table.insert/remove/sort).
int refuse_proxy_then_call(lua_State* L) {
  if (is_proxy(L, 1)) refuse_in_api(L);
  const int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  return lua_gettop(L);
}

// The original function in upvalue 1 with arg 1 replaced by the real table (rawget, next).
int see_through_then_call(lua_State* L) {
  if (push_real(L, 1)) lua_replace(L, 1);
  const int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  return lua_gettop(L);
}

// pairs(t): our `next` (upvalue 1), so iteration sees through a proxy without handing the
// real table to the script.
int sandbox_pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

int ipairs_step(lua_State* L) {
  const int i = luaL_checkint(L, 2) + 1;
  luaL_checktype(L, 1, LUA_TTABLE);
  if (!push_real(L, 1)) lua_pushvalue(L, 1);
  lua_pushinteger(L, i);
  lua_rawgeti(L, -2, i);
  return lua_isnil(L, -1) ? 0 : 2;
}

int sandbox_ipairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

// getmetatable: a proxy answers its apparent metatable (nil for a library table, a read-only
// view for _G); anything else as stock Lua (which honours __metatable).
int sandbox_getmetatable(lua_State* L) {
  luaL_checkany(L, 1);
  if (is_proxy(L, 1)) {
    lua_getfield(L, LUA_REGISTRYINDEX, kApparentKey);
    lua_pushvalue(L, 1);
    lua_rawget(L, -2);
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  lua_call(L, 1, 1);
  return 1;
}

void wrap(lua_State* L, int table, const char* name, lua_CFunction wrapper) {
  lua_getfield(L, table, name);
  lua_pushcclosure(L, wrapper, 1);
  lua_setfield(L, table, name);
}

// Pushes a proxy of the table at `real` (absolute index) and records it.
void push_proxy(lua_State* L, int real) {
  lua_newtable(L);  // the proxy
  lua_newtable(L);  // its metatable
  lua_pushvalue(L, real);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, refuse_assignment);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_getfield(L, LUA_REGISTRYINDEX, kProxiesKey);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, real);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

// Replaces every table value inside the table at `real` with its proxy, depth first; `done`
// (absolute index) maps real tables already protected to their proxy, for shared and cyclic
// tables. Pushes the proxy of `real` itself.
void protect_recursively(lua_State* L, int real, int done) {
  lua_pushvalue(L, real);
  lua_rawget(L, done);
  if (!lua_isnil(L, -1)) return;
  lua_pop(L, 1);
  push_proxy(L, real);
  lua_pushvalue(L, real);
  lua_pushvalue(L, -2);
  lua_rawset(L, done);
  luaL_checkstack(L, 8, "protecting tables");
  lua_pushnil(L);
  while (lua_next(L, real)) {
    if (lua_istable(L, -1) && !is_proxy(L, -1)) {
      protect_recursively(L, lua_gettop(L), done);
      lua_pushvalue(L, -3);  // key
      lua_insert(L, -2);
      lua_rawset(L, real);
    }
    lua_pop(L, 1);
  }
}

void remove_globals(lua_State* L) {
  for (const char* name : {"getfenv", "setfenv", "newproxy", "print", "dofile", "loadfile",
                           "module", "require", "package", "debug", "os", "io"}) {
    lua_pushnil(L);
    lua_setfield(L, LUA_GLOBALSINDEX, name);
  }
}

void install_wrappers(lua_State* L) {
  wrap(L, LUA_GLOBALSINDEX, "rawset", refuse_proxy_then_call);
  wrap(L, LUA_GLOBALSINDEX, "setmetatable", refuse_proxy_then_call);
  wrap(L, LUA_GLOBALSINDEX, "rawget", see_through_then_call);
  wrap(L, LUA_GLOBALSINDEX, "next", see_through_then_call);
  wrap(L, LUA_GLOBALSINDEX, "getmetatable", sandbox_getmetatable);
  lua_getfield(L, LUA_GLOBALSINDEX, "next");
  lua_pushcclosure(L, sandbox_pairs, 1);
  lua_setfield(L, LUA_GLOBALSINDEX, "pairs");
  lua_pushcfunction(L, ipairs_step);
  lua_pushcclosure(L, sandbox_ipairs, 1);
  lua_setfield(L, LUA_GLOBALSINDEX, "ipairs");
  lua_getfield(L, LUA_GLOBALSINDEX, "table");
  const int table = lua_gettop(L);
  for (const char* name : {"insert", "remove", "sort"})
    wrap(L, table, name, refuse_proxy_then_call);
  lua_pop(L, 1);
}

}  // namespace

int nonexistent_global(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    name ? name : "?");
}

void push_read_only(lua_State* L, int real) {
  lua_newtable(L);
  const int done = lua_gettop(L);
  protect_recursively(L, real, done);
  lua_remove(L, done);
}

int install_sandbox(lua_State* L) {
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kProxiesKey);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kApparentKey);
  remove_globals(L);
  install_wrappers(L);

  lua_pushvalue(L, LUA_GLOBALSINDEX);
  const int real_globals = lua_gettop(L);
  lua_newtable(L);
  const int done = lua_gettop(L);
  lua_pushvalue(L, real_globals);
  lua_pushboolean(L, 1);  // _G itself gets its proxy last, below
  lua_rawset(L, done);
  // Every library table (string, table, math, cjson, bit, cmsgpack, struct, redis, coroutine).
  lua_pushnil(L);
  while (lua_next(L, real_globals)) {
    if (lua_istable(L, -1) && !lua_rawequal(L, -1, real_globals)) {
      protect_recursively(L, lua_gettop(L), done);
      lua_pushvalue(L, -3);
      lua_insert(L, -2);
      lua_rawset(L, real_globals);
    }
    lua_pop(L, 1);
  }

  // The string metatable: __index is the protected `string`, and getmetatable('') answers a
  // read-only view of it (Redis 7.0.15 leaves it writable: the CVE-2025-46818 class).
  lua_pushstring(L, "");
  lua_getmetatable(L, -1);
  const int string_mt = lua_gettop(L);
  lua_getfield(L, real_globals, "string");
  lua_setfield(L, string_mt, "__index");
  push_proxy(L, string_mt);
  lua_setfield(L, string_mt, "__metatable");
  lua_pop(L, 2);

  // The globals: a miss raises Redis' error; scripts see the read-only proxy as _G and as
  // their environment, and getmetatable(_G) answers a read-only view of the real metatable.
  lua_newtable(L);
  const int globals_mt = lua_gettop(L);
  lua_pushcfunction(L, nonexistent_global);
  lua_setfield(L, globals_mt, "__index");
  lua_pushvalue(L, globals_mt);
  lua_setmetatable(L, real_globals);
  push_proxy(L, real_globals);
  const int proxy_globals = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, kApparentKey);
  lua_pushvalue(L, proxy_globals);
  push_proxy(L, globals_mt);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  lua_pushstring(L, "_G");
  lua_pushvalue(L, proxy_globals);
  lua_rawset(L, real_globals);
  lua_pushvalue(L, proxy_globals);
  lua_replace(L, LUA_GLOBALSINDEX);

  lua_pushvalue(L, real_globals);
  const int ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_settop(L, real_globals - 1);
  return ref;
}

}  // namespace listd::script::detail
